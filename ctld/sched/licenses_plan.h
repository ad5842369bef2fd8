/* licenses_plan.h - licenses in the backfill plan (backfill.h, bf_plan.h).
 *
 * The snapshot (on the loop) copies what is free of each license now,
 * when each running or completing job gives its licenses back (the end
 * backfill expects of its nodes), and each pending job's request as
 * indexes into the licenses. The plan (any thread, pure) keeps, per
 * license, a step function of what is free over time: released counts
 * come back at their time, a planned job's choice is taken for its
 * window. A job fits at t only if one of its choices, in the order it
 * gave them, is free over the whole of [t, t + its limit).
 */
#ifndef ARBOR_CTLD_LICENSES_PLAN_H
#define ARBOR_CTLD_LICENSES_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct job;

#define LIC_NONE SIZE_MAX /* a license the pool lacks: never free */

/* count of license 'lic' (an index into the snapshot's licenses) */
struct lic_use {
    size_t lic;
    uint32_t count;
};

/* A pending job's request: uses [first, first + n) of the snapshot; n 0
 * none. any: each use is a choice of its own, else all of them are one. */
struct lic_need {
    size_t first, n;
    bool any;
};

/* Running jobs' licenses, and when they come back. */
struct lic_rel {
    time_t end;
    struct lic_use use;
};

struct lic_snap {
    size_t nlic;
    int64_t *free; /* per license, now: total - used (< 0 when a
                      reconfigure lowered a total below its use) */
    struct lic_rel *rels;
    size_t nrels, relcap;
    struct lic_use *uses;
    size_t nuses, usecap;
};

/* ---- the snapshot (on the loop) ------------------------------------------
 * Each is -1 with errno ENOMEM; lic_snap_free frees what they made. */

/* j's licenses, if it holds any, come back at 'end'. */
int lic_snap_run (struct lic_snap *s, const struct ctld *ctx,
                  const struct job *j, time_t end);
/* Pending job j's request into *need. */
int lic_snap_job (struct lic_snap *s, const struct ctld *ctx,
                  const struct job *j, struct lic_need *need);
void lic_snap_free (struct lic_snap *s);

/* ---- the plan (pure) ------------------------------------------------------
 */

struct lic_seg {
    time_t start;
    int64_t free;
};

struct lic_line {
    struct lic_seg *segs; /* by start; the first one starts at 'now' */
    size_t n, cap;
};

struct licplan {
    const struct lic_snap *s;
    struct lic_line *lines; /* one per license */
    size_t choice;          /* the choice licplan_fits last found */
};

/* What is free now. -1 with errno ENOMEM. */
int licplan_init (struct licplan *p, const struct lic_snap *s, time_t now);
/* Release r at time t (the caller's rounding of r->end). -1 ENOMEM. */
int licplan_release (struct licplan *p, const struct lic_rel *r, time_t t);
/* Is one of need's choices free over all of [t0, t1) (t1
 * PROFILE_FOREVER: from t0 on)? true for no need; the first one that is
 * becomes p->choice. */
bool licplan_fits (struct licplan *p, const struct lic_need *need, time_t t0,
                   time_t t1);
/* Take p->choice of need over [t0, t1). -1 with errno ENOMEM. */
int licplan_reserve (struct licplan *p, const struct lic_need *need, time_t t0,
                     time_t t1);
void licplan_free (struct licplan *p);

#endif
