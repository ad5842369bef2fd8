/* epilog.h - run the Epilog at the end of a job, without blocking the loop.
 *
 * The Epilog is executed directly (no shell) by the noded's own user (root
 * on a real node), in a process group of its own, with stdin /dev/null and
 * stdout/stderr appended to the noded's log (its stderr when it has no log
 * file). An ev_child watcher reports its end; an ev_timer kills the whole
 * group with SIGKILL when it runs longer than PrologEpilogTimeout. The
 * outcome is reduced to what the controller needs: the exit status and, if
 * the node should be drained, why ("Epilog timed out", "Epilog error").
 * This module does not log; the caller does.
 */
#ifndef ARBOR_NODED_EPILOG_H
#define ARBOR_NODED_EPILOG_H

#include <ev.h>
#include <sys/types.h>

#include "error.h"
#include "proto.h"

struct epilog;

#define EPILOG_TIMED_OUT "Epilog timed out"
#define EPILOG_ERROR "Epilog error"
#define EPILOG_PATH "PATH=/usr/sbin:/usr/bin:/sbin:/bin"

/* The Epilog ended: rc is its exit status (128 + signal if it was killed),
 * drain_reason NULL on success, else EPILOG_TIMED_OUT or EPILOG_ERROR.
 * The epilog is freed once this returns. */
typedef void (*epilog_done_f) (int rc, const char *drain_reason, void *arg);

/* What a Prolog or Epilog is told about its job. */
struct script_job {
    uint32_t job_id;
    uint32_t uid, gid;
    const char *user;
    char *const *env; /* the controller's variables, or NULL */
    uint32_t env_count;
};

/* A Prolog's or Epilog's environment (see epilog_env), with
 * SLURM_SCRIPT_CONTEXT=context ("prolog_slurmd", "epilog_slurmd"). */
char **script_env (const struct script_job *m, const char *node,
                   const char *context);
/* Where their output goes: NodedLogFile for 'node', or NULL (our
 * stderr). Caller frees. */
struct conf;
char *script_output_path (const struct conf *conf, const char *node);

/* The Epilog's environment: m->env (minus the variables set here), then
 * SLURM_JOB_ID, SLURM_JOB_UID, SLURM_JOB_GID and SLURM_JOB_USER from the
 * message's fields when m->env does not set them, SLURMD_NODENAME=node,
 * SLURM_SCRIPT_CONTEXT=epilog_slurmd and EPILOG_PATH. NULL-terminated;
 * free with epilog_env_free(). NULL with errno ENOMEM. */
char **epilog_env (const struct msg_job_terminate *m, const char *node);
void epilog_env_free (char **env);

/* Start 'path' with 'env' (borrowed for the call). out_path: file the
 * output is appended to, NULL for this process's stderr. After 'timeout'
 * seconds (0: no limit) its process group is SIGKILLed. 'cb' is never
 * called from inside this call. Returns the epilog, or NULL with errno and
 * err ("cannot run /etc/arbor/epilog.sh: No such file or directory").
 * Uses ev_child: 'loop' must be the default loop. */
struct epilog *epilog_start (struct ev_loop *loop, const char *path,
                             char *const env[], const char *out_path,
                             double timeout, epilog_done_f cb, void *arg,
                             arbor_error_t *err);

/* The Epilog's pid (also its process group). */
pid_t epilog_pid (const struct epilog *e);

/* Stop watching without calling back; a still running Epilog's group is
 * SIGKILLed (and reaped by libev). NULL is accepted. */
void epilog_destroy (struct epilog *e);

#endif
