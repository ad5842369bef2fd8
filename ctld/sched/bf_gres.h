/* bf_gres.h - backfill's snapshot of generic resources (issue 35): each
 * node's items as counts (gres_count.h), what running jobs hold of them
 * and when it comes back, and the pending jobs' requests, one entry per
 * alike request. Taken on the loop with the rest of the snapshot
 * (backfill.c); the plan follows the units through time with them
 * (bf_units.h).
 */
#ifndef ARBOR_CTLD_BF_GRES_H
#define ARBOR_CTLD_BF_GRES_H

#include <time.h>

struct ctld;
struct bf_snap;
struct bf_sjob;
struct job;
struct job_node;

/* The nodes' items into s->slots (s->nodes filled first). -1 ENOMEM. */
int bf_gres_snap_nodes (const struct ctld *ctx, struct bf_snap *s);
/* What jn (a running job's node) holds comes back at 'end'. -1 ENOMEM. */
int bf_gres_snap_run (const struct ctld *ctx, struct bf_snap *s,
                      const struct job_node *jn, time_t end);
/* j's request's entry into v->gres (j asks for resources). -1 ENOMEM. */
int bf_gres_snap_job (struct bf_snap *s, const struct job *j,
                      struct bf_sjob *v);
/* bf_snap_free (bf_plan.h) frees what they add. */

#endif
