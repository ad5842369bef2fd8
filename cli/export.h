/* export.h - the environment "arbor run" hands to its tasks (--export).
 *
 * Slurm's semantics:
 *   ALL (default)     the launcher's whole environment;
 *   NONE              none of the user's variables: only SLURM_* and
 *                     ARBOR_* ones (the stepd adds the step's own);
 *   VAR[,VAR=value]   as NONE, plus VAR with the launcher's value (if it
 *                     has one) and VAR=value as given;
 *   ALL,VAR=value...  the whole environment plus/overriding those.
 * The first word may also be NONE ("NONE,VAR=x" is the same as "VAR=x").
 */
#ifndef ARBOR_CLI_EXPORT_H
#define ARBOR_CLI_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"

/* A new NULL-terminated array of malloc'd "KEY=VALUE" strings built from
 * 'spec' (NULL means ALL) and 'env' (NULL-terminated, e.g. environ).
 * NULL with errno EINVAL and err ("invalid --export 'x=': empty
 * variable name") or ENOMEM. Free with export_free(). */
char **export_env (const char *spec, char *const *env, arbor_error_t *err);
void export_free (char **vars);

/* Set KEY=VALUE in *vars (an export_env array, replaced) unless KEY is
 * there. 0, or -1 with errno ENOMEM (*vars unchanged). */
int export_default (char ***vars, const char *key, const char *value);
/* Set KEY=VALUE in *vars, replacing it. 0, or -1 with errno ENOMEM. */
int export_set (char ***vars, const char *key, const char *value);
/* Remove KEY from *vars. 0, or -1 with errno ENOMEM. */
int export_unset (char ***vars, const char *key);
/* SLURM_RLIMIT_<NAME> (common/spec/rlimits.h): the caller's soft limits (as
 * captured in 'have', or now when NULL) of
 * the resources --propagate ('opt', NULL when not given) or else
 * PropagateResourceLimits / PropagateResourceLimitsExcept (NULL when
 * not set) select, as srun and sbatch send them; the variables of the
 * others are removed (an inherited one would otherwise be applied). 0,
 * or -1 with errno (EINVAL: a bad list; ENOMEM) and err. */
struct rlimits_want;
int export_propagate (char ***vars, const char *opt, const char *conf_list,
                      const char *conf_except, const struct rlimits_want *have,
                      arbor_error_t *err);
/* SLURM_UMASK: the caller's umask, in octal as srun and sbatch export
 * it, unless already set; the stepd gives it to the tasks. */
int export_umask (char ***vars);

/* What a launcher knows of its job, for the job's output variables
 * (docs/environment.md): each field unknown or not asked for (0, NULL)
 * leaves its variables alone. */
struct export_job {
    uint64_t start;          /* SLURM_JOB_START_TIME, unix seconds */
    uint32_t time_limit;     /* minutes: SLURM_JOB_END_TIME is start plus
                                this, or a year when 0 or TIME_INFINITE
                                (as slurmctld sets an unlimited job's) */
    const char *partition;   /* SLURM_JOB_PARTITION */
    const char *account;     /* SLURM_JOB_ACCOUNT, "" none */
    const char *qos;         /* SLURM_JOB_QOS, "" none */
    const uint32_t *cpus;    /* SLURM_JOB_CPUS_PER_NODE, nodelist order */
    size_t nnodes;           /* ... entries of cpus */
    const char *submit_dir;  /* SLURM_SUBMIT_DIR */
    const char *submit_host; /* SLURM_SUBMIT_HOST */
};

/* Set the job's variables in *vars: replacing what is there (replace) or
 * only where absent (the job's own values inherited from arbor alloc or
 * the batch script win). 0, or -1 with errno ENOMEM (*vars then holds
 * some of them). */
int export_job (char ***vars, const struct export_job *j, bool replace);

/* SLURM_PRIO_PROCESS: the caller's scheduling priority (its nice value),
 * as srun and sbatch pass it on. 0, or -1 with errno ENOMEM. */
int export_prio_process (char ***vars);

/* SLURM_DISTRIBUTION (and SLURM_DIST_PLANESIZE for plane=N) as sbatch
 * and salloc set them from -m 'dist': "block", "cyclic", "plane" and
 * "arbitrary". 0, or -1 with errno (EINVAL: not a distribution). */
int export_distribution (char ***vars, const char *dist);

#endif
