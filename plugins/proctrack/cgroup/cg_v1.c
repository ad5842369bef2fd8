/* cg_v1.c - proctrack/cgroup on cgroup v1, through libcgroup.
 *
 * The step lives in the freezer hierarchy (always), in the memory
 * hierarchy (when it has a memory limit and memory is mounted) and in the
 * devices hierarchy (ConstrainDevices: cg_devices_v1.c). The
 * directories are made and removed with mkdir(2) and rmdir(2) and a group's
 * emptiness is one read (cg_fs.c); libcgroup sets memory.limit_in_bytes
 * and freezer.state, attaches other processes and lists cgroup.procs.
 *
 * Signalling freezes the group first, lists and signals its processes,
 * then thaws it: a frozen process cannot fork, so no child is born
 * between the listing and the kill (cg_freeze.c; this file gives it
 * freezer.state).
 */
#include <errno.h>
#include <libcgroup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cg.h"
#include "cg_v1.h"

/* errno for a libcgroup return code. */
static int cg_v1_errno (int rc)
{
    if (rc == ECGOTHER && cgroup_get_last_errno () != 0)
        return cgroup_get_last_errno ();
    if (rc == ECGROUPNOTEXIST)
        return ENOENT;
    return EIO;
}

static int cg_v1_fail (int rc)
{
    errno = cg_v1_errno (rc);
    return -1;
}

/* Does <mount>/<rel> exist? */
static bool cg_v1_exists (const char *mount, const char *rel)
{
    char path[PATH_MAX * 2];
    struct stat sb;

    snprintf (path, sizeof (path), "%s/%s", mount, rel);
    return stat (path, &sb) == 0;
}

/* libcgroup's handle of the step: freezer, memory when the step has a
 * limit (with the limit's value when mem_mb is not 0: create's, not
 * add's) and devices when ConstrainDevices put it there. NULL when out of
 * memory. */
static struct cgroup *cg_v1_handle (struct cg_ctx *c, uint64_t mem_mb)
{
    struct cgroup *cg = cgroup_new_cgroup (c->rel);
    struct cgroup_controller *mem;

    if (!cg || !cgroup_add_controller (cg, "freezer"))
        goto fail;
    if (c->mem_limited
        && (!(mem = cgroup_add_controller (cg, "memory"))
            || (mem_mb
                && cgroup_add_value_uint64 (mem, "memory.limit_in_bytes",
                                            mem_mb << 20)
                       != 0)))
        goto fail;
    if (c->dev_limited && !cgroup_add_controller (cg, "devices"))
        goto fail;
    return cg;
fail:
    cgroup_free (&cg);
    return NULL;
}

/* The directories by cg_mkdirs (cg_fs.c says why not libcgroup's create),
 * root's, so the step's user cannot move processes out of them; libcgroup
 * only for what it writes: the memory limit. */
int cg_v1_create (struct cg_ctx *c, const struct step_info *s,
                  arbor_error_t *err)
{
    int rc;

    c->mem_limited = s->mem_mb > 0 && c->have_memory;
    if (c->mem_limited && !(c->cg = cg_v1_handle (c, s->mem_mb))) {
        errno = ENOMEM;
        return errprintf (err, "proctrack/cgroup: libcgroup: cannot set "
                               "memory.limit_in_bytes");
    }
    if (cg_mkdirs (c->mounts.freezer, c->rel) < 0) {
        int e = errno;
        cg_v1_fini (c);
        errno = e;
        return errprintf (err, "proctrack/cgroup: mkdir %s/%s: %s",
                          c->mounts.freezer, c->rel, strerror (e));
    }
    if (c->mem_limited && cg_mkdirs (c->mounts.memory, c->rel) < 0) {
        int e = errno;
        (void)cg_v1_destroy (c, NULL);
        cg_v1_fini (c);
        errno = e;
        return errprintf (err, "proctrack/cgroup: mkdir %s/%s: %s",
                          c->mounts.memory, c->rel, strerror (e));
    }
    if (c->mem_limited && (rc = cgroup_modify_cgroup (c->cg)) != 0) {
        int e = cg_v1_errno (rc);
        (void)cg_v1_destroy (c, NULL);
        cg_v1_fini (c);
        errno = e;
        return errprintf (err,
                          "proctrack/cgroup: %s: memory.limit_in_bytes: "
                          "%s%s%s",
                          c->rel, cgroup_strerror (rc),
                          rc == ECGOTHER ? ": " : "",
                          rc == ECGOTHER ? strerror (e) : "");
    }
    return 0;
}

int cg_v1_add (struct cg_ctx *c, pid_t pid)
{
    int rc;

    if (!c->cg && !(c->cg = cg_v1_handle (c, 0))) {
        errno = ENOMEM;
        return -1;
    }
    rc = cgroup_attach_task_pid (c->cg, pid);
    return rc == 0 ? 0 : cg_v1_fail (rc);
}

