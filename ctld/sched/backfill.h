/* backfill.h - SchedulerType=sched/backfill: start lower priority jobs
 * early where that delays no job planned before them.
 *
 * Every bf_interval seconds (after the strict pass of sched.c, which
 * still starts jobs in priority order while they fit), a backfill pass
 * takes a snapshot of the controller's state on the loop, computes its
 * plan on a thread of its own (bf_plan.h: the loop keeps answering while
 * it thinks) and applies it on the loop, starting only jobs whose nodes
 * are still free. The plan builds the availability profile (profile.h) from
 * what is free now and when each running job will end (its start plus its time
 * limit), then takes the pending jobs in priority order and, for each, finds
 * the earliest time it fits on its partition's nodes for its whole time limit,
 * at core and MB granularity:
 *   - now: it starts, and its share is taken from the profile;
 *   - later: under bf_mode=conservative (the default) every such job gets
 *     a reservation (its share taken from then on, for its limit), so no
 *     job behind it can delay it; under bf_mode=easy only the first
 *     waiting job of each partition does;
 *   - not within bf_window: no reservation.
 * A job's planned start is kept (expected_start) for arbor queue --start.
 * SchedulerParameters: bf_interval (s, 30), bf_window (min, 1440),
 * bf_resolution (s, 60), bf_max_job_test (10000: Slurm's 500 is a limit
 * this pass does not need), bf_max_job_start, bf_max_job_part,
 * bf_max_job_user (0: none), bf_min_age_reserve (s), bf_min_prio_reserve,
 * bf_mode, bf_continue (accepted: the pass never stops halfway).
 */
#ifndef ARBOR_CTLD_BACKFILL_H
#define ARBOR_CTLD_BACKFILL_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

struct ctld;

/* The SchedulerParameters above, parsed (backfill_params.c): every
 * caller of a pass holds them. */
#include "sched/backfill_params.h"

/* What one pass did. */
struct bf_stats {
    uint32_t tested, started, reserved;
    /* backfill_pass: ms spent on the snapshot and applying the plan (the
     * loop's share when the plan runs on the worker) and on the plan */
    double snap_ms, plan_ms, apply_ms;
};

/* The snapshot a pass plans from (bf_plan.h), with room for one job
 * more, which backfill_snap_job appends (willrun.c: a job that is not
 * queued). -1 with errno ENOMEM. */
struct bf_snap;
struct job;
struct prio;
int backfill_snapshot (struct ctld *ctx, const struct bf_params *bp,
                       struct bf_snap *s);
int backfill_snap_job (const struct ctld *ctx, struct bf_snap *s,
                       const struct job *j, const struct prio *prio);

/* One backfill pass, all on the loop (unit tests, benches). -1 with
 * errno ENOMEM (nothing is half done: jobs already started stay
 * started). */
int backfill_pass (struct ctld *ctx, const struct bf_params *bp,
                   struct bf_stats *st);

/* The same in halves, the plan computed off the loop (bf_plan.h): take
 * the snapshot and hand it to worker w (-1 with errno: ENOMEM, or EBUSY
 * while w still plans the last one); then, given back by w, apply the
 * plan (freeing s, which was malloc'd, and the plan). */
struct bf_worker;
struct bf_snap;
struct bf_plan;
int backfill_start (struct ctld *ctx, const struct bf_params *bp,
                    struct bf_worker *w);
void backfill_finish (struct ctld *ctx, struct bf_snap *s, struct bf_plan *plan,
                      struct bf_stats *st);

#endif
