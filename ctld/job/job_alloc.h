/* job_alloc.h - what a job's run holds on its nodes: taken at its start,
 * given back node by node, rebuilt at a restore (job_alloc.c).
 */
#ifndef ARBOR_CTLD_JOB_ALLOC_H
#define ARBOR_CTLD_JOB_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct ctld;
struct job;
struct select_result;

/* Allocate the selection 'res' (over the partition's nodes): its nodes,
 * cores, memory and licenses (jobstate.c's JS_ALLOCATE then marks it
 * RUNNING). -1 with errno ENOMEM (nothing changed). */
int job_start (struct ctld *ctx, struct job *j,
               const struct select_result *res);
/* Give back node k's share of j (cores and memory). Idempotent. */
void job_node_release (struct ctld *ctx, struct job *j, size_t k);
/* Give back and forget what j's run holds: its steps, its nodes' shares
 * and its allocation (jobstate.c's JS_RERUN). */
void job_unrun (struct ctld *ctx, struct job *j);
/* persist.c's restore: j's allocation as saved, node by node (index
 * into ctx->nodes, cores, tasks, core mask text, memory, and whether its
 * share was given back: only the others are taken on the nodes again).
 * -1 with errno ENOMEM, or EINVAL / EBUSY (a core another job holds)
 * with err. */
/* The generic resources a restored job held on its nodes (JOB_REC's
 * node_gres, n entries, none from an older record), taken again where
 * the node's share is not released. -1 with errno and err. */
int job_restore_gres (struct ctld *ctx, struct job *j, char *const *gres,
                      size_t n, arbor_error_t *err);
int job_restore_alloc (struct ctld *ctx, struct job *j, size_t n,
                       const size_t *node, const uint32_t *cpus,
                       const uint32_t *tasks, char *const *cores,
                       const uint32_t *mem_mb, const uint32_t *released,
                       arbor_error_t *err);

#endif
