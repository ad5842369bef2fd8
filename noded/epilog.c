/* epilog.c - run the Epilog at the end of a job, without blocking the loop.
 *
 * posix_spawn (as for stepds: cheap, and nothing of the noded runs in the
 * child) with POSIX_SPAWN_SETPGROUP so the Epilog and whatever it starts
 * form one process group that the timeout can kill at once; signal mask
 * and dispositions are reset (the noded ignores SIGPIPE). No shell is
 * involved: the path is executed as it is, so it needs a "#!" line to be a
 * script. See epilog.h for the contract.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "env.h"
#include "epilog.h"

struct epilog {
    struct ev_loop *loop;
    pid_t pid;
    ev_child child_w;
    ev_timer timer_w;
    bool timed_out;
    epilog_done_f cb;
    void *arg;
};

/* ---- environment ------------------------------------------------------ */

void epilog_env_free (char **env)
{
    int saved = errno;

    env_strv_free (env);
    errno = saved;
}

/* Variables the noded sets itself, whatever the controller sent. */
static bool epilog_env_ours (const char *kv)
{
    static const char *const ours[] = { "SLURMD_NODENAME",
                                        "SLURM_SCRIPT_CONTEXT", "PATH" };

    for (size_t k = 0; k < sizeof (ours) / sizeof (ours[0]); k++) {
        size_t n = strlen (ours[k]);
        if (strncmp (kv, ours[k], n) == 0 && kv[n] == '=')
            return true;
    }
    return false;
}

/* The job's identity, unless the controller's environment has it. */
static int epilog_env_job (struct env *e, const struct script_job *m)
{
    char buf[32];

    snprintf (buf, sizeof (buf), "%u", m->job_id);
    if (env_set_default (e, "SLURM_JOB_ID", buf) < 0)
        return -1;
    snprintf (buf, sizeof (buf), "%u", m->uid);
    if (env_set_default (e, "SLURM_JOB_UID", buf) < 0)
        return -1;
    snprintf (buf, sizeof (buf), "%u", m->gid);
    if (env_set_default (e, "SLURM_JOB_GID", buf) < 0)
        return -1;
    return env_set_default (e, "SLURM_JOB_USER", m->user ? m->user : "");
}

/* KEY=value, or KEY@NODE=value (a variable of one node: this one's, as
 * KEY=value; another's is skipped). -1 ENOMEM. */
static int script_env_node (struct env *e, const char *kv, const char *eq,
                            const char *node)
{
    const char *at = memchr (kv, '@', (size_t)(eq - kv));
    char key[128];

    if (!at)
        return env_put (e, kv);
    if ((size_t)(eq - at - 1) != strlen (node)
        || strncmp (at + 1, node, (size_t)(eq - at - 1)) != 0
        || (size_t)(at - kv) >= sizeof (key))
        return 0;
    snprintf (key, sizeof (key), "%.*s", (int)(at - kv), kv);
    return env_set (e, key, eq + 1);
}

char **script_env (const struct script_job *m, const char *node,
                   const char *context)
{
    struct env *e = env_create (NULL, 0);

    if (!e)
        return NULL;
    for (uint32_t i = 0; i < m->env_count; i++) {
        const char *eq = strchr (m->env[i], '=');
        if (!eq || eq == m->env[i] || epilog_env_ours (m->env[i]))
            continue;
        if (script_env_node (e, m->env[i], eq, node) < 0)
            goto nomem;
    }
    if (epilog_env_job (e, m) < 0 || env_set (e, "SLURMD_NODENAME", node) < 0
        || env_set (e, "SLURM_SCRIPT_CONTEXT", context) < 0
        || env_put (e, EPILOG_PATH) < 0)
        goto nomem;
    return env_take (e);
nomem:
    env_destroy (e);
    errno = ENOMEM;
    return NULL;
}

char **epilog_env (const struct msg_job_terminate *m, const char *node)
{
    struct script_job sj = {
        .job_id = m->job_id,
        .uid = m->uid,
        .gid = m->gid,
        .user = m->user,
        .env = m->env,
        .env_count = m->env_count,
    };

    return script_env (&sj, node, "epilog_slurmd");
}

