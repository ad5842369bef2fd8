/* sched_cand.h - the candidates of a scheduling pass and how one starts
 * (sched_cand.c), for sched.c's strict pass and backfill.c's.
 */
#ifndef ARBOR_CTLD_SCHED_CAND_H
#define ARBOR_CTLD_SCHED_CAND_H

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
/* Start j on selection 'res' (over its partition's nodes) through the
 * job life's hook, unless the state database cannot be written. 1
 * started, 0 not (logged). */
int sched_start (struct ctld *ctx, struct job *j,
                 const struct select_result *res);
/* A pending job that may not start yet (held, --begin, dependency,
 * array cap, verdict 'v' and 'why' from when_eligible): its reason, or
 * its end when its dependency can never be satisfied. */
void sched_not_eligible (struct ctld *ctx, struct job *j, enum when_verdict v,
                         const char *why);

#endif
