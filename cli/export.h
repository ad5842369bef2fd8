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
/* SLURM_UMASK: the caller's umask, in octal as srun and sbatch export
 * it, unless already set; the stepd gives it to the tasks. */
int export_umask (char ***vars);

#endif
