/* sched.h - the scheduler: FCFS passes, and when they run.
 *
 * The functions that change what is free or what is pending ask for a
 * pass (sched_wake.h); one pass runs before the loop next sleeps, however
 * many changes a callback made. Handlers and timers never run the
 * scheduler themselves. What a pass decides (start a job, end one whose
 * dependency can never be satisfied) the job life carries out, through
 * the hooks it gives sched_hooks_set(): the scheduler never calls into
 * job/ itself.
 */
#ifndef ARBOR_CTLD_SCHED_H
#define ARBOR_CTLD_SCHED_H

#include <time.h>

#include "error.h"

struct ctld;
struct job;
struct sched;
struct select_result;

/* 0 if job j could ever run (its partition's nodes as configured, its
 * licenses as configured), else -1 with errno EINVAL and err saying
 * why: the submission's check (job/submit.c). */
int sched_ever_fits (struct ctld *ctx, const struct job *j, arbor_error_t *err);

/* What a pass decides, carried out by the job life (job/jobstart.c),
 * which gives these once at assembly: the scheduler never calls into
 * job/ itself. */
struct sched_hooks {
    /* Start j on 'res' (its partition's nodes): 1 started, 0 not (the
     * job life logged why). */
    int (*start) (struct ctld *ctx, struct job *j,
                  const struct select_result *res);
    /* j may start from now on, the first time this run ('now'). */
    void (*eligible) (struct ctld *ctx, struct job *j, time_t now);
    /* j's dependency can never be satisfied ('why'). */
    void (*never) (struct ctld *ctx, struct job *j, const char *why);
};
void sched_hooks_set (struct ctld *ctx, const struct sched_hooks *h);

/* Run the requested pass now, if any (the watcher's work; unit tests
 * call it to stay deterministic without running the loop). A pass starts
 * pending jobs in order while they fit (strict FIFO). */
void sched_flush (struct ctld *ctx);
/* The trigger: ctx->sched, made before anything can request a pass
 * (before nodes_init), its watcher on ctx->loop. NULL with errno ENOMEM.
 * Without it sched_request and sched_flush do nothing. sched_destroy
 * accepts NULL and keeps errno. */
struct sched *sched_create (struct ctld *ctx);
/* SchedulerType and SchedulerParameters: with sched/backfill, a timer on
 * ctx->loop runs sched_backfill every bf_interval seconds. -1 with err
 * naming what is wrong. */
int sched_configure (struct ctld *ctx, arbor_error_t *err);
/* The strict pass, then a backfill pass (backfill.h) when configured
 * (the timer's work; unit tests call it). */
void sched_backfill (struct ctld *ctx);
void sched_destroy (struct sched *s);
/* No more backfill: its timer stopped, its worker joined (a plan being
 * made borrows the nodes' names: before they go). NULL accepted. */
void sched_stop (struct sched *s);

#endif
