/* pgid.c - proctrack/pgid: track a step by its tasks' process groups.
 *
 * For hosts without cgroups. Each task is made the leader of its own
 * process group when added (stepd also calls setpgid in the child, as a
 * shell does, so there is no window where the task shares stepd's group);
 * the step is every live process whose process group is one of those.
 * Signals go to whole groups with kill(-pgid), which the kernel delivers
 * atomically with respect to fork.
 *
 * Not a container: a process that calls setsid() or setpgid() leaves its
 * group and escapes tracking, signals and the end-of-step kill. Use
 * proctrack/cgroup wherever cgroups exist.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgid.h"
#include "proctrack.h"

struct pgid_ctx {
    const struct plugin_env *env;
    bool created;
    uint32_t job_id, step_id;
    pid_t *pgids;
    size_t count, alloc;
};

static const struct arbor_plugin pgid_desc =
    PROCTRACK_PLUGIN ("pgid", proctrack_pgid_ops);

const struct arbor_plugin *proctrack_pgid_plugin (void)
{
    return &pgid_desc;
}

static int pgid_init (const struct plugin_env *env, void **ctxp,
                      arbor_error_t *err)
{
    struct pgid_ctx *ctx = calloc (1, sizeof (*ctx));

    if (!ctx)
        return errprintf (err, "proctrack/pgid: out of memory");
    ctx->env = env;
    *ctxp = ctx;
    return 0;
}

static void pgid_fini (void *arg)
{
    struct pgid_ctx *ctx = arg;
    int saved = errno;

    if (!ctx)
        return;
    free (ctx->pgids);
    free (ctx);
    errno = saved;
}

static int pgid_create (void *arg, const struct step_info *s,
                        arbor_error_t *err)
{
    struct pgid_ctx *ctx = arg;

    if (ctx->created) {
        errno = EEXIST;
        return errprintf (err, "proctrack/pgid: step %u.%u already created",
                          ctx->job_id, ctx->step_id);
    }
    ctx->created = true;
    ctx->job_id = s->job_id;
    ctx->step_id = s->step_id;
    return 0;
}

static bool pgid_tracked (const struct pgid_ctx *ctx, pid_t pgid)
{
    for (size_t i = 0; i < ctx->count; i++)
        if (ctx->pgids[i] == pgid)
            return true;
    return false;
}

static int pgid_add (void *arg, pid_t pid)
{
    struct pgid_ctx *ctx = arg;
    pid_t pgid;

    if (!ctx->created || pid <= 0) {
        errno = EINVAL;
        return -1;
    }
    if ((pgid = getpgid (pid)) < 0)
        return -1;
    /* The task must lead its own group, never share the caller's:
     * signalling that group would hit stepd itself. */
    if (pgid != pid && setpgid (pid, pid) < 0)
        return -1;
    if (pgid_tracked (ctx, pid))
        return 0;
    if (ctx->count == ctx->alloc) {
        size_t n = ctx->alloc ? ctx->alloc * 2 : 8;
        pid_t *p = realloc (ctx->pgids, n * sizeof (*p));
        if (!p)
            return -1;
        ctx->pgids = p;
        ctx->alloc = n;
    }
    ctx->pgids[ctx->count++] = pid;
    return 0;
}

static bool pgid_is_stop_signal (int sig)
{
    return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU
           || sig == SIGCONT || sig == 0;
}

static int pgid_signal (void *arg, int sig)
{
    struct pgid_ctx *ctx = arg;
    int rc = 0, e = 0;

    for (size_t i = 0; i < ctx->count; i++) {
        if (kill (-ctx->pgids[i], sig) < 0) {
            if (errno != ESRCH) {
                e = errno;
                rc = -1;
            }
            continue;
        }
        if (!pgid_is_stop_signal (sig))
            (void)kill (-ctx->pgids[i], SIGCONT);
    }
    if (rc < 0)
        errno = e;
    return rc;
}

/* Read /proc/<pid>/stat: process group and state. The command name may
 * hold spaces and parentheses, so parse after the last ')'. */
