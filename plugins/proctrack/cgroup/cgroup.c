/* cgroup.c - proctrack/cgroup: one cgroup per step.
 *
 * init reads /proc/self/mounts and picks a backend: v2 on a cgroup2-only
 * host, v1 (freezer, plus memory for limits) on a v1 or hybrid host, since
 * in the hybrid layout the controllers live in v1. CgroupVersion=v1|v2 in
 * arbor.conf overrides the choice (v2 on a hybrid host uses its cgroup2
 * mount: cgroup.kill and cgroup.freeze work there with no controller).
 * create nests the step under CgroupRoot (default "arbor"):
 *     <mount>/<CgroupRoot>/[node_<node>/]uid_<uid>/job_<job>/step_<step>
 * and the rest of the ops dispatch to cg_v1.c or cg_v2.c (and
 * constrain_devices to cg_devices_v1.c or cg_devices_v2.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <libcgroup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cg.h"

#define CG_MOUNTS_MAX (1 << 20)

/* Read /proc/self/mounts (a proc file: size unknown until read). */
static char *cg_read_mounts (void)
{
    size_t len = 0, alloc = 16384;
    char *buf = malloc (alloc), *p;
    int fd = open ("/proc/self/mounts", O_RDONLY | O_CLOEXEC);
    ssize_t n = 0;

    while (buf && fd >= 0 && (n = read (fd, buf + len, alloc - len - 1)) > 0) {
        len += (size_t)n;
        if (alloc - len < 2 && alloc < CG_MOUNTS_MAX) {
            if (!(p = realloc (buf, alloc * 2)))
                break;
            buf = p;
            alloc *= 2;
        }
    }
    if (fd >= 0)
        close (fd);
    if (!buf || fd < 0 || n < 0) {
        free (buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

/* Pick the backend from the detected mode and CgroupVersion. */
static int cg_choose (struct cg_ctx *c, const char *want, arbor_error_t *err)
{
    const struct cg_mounts *m = &c->mounts;

    if (m->mode == CG_MODE_NONE)
        return errprintf (err, "proctrack/cgroup: no cgroup filesystem "
                               "mounted (use ProctrackType=proctrack/pgid)");
    if (!strcasecmp (want, "v2")
        || (!strcasecmp (want, "auto") && m->mode == CG_MODE_V2))
        c->version = 2;
    else if (!strcasecmp (want, "v1") || !strcasecmp (want, "auto"))
        c->version = 1;
    else
        return errprintf (err,
                          "proctrack/cgroup: CgroupVersion '%s': "
                          "expected auto, v1 or v2",
                          want);
    if (c->version == 2 && !m->v2[0])
        return errprintf (err,
                          "proctrack/cgroup: no cgroup2 mount "
                          "(host is %s)",
                          cg_mode_name (m->mode));
    if (c->version == 1 && !m->freezer[0])
        return errprintf (err,
                          "proctrack/cgroup: cgroup v1 freezer not "
                          "mounted (host is %s)",
                          cg_mode_name (m->mode));
    return 0;
}

/* libcgroup keeps its own process-wide table of mounts; cgroup_init
 * fills it and is safe to call again. */
static int cg_init_v1 (struct cg_ctx *c, arbor_error_t *err)
{
    int rc = cgroup_init ();

    if (rc != 0)
        return errprintf (err, "proctrack/cgroup: cgroup_init: %s",
                          cgroup_strerror (rc));
    c->have_memory = c->mounts.memory[0] != '\0';
    return 0;
}

static int cg_init (const struct plugin_env *env, void **ctxp,
                    arbor_error_t *err)
{
    struct cg_ctx *c = calloc (1, sizeof (*c));
    const char *root = plugin_conf (env, "CgroupRoot", "arbor");
    char *mounts = NULL;

    if (!c)
        return errprintf (err, "proctrack/cgroup: out of memory");
    c->env = env;
    if (snprintf (c->root, sizeof (c->root), "%s", root)
        >= (int)sizeof (c->root)) {
        errno = ENAMETOOLONG;
        errprintf (err, "proctrack/cgroup: CgroupRoot too long");
        goto fail;
    }
    if (!(mounts = cg_read_mounts ())) {
        errprintf (err, "proctrack/cgroup: /proc/self/mounts: %s",
                   strerror (errno));
        goto fail;
    }
    (void)cg_mounts_parse (mounts, &c->mounts);
    errno = ENOTSUP;
    if (cg_choose (c, plugin_conf (env, "CgroupVersion", "auto"), err) < 0)
        goto fail;
    if (c->version == 1 && cg_init_v1 (c, err) < 0)
        goto fail;
    if (c->version == 2)
        c->have_memory = cg_v2_has_controller (c->mounts.v2, "memory");
    plugin_log (env, PLUGIN_LOG_DEBUG,
                "proctrack/cgroup: host %s, using v%d "
                "(memory %s)",
                cg_mode_name (c->mounts.mode), c->version,
                c->have_memory ? "yes" : "no");
    free (mounts);
    *ctxp = c;
    return 0;
fail:
    free (mounts);
    free (c);
    return -1;
}

static void cg_fini (void *arg)
{
    struct cg_ctx *c = arg;
    int saved = errno;

    if (!c)
        return;
    cg_v1_fini (c);
    free (c);
    errno = saved;
}

static int cg_create (void *arg, const struct step_info *s, arbor_error_t *err)
{
    struct cg_ctx *c = arg;
    int levels, rc;

    if (c->created) {
        errno = EEXIST;
        return errprintf (err, "proctrack/cgroup: %s already created", c->rel);
    }
    levels = cg_path_build (c->rel, sizeof (c->rel), c->root, s->node, s->uid,
                            s->job_id, s->step_id);
    if (levels < 0)
        return errprintf (err,
                          "proctrack/cgroup: bad container path "
                          "(CgroupRoot '%s', node '%s'): %s",
                          c->root, s->node ? s->node : "", strerror (errno));
    /* destroy removes the step and job levels only: the user's (and an
     * emulated node's) level is shared by the user's other jobs, and
     * removing it would race with a job being created under it (a mkdir
     * of job_J failing after another stepd's rmdir of uid_U); it stays,
     * empty, as the node's record of who ran there. */
    c->levels = levels < 2 ? levels : 2;
    c->job_id = s->job_id;
    c->step_id = s->step_id;
    rc = c->version == 1 ? cg_v1_create (c, s, err) : cg_v2_create (c, s, err);
    if (rc == 0)
        c->created = true;
    return rc;
}

static int cg_add (void *arg, pid_t pid)
{
    struct cg_ctx *c = arg;

    if (!c->created || pid <= 0) {
        errno = EINVAL;
        return -1;
    }
    return c->version == 1 ? cg_v1_add (c, pid) : cg_v2_add (c, pid);
}

/* pid 0 is the writer itself, to both versions' files (v1 tasks: that
 * one thread, without the threadgroup lock; v2 cgroup.procs: its
 * process). Both only make system calls on stack buffers. */
static int cg_add_self (void *arg)
{
    struct cg_ctx *c = arg;

    if (!c->created) {
        errno = EINVAL;
        return -1;
    }
    return c->version == 1 ? cg_v1_add_self (c) : cg_v2_add (c, 0);
}

static int cg_adopt (void *arg, pid_t pid)
{
    struct cg_ctx *c = arg;

    if (!c->created || pid <= 0) {
        errno = EINVAL;
        return -1;
    }
    return c->version == 1 ? cg_v1_adopt (c, pid) : cg_v2_add (c, pid);
}

static int cg_pids (void *arg, pid_t **pids, size_t *count)
{
    struct cg_ctx *c = arg;

    if (!c->created) {
        errno = EINVAL;
        return -1;
    }
    return c->version == 1 ? cg_v1_pids (c, pids, count)
                           : cg_v2_pids (c, pids, count);
}

static int cg_signal (void *arg, int sig)
{
    struct cg_ctx *c = arg;

    if (!c->created) {
        errno = EINVAL;
        return -1;
    }
    return c->version == 1 ? cg_v1_signal (c, sig) : cg_v2_signal (c, sig);
}

/* One read of cgroup.procs, not a listing: this runs once per step and
 * every STEPD_KILL_POLL while one is being killed. */
static int cg_is_empty (void *arg)
{
    struct cg_ctx *c = arg;

    if (!c->created) {
        errno = EINVAL;
        return -1;
    }
    return c->version == 1 ? cg_v1_is_empty (c)
                           : cg_procs_empty (c->mounts.v2, c->rel);
}

/* The groups go with rmdir, which the kernel refuses (EBUSY) while a
 * process is in one: no listing first (opening cgroup.procs builds the
 * kernel's pid list), only to name what is left when it did refuse. */
static int cg_destroy (void *arg, arbor_error_t *err)
{
    struct cg_ctx *c = arg;
    pid_t *pids = NULL;
    size_t count = 0;
    int e;

    if (!c->created) {
        errno = EINVAL;
        return errprintf (err, "proctrack/cgroup: no container");
    }
    if ((c->version == 1 ? cg_v1_destroy (c, err) : cg_v2_destroy (c, err))
        == 0) {
        c->created = false;
        c->dev_constrained = false;
        c->dev_limited = false;
        cg_v1_fini (c); /* v1's handle names groups now gone */
        return 0;
    }
    e = errno;
    if (cg_pids (c, &pids, &count) == 0) {
        if (count > 0) {
            errprintf (err, "proctrack/cgroup: %s: %zu processes left (pid %d)",
                       c->rel, count, (int)pids[0]);
            e = EBUSY;
        }
        free (pids);
    }
    errno = e;
    return -1;
}

static int cg_oom_kills (void *arg, uint64_t *count)
{
    struct cg_ctx *c = arg;

    if (!c->created) {
        errno = EINVAL;
        return -1;
    }
    return c->version == 1 ? cg_v1_oom_kills (c, count)
                           : cg_v2_oom_kills (c, count);
}

/* Once, between create and the first add (proctrack.h). n == 0 asks for
 * nothing, so it needs nothing from the host either. */
static int cg_constrain_devices (void *arg, const struct proctrack_dev *deny,
                                 size_t n, arbor_error_t *err)
{
    struct cg_ctx *c = arg;
    int rc;

    if (!c->created) {
        errno = EINVAL;
        return errprintf (err, "proctrack/cgroup: constrain_devices before "
                               "create");
    }
    if (n == 0)
        return 0;
    if (!deny) {
        errno = EINVAL;
        return errprintf (err, "proctrack/cgroup: no device list");
    }
    if (c->dev_constrained) {
        errno = EEXIST;
        return errprintf (err,
                          "proctrack/cgroup: %s: devices already "
                          "constrained",
                          c->rel);
    }
    rc = c->version == 1 ? cg_devices_v1 (c, deny, n, err)
                         : cg_devices_v2 (c, deny, n, err);
    if (rc == 0) {
        c->dev_constrained = true;
        plugin_log (c->env, PLUGIN_LOG_DEBUG,
                    "proctrack/cgroup: %s: %zu device(s) denied (%s)", c->rel,
                    n, c->version == 1 ? "v1 devices.deny" : "v2 BPF program");
    }
    return rc;
}

static const struct proctrack_ops proctrack_cgroup_ops = {
    .init = cg_init,
    .fini = cg_fini,
    .create = cg_create,
    .add = cg_add,
    .add_self = cg_add_self,
    .signal = cg_signal,
    .is_empty = cg_is_empty,
    .destroy = cg_destroy,
    .pids = cg_pids,
    .oom_kills = cg_oom_kills,
    .adopt = cg_adopt,
    .constrain_devices = cg_constrain_devices,
};

ARBOR_PLUGIN_EXPORT const struct arbor_plugin arbor_plugin =
    PROCTRACK_PLUGIN ("cgroup", proctrack_cgroup_ops);
