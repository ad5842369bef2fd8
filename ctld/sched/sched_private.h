/* sched_private.h - what sched.c gives the scheduler's other pass:
 * the candidates of sched.c's strict priority pass and how one starts,
 * which backfill.c uses too. (-N MIN-MAX is sched_range.h's.)
 */
#ifndef ARBOR_CTLD_SCHED_PRIVATE_H
#define ARBOR_CTLD_SCHED_PRIVATE_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "sched/backfill.h"
#include "sched/bf_plan.h"
#include "sched/prio.h"
#include "sched/sched.h"
#include "sched/select.h"
#include "sched/when.h"

struct ctld;
struct job;

/* The scheduler's state (sched.c); sched_wake.c arms its watcher. */
struct sched {
    struct ctld *ctx;
    ev_prepare w;             /* runs the pass before the loop sleeps */
    bool pending;             /* a pass was requested */
    bool backfill;            /* SchedulerType=sched/backfill */
    struct bf_params bp;      /* ... its SchedulerParameters */
    ev_timer bf_w;            /* ... every bf_interval seconds */
    struct bf_worker *worker; /* ... plans off the loop (bf_plan.h) */
    struct sched_hooks hooks; /* the job life's (sched_hooks_set) */
};

/* A pending job that may start now, and its priority in this pass. */
struct sched_cand {
    struct job *j;
    struct prio prio;
};

/* The pending jobs that may start now, in scheduling order (prio.h);
 * the others get their reason. NULL on ENOMEM. */
struct sched_cand *sched_candidates (struct ctld *ctx,
                                     const struct when_pass *wp, size_t *n);
/* Start j on selection 'res' (over its partition's nodes) through the
 * job life's hook, unless the state database cannot be written. 1
 * started, 0 not (logged). */
int sched_start (struct ctld *ctx, struct job *j,
                 const struct select_result *res);

#endif
