/* rlimits.h - the user's resource limits that follow a job to its tasks.
 *
 * srun and sbatch take the caller's soft limits (getrlimit) of the
 * resources that PropagateResourceLimits (default ALL) or
 * PropagateResourceLimitsExcept of arbor.conf, or their --propagate
 * option, name, and hand them over in the environment they send, one
 * SLURM_RLIMIT_<NAME>=<value> each (decimal; "unlimited" for
 * RLIM_INFINITY), as Slurm's commands do. The environment is what a
 * batch job keeps with it, so a batch script gets sbatch's limits at
 * submission, even after a controller restart. The stepd reads them once
 * per step, lowers a value above its own hard limit to that limit (the
 * task still runs; a note says so), removes the variables from the
 * tasks' environment and sets the soft limits in each task before it
 * execs (stepd/task_child.c).
 *
 * Names (any case): AS CORE CPU DATA FSIZE MEMLOCK NOFILE NPROC RSS
 * STACK, or ALL, or NONE.
 */
#ifndef ARBOR_RLIMITS_H
#define ARBOR_RLIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "error.h"

#define RLIMITS_N 10
#define RLIMITS_ALL ((1u << RLIMITS_N) - 1)
#define RLIMITS_ENV_PREFIX "SLURM_RLIMIT_"

/* Index i's name ("NOFILE") and resource (RLIMIT_NOFILE); i < RLIMITS_N. */
const char *rlimits_name (size_t i);
int rlimits_resource (size_t i);

/* A comma-separated list of names, ALL or NONE, into a mask of indexes
 * (bit i: index i). 0, or -1 with errno EINVAL and err naming the bad
 * word ("'FOO' is not a resource limit"). */
int rlimits_parse (const char *list, uint32_t *mask, arbor_error_t *err);

/* The limits to propagate: --propagate's list when given ('opt' non-NULL;
 * "" means ALL), else PropagateResourceLimits, else all but
 * PropagateResourceLimitsExcept, else ALL (conf values NULL when not
 * set). -1 with errno EINVAL and err for a bad list, or both conf keys
 * set. */
int rlimits_select (const char *opt, const char *conf_list,
                    const char *conf_except, uint32_t *mask,
                    arbor_error_t *err);

/* "unlimited" for RLIM_INFINITY, else decimal, into buf. */
void rlimits_format (rlim_t v, char *buf, size_t len);
/* The reverse; 0, or -1 with errno EINVAL. */
int rlimits_value (const char *s, rlim_t *v);

/* Soft limits wanted for the tasks, as the launcher sent them. */
struct rlimits_want {
    uint32_t mask; /* bit i: value[i] is wanted */
    rlim_t value[RLIMITS_N];
};

/* The SLURM_RLIMIT_* entries of a "KEY=VALUE" list (n entries, or up to
 * a NULL one); a malformed value is ignored. */
void rlimits_from_env (char *const *vars, size_t n, struct rlimits_want *w);

/* The caller's soft limits, all of them (getrlimit). */
void rlimits_capture (struct rlimits_want *w);

/* Lower each wanted value above hard[i] (the node's hard limit of index
 * i) to it. Returns how many were lowered and, in note (len bytes), one
 * line naming them ("" when none). */
int rlimits_clamp (struct rlimits_want *w, const rlim_t *hard, char *note,
                   size_t len);

#endif
