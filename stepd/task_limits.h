/* task_limits.h - the launcher's resource limits for the tasks (task_limits.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_TASK_LIMITS_H
#define ARBOR_STEPD_TASK_LIMITS_H

#include <stddef.h>

struct stepd;
struct task_plan;

/* The launcher's resource limits (SLURM_RLIMIT_* in
 * STEPD_INIT's env, common/spec/rlimits.h) into plan, lowered to this node's
 * hard limits; then note (len bytes) is the line saying which were,
 * else "". */
void task_limits_plan (struct stepd *sd, struct task_plan *plan, char *note,
                       size_t len);

#endif
