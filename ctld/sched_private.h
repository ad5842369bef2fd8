/* sched_private.h - what the scheduler's two passes share: sched.c's
 * strict priority pass and backfill.c's.
 */
#ifndef ARBOR_CTLD_SCHED_PRIVATE_H
#define ARBOR_CTLD_SCHED_PRIVATE_H

#include <stddef.h>

#include "prio.h"
#include "select.h"
#include "when.h"

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

#endif
