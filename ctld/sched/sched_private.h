/* sched_private.h - what the scheduler's two passes share: sched.c's
 * strict priority pass and backfill.c's.
 */
#ifndef ARBOR_CTLD_SCHED_PRIVATE_H
#define ARBOR_CTLD_SCHED_PRIVATE_H

#include <stddef.h>

#include "sched/prio.h"
#include "sched/select.h"
#include "sched/when.h"

struct ctld;
struct job;

/* A pending job that may start now, and its priority in this pass. */
struct sched_cand {
    struct job *j;
    struct prio prio;
};

/* The pending jobs that may start now, in scheduling order (prio.h);
 * the others get their reason. NULL on ENOMEM. */
struct sched_cand *sched_candidates (struct ctld *ctx,
                                     const struct when_pass *wp, size_t *n);
/* Start j on selection 'res' (over its partition's nodes) and grant it
 * when nothing else must run first. 1 started, 0 not (logged). */
int sched_start (struct ctld *ctx, struct job *j,
                 const struct select_result *res);

/* -N MIN-MAX (sched_range.c): select as many nodes of j's range as fit
 * now (0, or -1 with errno ENOSPC and err when not even MIN does); put
 * j's request back to the range's minimum for a new run; record in it
 * what a run got. */
int sched_range_select (const struct select_node *v, size_t n,
                        const struct job *j, struct select_result *res,
                        arbor_error_t *err);
void sched_range_reset (struct job *j);
void sched_range_got (struct job *j, const struct select_result *res);

#endif
