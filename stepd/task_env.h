/* task_env.h - the task environment and the block task layout of a step.
 *
 * Pure functions (no I/O, no globals) so they are unit-tested on their
 * own: env_task_create() builds (with common/env.h) the environment of one
 * task exactly as docs/design-launch.md lists it ("Task environment"). The
 * layout helpers compute block distribution ranks and Slurm's compressed
 * tasks-per-node form ("2(x3),1").
 */
#ifndef ARBOR_STEPD_TASK_ENV_H
#define ARBOR_STEPD_TASK_ENV_H

#include <stddef.h>
#include <stdint.h>
#include "env.h"
#include "error.h"
#include "proto.h"

/* Total tasks of the step, and the global rank of the first task of node
 * 'node_id' (block distribution: node i holds sum(tasks[0..i-1]) ...). */
uint32_t layout_total (const uint32_t *tasks, size_t n);
uint32_t layout_first_rank (const uint32_t *tasks, size_t n, size_t node_id);
/* Slurm's compressed tasks per node: {2,2,2,1} -> "2(x3),1". Caller frees.
 * NULL with errno ENOMEM; "" when n is 0. */
char *layout_tasks_per_node (const uint32_t *tasks, size_t n);

/* What is common to every task of this node's share of the step. */
struct env_step {
    const struct msg_stepd_init *init;
    const char *node_name; /* SLURMD_NODENAME */
    const char *cluster;   /* SLURM_CLUSTER_NAME */
    const char *user_home; /* job user's home, NULL if unknown */
};

/* Environment of the task with local index 'local' on this node: the
 * launcher's environment (init->env) plus the SLURM_* / ARBOR_* variables.
 * SLURM_TASK_PID is not set: only the forked task knows its pid. Caller
 * destroys. NULL with errno (EINVAL: layout does not name this task) and
 * err. */
struct env *env_task_create (const struct env_step *s, uint32_t local,
                             arbor_error_t *err);

#endif
