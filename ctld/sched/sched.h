/* sched.h - the scheduler: FCFS passes, and when they run.
 *
 * The functions that change what is free or what is pending call
 * sched_request() (node.c: a node's state changes or cores are given
 * back; term.c: a job ends; orphan.c and liveness.c: a node becomes
 * usable again or goes DOWN). That only arms an ev_prepare watcher: one
 * pass runs before the loop next sleeps, however many changes a callback
 * made. Handlers and timers never run the scheduler themselves.
 */
#ifndef ARBOR_CTLD_SCHED_H
#define ARBOR_CTLD_SCHED_H

#include "error.h"

struct ctld;
struct job;
struct sched;

/* Queue a validated job: -1 with errno EINVAL and err if it can never
 * run (the job is then not queued and still the caller's), else 0 and the
 * job belongs to ctx. A pass runs at once (sched_flush), so that the
 * caller sees whether the job started or waits (JOB_ALLOCATED or
 * JOB_PENDING is the requester's answer). */
int sched_submit (struct ctld *ctx, struct job *j, arbor_error_t *err);
/* sched_submit in two halves, for batch jobs and arrays (answered with
 * their id before any pass runs): sched_check refuses a job that can
 * never run, or n more jobs than MaxJobCount allows (errno EINVAL,
 * EAGAIN); sched_enqueue gives j its id and queues it (it is then
 * ctx's) and requests a pass. -1 with errno and err. */
int sched_check (struct ctld *ctx, const struct job *j, size_t n,
                 arbor_error_t *err);
int sched_enqueue (struct ctld *ctx, struct job *j, arbor_error_t *err);
/* Started job j may be used: its allocating connection gets
 * JOB_ALLOCATED, or its batch step starts (after the Prologs, when they
 * run at allocation time: prolog.h). */
void sched_granted (struct ctld *ctx, struct job *j);
/* Ask for a scheduling pass before the loop next sleeps. Cheap: call it
 * on every change; passes are not queued up. */
void sched_request (struct ctld *ctx);
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
