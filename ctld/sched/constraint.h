/* constraint.h - a job's -C/--constraint over its partition's nodes'
 * features (common/spec/featspec.h, ctld/nodes/node_features.h).
 *
 * A constraint narrows the nodes a selection may take (select.h): a node
 * whose features do not satisfy it is left out. Two forms need more than
 * one node at a time:
 *   [a|b]      matching OR: every node of the job has the same one of the
 *              features; each is an alternative, tried in the order written
 *              (the first that fits wins), in the main pass, in backfill's
 *              plans and when asked whether a job can ever run;
 *   a*2, [a*2&b*1]  counts: that many of the job's nodes have the feature;
 *              the first such nodes (in the selection's order, usable ones
 *              with free cores first) are made required, as -w would.
 */
#ifndef ARBOR_CTLD_CONSTRAINT_H
#define ARBOR_CTLD_CONSTRAINT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "sched/select.h"

struct ctld;
struct job;

/* Parse -C 'text' into j->feat and check it against j's request: the
 * nodes its counts name fit in -N. 0, or -1 with errno EINVAL (err as
 * Slurm's "Invalid feature specification: ...") or ENOMEM. */
int constraint_job_init (struct job *j, const char *text, arbor_error_t *err);
/* Every feature j's constraint names is a feature of some node of its
 * partition; else -1 with errno EINVAL and Slurm's "Invalid feature
 * specification" naming it. */
int constraint_check (const struct ctld *ctx, const struct job *j,
                      arbor_error_t *err);
/* The alternatives of j's matching OR ([a|b]: 2); 1 without one. */
size_t constraint_alts (const struct job *j);
/* Narrow 'v' (views of j's partition nodes, in partition order) to
 * alternative 'alt': nodes that cannot be the job's are excluded, and the
 * nodes its counts need are required. 'mode' SELECT_EVER ignores what is
 * free now. false when the counts cannot be met in that mode (too few
 * nodes have a counted feature). */
bool constraint_views (const struct ctld *ctx, const struct job *j, size_t alt,
                       enum select_mode mode, struct select_node *v);
#endif