/* Write "0" to <mount>/<rel>/tasks: moves the writing thread. */
static int cg_v1_tasks_self (const char *mount, const char *rel)
{
    char path[PATH_MAX * 2];
    int n = snprintf (path, sizeof (path), "%s/%s/tasks", mount, rel);

    if (n < 0 || (size_t)n >= sizeof (path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return cg_write (path, "0");
}

/* The caller into the step's groups with plain system calls, not
 * libcgroup's attach (which allocates and takes its lock): the caller
 * may be a task sharing the stepd's memory (see proctrack.h). */
int cg_v1_add_self (struct cg_ctx *c)
{
    if (cg_v1_tasks_self (c->mounts.freezer, c->rel) < 0)
        return -1;
    if (c->mem_limited && cg_v1_tasks_self (c->mounts.memory, c->rel) < 0)
        return -1;
    if (c->dev_limited && cg_v1_tasks_self (c->mounts.devices, c->rel) < 0)
        return -1;
    return 0;
}

/* Write pid to <mount>/<rel>/cgroup.procs: the whole process moves, where
 * libcgroup's attach (tasks) would move one thread of it. */
static int cg_v1_procs (const char *mount, const char *rel, pid_t pid)
{
    char path[PATH_MAX * 2], val[32];
    int n = snprintf (path, sizeof (path), "%s/%s/cgroup.procs", mount, rel);

    if (n < 0 || (size_t)n >= sizeof (path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf (val, sizeof (val), "%d", (int)pid);
    return cg_write (path, val);
}

int cg_v1_adopt (struct cg_ctx *c, pid_t pid)
{
    if (cg_v1_procs (c->mounts.freezer, c->rel, pid) < 0)
        return -1;
    if (c->mem_limited && cg_v1_procs (c->mounts.memory, c->rel, pid) < 0)
        return -1;
    if (c->dev_limited && cg_v1_procs (c->mounts.devices, c->rel, pid) < 0)
        return -1;
    return 0;
}

int cg_v1_pids (struct cg_ctx *c, pid_t **pidsp, size_t *countp)
{
    pid_t *pids = NULL;
    int n = 0, rc;

    rc = cgroup_get_procs (c->rel, "freezer", &pids, &n);
    if (rc != 0)
        return cg_v1_fail (rc);
    if (n <= 0) {
        free (pids);
        pids = NULL;
        n = 0;
    }
    *pidsp = pids;
    *countp = (size_t)n;
    return 0;
}

/* Write freezer.state through libcgroup. */
static int cg_v1_freezer_set (struct cg_ctx *c, const char *state)
{
    struct cgroup *cg = cgroup_new_cgroup (c->rel);
    struct cgroup_controller *fz;
    int rc = ECGFAIL;

    if (cg && (fz = cgroup_add_controller (cg, "freezer"))
        && cgroup_add_value_string (fz, "freezer.state", state) == 0)
        rc = cgroup_modify_cgroup (cg);
    cgroup_free (&cg);
    return rc == 0 ? 0 : cg_v1_fail (rc);
}

/* 1 once freezer.state reads FROZEN (FREEZING before). */
static int cg_v1_is_frozen (struct cg_ctx *c)
{
    char buf[64];
    void *h = NULL;
    int rc = cgroup_read_value_begin (
        "freezer", c->rel, (char *)"freezer.state", &h, buf, sizeof (buf));

    cgroup_read_value_end (&h);
    if (rc != 0)
        return -1;
    return !strncmp (buf, "FROZEN", 6);
}

static int cg_v1_freeze (struct cg_ctx *c)
{
    return cg_v1_freezer_set (c, "FROZEN");
}

static int cg_v1_thaw (struct cg_ctx *c)
{
    return cg_v1_freezer_set (c, "THAWED");
}

static const struct cg_freezer cg_v1_freezer = {
    .freeze = cg_v1_freeze,
    .is_frozen = cg_v1_is_frozen,
    .thaw = cg_v1_thaw,
    .pids = cg_v1_pids,
};

int cg_v1_signal (struct cg_ctx *c, int sig)
{
    return cg_freeze_signal (c, &cg_v1_freezer, sig);
}

/* The memory and devices hierarchies first (a group there exists only
 * when the step, or the dead stepd's step being adopted, had a limit or
 * ConstrainDevices), then the freezer, whose step group must go. */
int cg_v1_destroy (struct cg_ctx *c, arbor_error_t *err)
{
    if (c->mounts.memory[0] && cg_v1_exists (c->mounts.memory, c->rel))
        (void)cg_rmdirs (c->mounts.memory, c->rel, c->levels);
    if (c->mounts.devices[0] && cg_v1_exists (c->mounts.devices, c->rel))
        (void)cg_rmdirs (c->mounts.devices, c->rel, c->levels);
    if (cg_rmdirs (c->mounts.freezer, c->rel, c->levels) < 0)
        return errprintf (err, "proctrack/cgroup: rmdir %s/%s: %s",
                          c->mounts.freezer, c->rel, strerror (errno));
    return 0;
}

int cg_v1_is_empty (struct cg_ctx *c)
{
    return cg_procs_empty (c->mounts.freezer, c->rel);
}

void cg_v1_fini (struct cg_ctx *c)
{
    if (c->cg)
        cgroup_free (&c->cg);
}

/* memory.oom_control of the step's memory group. Read as a plain file:
 * it is a small multi-line flat-keyed file, and libcgroup's reader would
 * only hand it back line by line. */
int cg_v1_oom_kills (struct cg_ctx *c, uint64_t *count)
{
    char path[PATH_MAX * 2 + 32], buf[512];
    size_t n;
    FILE *fp;

    if (!c->mem_limited) {
        errno = ENOTSUP;
        return -1;
    }
    snprintf (path, sizeof (path), "%s/%s/memory.oom_control", c->mounts.memory,
              c->rel);
    if (!(fp = fopen (path, "re")))
        return -1;
    n = fread (buf, 1, sizeof (buf) - 1, fp);
    fclose (fp);
    buf[n] = '\0';
    if (cg_oom_kill_parse (buf, count) < 0) {
        if (errno == ENOENT)
            errno = ENOTSUP; /* kernel < 4.13: no counter */
        return -1;
    }
    return 0;
}
