/* layout.h - the counts of a step's block task layout, and Slurm's
 * compressed form of per-node counts ("2(x3),1"), used for
 * SLURM_TASKS_PER_NODE and SLURM_JOB_CPUS_PER_NODE by the stepd and the
 * controller alike. Pure functions.
 */
#ifndef ARBOR_LAYOUT_H
#define ARBOR_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* Total tasks of the step, and the global rank of the first task of node
 * 'node_id' (block distribution: node i holds sum(tasks[0..i-1]) ...). */
uint32_t layout_total (const uint32_t *tasks, size_t n);
uint32_t layout_first_rank (const uint32_t *tasks, size_t n, size_t node_id);
/* Slurm's compressed per-node counts: {2,2,2,1} -> "2(x3),1". Caller
 * frees. NULL with errno ENOMEM; "" when n is 0. */
char *layout_tasks_per_node (const uint32_t *tasks, size_t n);

#endif
