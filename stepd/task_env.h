/* task_env.h - the task environment and the block task layout of a step.
 *
 * Pure functions (no I/O, no globals) so they are unit-tested on their
 * own: env_task_create() builds (with common/util/env.h) the environment of one
 * task exactly as docs/design-launch.md lists it ("Task environment"). The
 * layout helpers are common/spec/layout.h's.
 */
#ifndef ARBOR_STEPD_TASK_ENV_H
#define ARBOR_STEPD_TASK_ENV_H

#include <stddef.h>
#include <stdint.h>
#include "env.h"
#include "gpu_env.h"
#include "error.h"
#include "layout.h"
#include "proto.h"

/* What is common to every task of this node's share of the step. */
struct env_step {
    const struct msg_stepd_init *init;
    const char *node_name; /* SLURMD_NODENAME */
    const char *cluster;   /* SLURM_CLUSTER_NAME */
    const char *user_home; /* job user's home, NULL if unknown */
    const uint32_t *ranks; /* this node's ranks by local index (srun -m,
                              stepd/place.h); NULL: block */
    const struct gpu_env_step *gpus; /* the GPU variables (gpu_env.h);
                                        NULL: none */
};

/* Environment of the task with local index 'local' on this node: the
 * launcher's environment (init->env) plus the SLURM_* / ARBOR_* variables
 * (SLURM_PROCID from s->ranks, SLURM_GTIDS: every rank of this node,
 * SLURM_DISTRIBUTION and, for plane, SLURM_DIST_PLANESIZE).
 * SLURM_TASK_PID is not set: only the forked task knows its pid. Caller
 * destroys. NULL with errno (EINVAL: layout does not name this task) and
 * err. */
struct env *env_task_create (const struct env_step *s, uint32_t local,
                             arbor_error_t *err);

#endif
