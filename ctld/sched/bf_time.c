/* bf_time.c - the times of backfill's plan: its resolution and its
 * profiles' blocks. See bf_plan.h. */
#include "sched/bf_plan.h"
#include "sched/profile.h"

time_t bf_round (const struct bf_snap *s, time_t t)
{
    time_t res = s->bp.resolution ? s->bp.resolution : 1;

    if (t == PROFILE_FOREVER)
        return t;
    if (t <= s->now)
        return s->now;
    return s->now + (t - s->now + res - 1) / res * res;
}

/* The profiles' blocks (profile.h): 16 steps of the resolution, so a
 * window of a few hours reads a few dozen rows instead of hundreds. */
time_t bf_block_span (const struct bf_snap *s)
{
    return 16 * (s->bp.resolution ? (time_t)s->bp.resolution : 1);
}