char *script_output_path (const struct conf *conf, const char *node)
{
    if (!conf->noded_log_file)
        return NULL;
    return conf_expand (conf->noded_log_file, node);
}

/* ---- the process ------------------------------------------------------ */

static void epilog_child_cb (struct ev_loop *loop, ev_child *w, int revents)
{
    struct epilog *e = w->data;
    int status = w->rstatus;
    const char *drain = NULL;
    int rc;

    ev_child_stop (loop, w);
    ev_timer_stop (loop, &e->timer_w);
    if (WIFEXITED (status))
        rc = WEXITSTATUS (status);
    else if (WIFSIGNALED (status))
        rc = 128 + WTERMSIG (status);
    else
        rc = 255;
    if (e->timed_out)
        drain = EPILOG_TIMED_OUT;
    else if (rc != 0)
        drain = EPILOG_ERROR;
    e->cb (rc, drain, e->arg);
    free (e);
}

static void epilog_timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct epilog *e = w->data;

    e->timed_out = true;
    kill (-e->pid, SIGKILL); /* ev_child reports the end */
}

static int epilog_exec (const char *path, char *const env[],
                        const char *out_path, pid_t *pid)
{
    char *argv[] = { (char *)path, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t mask, defaults;
    int rc;

    sigemptyset (&mask);
    sigfillset (&defaults);
    sigdelset (&defaults, SIGKILL);
    sigdelset (&defaults, SIGSTOP);
    posix_spawnattr_init (&attr);
    posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETPGROUP
                                         | POSIX_SPAWN_SETSIGMASK
                                         | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup (&attr, 0);
    posix_spawnattr_setsigmask (&attr, &mask);
    posix_spawnattr_setsigdefault (&attr, &defaults);
    posix_spawn_file_actions_init (&fa);
    posix_spawn_file_actions_addopen (&fa, 0, "/dev/null", O_RDONLY, 0);
    if (out_path)
        posix_spawn_file_actions_addopen (&fa, 1, out_path,
                                          O_WRONLY | O_APPEND | O_CREAT, 0640);
    else
        posix_spawn_file_actions_adddup2 (&fa, 2, 1);
    posix_spawn_file_actions_adddup2 (&fa, 1, 2);
    posix_spawn_file_actions_addclosefrom_np (&fa, 3);
    rc = posix_spawn (pid, path, &fa, &attr, argv, env);
    posix_spawn_file_actions_destroy (&fa);
    posix_spawnattr_destroy (&attr);
    return rc;
}

struct epilog *epilog_start (struct ev_loop *loop, const char *path,
                             char *const env[], const char *out_path,
                             double timeout, epilog_done_f cb, void *arg,
                             arbor_error_t *err)
{
    struct epilog *e = calloc (1, sizeof (*e));
    int rc;

    if (!e) {
        errprintf (err, "out of memory");
        return NULL;
    }
    if ((rc = epilog_exec (path, env, out_path, &e->pid)) != 0) {
        free (e);
        errno = rc;
        errprintf (err, "cannot run %s: %s", path, strerror (rc));
        return NULL;
    }
    e->loop = loop;
    e->cb = cb;
    e->arg = arg;
    ev_child_init (&e->child_w, epilog_child_cb, e->pid, 0);
    e->child_w.data = e;
    ev_child_start (loop, &e->child_w);
    ev_timer_init (&e->timer_w, epilog_timeout_cb, timeout, 0.);
    e->timer_w.data = e;
    if (timeout > 0)
        ev_timer_start (loop, &e->timer_w);
    return e;
}

pid_t epilog_pid (const struct epilog *e)
{
    return e->pid;
}

void epilog_destroy (struct epilog *e)
{
    int saved = errno;

    if (e) {
        if (ev_is_active (&e->child_w))
            kill (-e->pid, SIGKILL);
        ev_child_stop (e->loop, &e->child_w);
        ev_timer_stop (e->loop, &e->timer_w);
        free (e);
    }
    errno = saved;
}
