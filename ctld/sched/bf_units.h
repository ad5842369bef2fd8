/* bf_units.h - generic resource units through backfill's plan (issue
 * 35): a second availability profile (profile.h) whose columns are the
 * snapshot's items (its slots) instead of nodes, counting free units.
 * Running jobs give theirs back at their end; a job the plan starts or
 * reserves for takes its units for its time limit, as it takes its
 * cores. So a plan knows, in every window, how many units of each item
 * a node has free, and two planned jobs never count on the same device.
 * Units are counted, not numbered: which index a job gets is decided
 * when it starts (gres_sched.h), among units this count says are free.
 */
#ifndef ARBOR_CTLD_BF_UNITS_H
#define ARBOR_CTLD_BF_UNITS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "sched/profile.h"

struct bf_snap;
struct bf_sgres;

struct bf_units {
    const struct bf_snap *s;
    struct profile prof; /* its "cpus": free units per slot */
    uint32_t *free;      /* scratch: every slot's free units in a window */
};

/* From what the snapshot says is free now and when it comes back. -1
 * with errno ENOMEM. */
int bf_units_init (struct bf_units *u, const struct bf_snap *s);
void bf_units_free (struct bf_units *u);
/* The fewest units a job of request g and req can hold (bf_plan.c
 * tests the least free in all over a window first). */
struct select_req;
uint64_t bf_units_need (const struct bf_sgres *g, const struct select_req *req);
/* What stays free in every slot during all of [start of segment i of
 * u->prof, t1), for the calls below. */
void bf_units_window (struct bf_units *u, size_t i, time_t t1);
/* In that window, the tasks node's units allow request g (gres_count.h)
 * and the units of its per-job request the node can give. */
void bf_units_node (const struct bf_units *u, size_t node,
                    const struct bf_sgres *g, uint32_t *tasks, uint32_t *units);
/* Take on 'node' what g needs for 'tasks' tasks and 'share' units of its
 * per-job request during [t0, t1), out of the window's free units. -1
 * with errno ENOMEM. */
int bf_units_reserve (struct bf_units *u, size_t node, const struct bf_sgres *g,
                      uint32_t tasks, uint32_t share, time_t t0, time_t t1);

#endif