static int pgid_proc_stat (const char *pid, pid_t *pgrp, char *state)
{
    char path[64], buf[512], *p;
    FILE *f;
    size_t n;
    int ppid, grp;

    snprintf (path, sizeof (path), "/proc/%s/stat", pid);
    if (!(f = fopen (path, "re")))
        return -1;
    n = fread (buf, 1, sizeof (buf) - 1, f);
    fclose (f);
    buf[n] = '\0';
    if (!(p = strrchr (buf, ')'))
        || sscanf (p + 1, " %c %d %d", state, &ppid, &grp) != 3) {
        errno = EPROTO;
        return -1;
    }
    *pgrp = grp;
    return 0;
}

static int pgid_pids (void *arg, pid_t **pidsp, size_t *countp)
{
    struct pgid_ctx *ctx = arg;
    pid_t *pids = NULL, pgrp;
    size_t count = 0, alloc = 0;
    struct dirent *de;
    char state;
    DIR *d;

    if (!(d = opendir ("/proc")))
        return -1;
    while ((de = readdir (d))) {
        if (!isdigit ((unsigned char)de->d_name[0]))
            continue;
        if (pgid_proc_stat (de->d_name, &pgrp, &state) < 0 || state == 'Z'
            || !pgid_tracked (ctx, pgrp))
            continue; /* gone meanwhile, a zombie, or not ours */
        if (count == alloc) {
            size_t n = alloc ? alloc * 2 : 16;
            pid_t *p = realloc (pids, n * sizeof (*p));
            if (!p) {
                free (pids);
                closedir (d);
                errno = ENOMEM;
                return -1;
            }
            pids = p;
            alloc = n;
        }
        pids[count++] = (pid_t)atoi (de->d_name);
    }
    closedir (d);
    *pidsp = pids;
    *countp = count;
    return 0;
}

/* Might a tracked group still have a process? kill(-pgid, 0) says no
 * (ESRCH) at the cost of one system call per group, where listing reads
 * every /proc/PID/stat on the host: a thousand emulated nodes' stepds
 * doing that at each step's end read millions of files. A zombie still
 * counts for kill, so "yes" is checked by the listing, which skips them. */
static bool pgid_maybe_alive (const struct pgid_ctx *ctx)
{
    for (size_t i = 0; i < ctx->count; i++)
        if (kill (-ctx->pgids[i], 0) == 0 || errno != ESRCH)
            return true;
    return false;
}

static int pgid_is_empty (void *arg)
{
    pid_t *pids;
    size_t count;

    if (!pgid_maybe_alive (arg))
        return 1;
    if (pgid_pids (arg, &pids, &count) < 0)
        return -1;
    free (pids);
    return count == 0;
}

static int pgid_destroy (void *arg, arbor_error_t *err)
{
    struct pgid_ctx *ctx = arg;
    pid_t *pids = NULL;
    size_t count = 0;

    if (pgid_maybe_alive (ctx) && pgid_pids (ctx, &pids, &count) < 0)
        return errprintf (err, "proctrack/pgid: /proc: %s", strerror (errno));
    if (count > 0) {
        errprintf (err,
                   "proctrack/pgid: step %u.%u: %zu processes left "
                   "(pid %d)",
                   ctx->job_id, ctx->step_id, count, (int)pids[0]);
        free (pids);
        errno = EBUSY;
        return -1;
    }
    ctx->count = 0;
    return 0;
}

/* Process groups have no memory accounting. */
static int pgid_oom_kills (void *arg, uint64_t *count)
{
    errno = ENOTSUP;
    return -1;
}

const struct proctrack_ops proctrack_pgid_ops = {
    .init = pgid_init,
    .fini = pgid_fini,
    .create = pgid_create,
    .add = pgid_add,
    .signal = pgid_signal,
    .is_empty = pgid_is_empty,
    .destroy = pgid_destroy,
    .pids = pgid_pids,
    .oom_kills = pgid_oom_kills,
};
