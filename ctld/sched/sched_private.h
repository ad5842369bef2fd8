/* sched_private.h - the scheduler's state (struct sched), shared by the
 * files of sched/ that run its passes (sched.c, sched_cand.c,
 * sched_wake.c). The candidates of a pass are sched_cand.h's; -N MIN-MAX
 * is sched_range.h's.
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

#endif
