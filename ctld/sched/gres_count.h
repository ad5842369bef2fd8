/* gres_count.h - a node's generic resources as counts per item, and
 * what a job's request (gres_sched.h) takes of them: the one piece of
 * arithmetic for a node as it is now (gres_sched.c) and for a node
 * during a window of backfill's plan (bf_plan.c), where units are only
 * counted, never numbered.
 *
 * An item is what node_gres.h keeps: a name, maybe a type, a number of
 * units. A request item without a type takes units of any type, items
 * in their order (as node_gres_take takes them).
 */
#ifndef ARBOR_CTLD_GRES_COUNT_H
#define ARBOR_CTLD_GRES_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct job_gres;

struct gres_count {
    const char *name;
    const char *type; /* NULL: none */
    uint32_t total;   /* units it has */
    uint32_t free;    /* of those, free */
};

/* Free units of 'name' (and 'type'; "" or NULL any) among the n items. */
uint64_t gres_count_avail (const struct gres_count *c, size_t n,
                           const char *name, const char *type);
/* How many tasks the free units allow request g (UINT32_MAX: no per
 * task limit; 0: the node cannot hold it). 'exclusive' (--exclusive)
 * needs every unit free. */
uint32_t gres_count_tasks (const struct gres_count *c, size_t n,
                           const struct job_gres *g, bool exclusive);
/* Units of g's per-job request (--gpus) the items can give. */
uint32_t gres_count_units (const struct gres_count *c, size_t n,
                           const struct job_gres *g);
/* Take from the items' free units what g needs for 'tasks' tasks and
 * 'share' units of its per-job request (every unit when 'exclusive'),
 * adding what each item gives to taken[] (n entries). -1 with errno
 * ENOSPC when they are not enough (what was taken stays taken). */
int gres_count_take (struct gres_count *c, size_t n, const struct job_gres *g,
                     bool exclusive, uint32_t tasks, uint32_t share,
                     uint32_t *taken);

#endif
