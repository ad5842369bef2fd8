/* env.h - the task environment and the block task layout of a step.
 *
 * Pure functions (no I/O, no globals) so they are unit-tested on their own:
 * an env is an ordered list of "KEY=VALUE" strings with set/unset, and
 * env_task_create() builds the environment of one task exactly as
 * docs/design-launch.md lists it ("Task environment"). The layout helpers
 * compute block distribution ranks and Slurm's compressed tasks-per-node
 * form ("2(x3),1").
 */
#ifndef ARBOR_STEPD_ENV_H
#define ARBOR_STEPD_ENV_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "proto.h"

struct env;

/* Copy 'n' "KEY=VALUE" strings (entries without '=' are skipped; a later
 * duplicate key replaces an earlier one). NULL with errno ENOMEM. */
struct env *env_create (char *const *vars, size_t n);
void env_destroy (struct env *e);

/* Set (replace or append) / remove KEY. 0 or -1 with errno. */
int env_set (struct env *e, const char *key, const char *value);
int env_setf (struct env *e, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
int env_unset (struct env *e, const char *key);
/* Value of KEY, or NULL. Borrowed until the env changes. */
const char *env_get (const struct env *e, const char *key);
/* NULL-terminated array for execve. Borrowed until the env changes. */
char **env_vars (const struct env *e);
size_t env_count (const struct env *e);

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
    const char *node_name;     /* SLURMD_NODENAME */
    const char *cluster;       /* SLURM_CLUSTER_NAME */
    const char *user_home;     /* job user's home, NULL if unknown */
};

/* Environment of the task with local index 'local' on this node: the
 * launcher's environment (init->env) plus the SLURM_* / ARBOR_* variables.
 * SLURM_TASK_PID is not set: only the forked task knows its pid. Caller
 * destroys. NULL with errno (EINVAL: layout does not name this task) and
 * err. */
struct env *env_task_create (const struct env_step *s, uint32_t local,
                             arbor_error_t *err);

#endif
