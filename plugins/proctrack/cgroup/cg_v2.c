/* cg_v2.c - proctrack/cgroup on cgroup v2, through the cgroup2 files.
 *
 * Why not libcgroup here: libcgroup 2.0.2 reaches a v2 hierarchy only
 * through a controller named in its cgroup.controllers, so it cannot
 * address the core files (cgroup.procs, cgroup.freeze, cgroup.kill,
 * cgroup.events) that exist even with no controller enabled - the case of
 * systemd's hybrid /sys/fs/cgroup/unified - and when it creates a group
 * under a controller it enables that controller only in the immediate
 * parent's cgroup.subtree_control, which fails (ENOENT) unless every
 * ancestor already has it. It also has no call for cgroup.kill or
 * cgroup.freeze. So this backend uses mkdir/rmdir and small writes to the
 * documented cgroup2 interface files; see docs/proctrack.md.
 *
 * SIGKILL goes through cgroup.kill (Linux >= 5.14), which kills every
 * process of the group atomically, forks included. Other signals (and
 * SIGKILL on older kernels) freeze the group through cgroup.freeze, signal
 * the listed processes and thaw it (cg_freeze.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg.h"
#include "cg_v2.h"

/* "<v2 mount>/<rel>[/<file>]" into buf. */
static int cg_v2_path (const struct cg_ctx *c, const char *rel,
                       const char *file, char *buf, size_t size)
{
    return cg_path_join (buf, size, c->mounts.v2, rel, file);
}

/* Read a whole (small) interface file; caller frees. */
static char *cg_v2_read (const char *path)
{
    size_t len = 0, alloc = 4096;
    char *buf = malloc (alloc);
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (!buf || fd < 0)
        goto fail;
    while ((n = read (fd, buf + len, alloc - len - 1)) > 0) {
        len += (size_t)n;
        if (alloc - len < 2) {
            char *p = realloc (buf, alloc * 2);
            if (!p)
                goto fail;
            buf = p;
            alloc *= 2;
        }
    }
    if (n < 0)
        goto fail;
    close (fd);
    buf[len] = '\0';
    return buf;
fail:
    n = errno;
    free (buf);
    if (fd >= 0)
        close (fd);
    errno = (int)n;
    return NULL;
}

bool cg_v2_has_controller (const char *mount, const char *controller)
{
    char path[PATH_MAX + 32], *text, *tok, *save = NULL;
    bool found = false;

    snprintf (path, sizeof (path), "%s/cgroup.controllers", mount);
    if (!(text = cg_v2_read (path)))
        return false;
    for (tok = strtok_r (text, " \n", &save); tok && !found;
         tok = strtok_r (NULL, " \n", &save))
        found = !strcmp (tok, controller);
    free (text);
    return found;
}

/* Enable the memory controller for the children of every ancestor of the
 * leaf, from the mount root down. No process lives in those levels, so
 * v2's no-internal-process rule holds. */
static int cg_v2_enable_memory (struct cg_ctx *c)
{
    char rel[PATH_MAX], path[PATH_MAX * 2];
    char *p = rel;

    snprintf (rel, sizeof (rel), "%s", c->rel);
    if (cg_write (
            strcat (strcpy (path, c->mounts.v2), "/cgroup.subtree_control"),
            "+memory")
        < 0)
        return -1;
    while ((p = strchr (p, '/'))) {
        *p = '\0';
        if (cg_v2_path (c, rel, "cgroup.subtree_control", path, sizeof (path))
                < 0
            || cg_write (path, "+memory") < 0)
            return -1;
        *p++ = '/';
    }
    return 0;
}

int cg_v2_create (struct cg_ctx *c, const struct step_info *s,
                  arbor_error_t *err)
{
    char path[PATH_MAX * 2], val[32];

    if (cg_mkdirs (c->mounts.v2, c->rel) < 0)
        return errprintf (err, "proctrack/cgroup: mkdir %s/%s: %s",
                          c->mounts.v2, c->rel, strerror (errno));
    if (s->mem_mb > 0 && c->have_memory) {
        snprintf (val, sizeof (val), "%llu",
                  (unsigned long long)s->mem_mb << 20);
        if (cg_v2_enable_memory (c) < 0
            || cg_v2_path (c, c->rel, "memory.max", path, sizeof (path)) < 0
            || cg_write (path, val) < 0) {
            int e = errno;
            (void)cg_rmdirs (c->mounts.v2, c->rel, c->levels);
            errno = e;
            return errprintf (err, "proctrack/cgroup: %s: memory.max: %s",
                              c->rel, strerror (e));
        }
        c->mem_limited = true;
    }
    return 0;
}

int cg_v2_add (struct cg_ctx *c, pid_t pid)
{
    char path[PATH_MAX * 2], val[32];

    snprintf (val, sizeof (val), "%d", (int)pid);
    if (cg_v2_path (c, c->rel, "cgroup.procs", path, sizeof (path)) < 0)
        return -1;
    return cg_write (path, val);
}

int cg_v2_pids (struct cg_ctx *c, pid_t **pidsp, size_t *countp)
{
    char path[PATH_MAX * 2], *text, *tok, *save = NULL;
    pid_t *pids = NULL;
    size_t count = 0, alloc = 0;

    if (cg_v2_path (c, c->rel, "cgroup.procs", path, sizeof (path)) < 0
        || !(text = cg_v2_read (path)))
        return -1;
    for (tok = strtok_r (text, "\n", &save); tok;
         tok = strtok_r (NULL, "\n", &save)) {
        if (count == alloc) {
            size_t n = alloc ? alloc * 2 : 16;
            pid_t *p = realloc (pids, n * sizeof (*p));
            if (!p) {
                free (pids);
                free (text);
                errno = ENOMEM;
                return -1;
            }
            pids = p;
            alloc = n;
        }
        pids[count++] = (pid_t)atoi (tok);
    }
    free (text);
    *pidsp = pids;
    *countp = count;
    return 0;
}

/* Write cgroup.freeze: "1" freezes, "0" thaws. */
static int cg_v2_freeze_write (struct cg_ctx *c, const char *value)
{
    char path[PATH_MAX * 2];

    if (cg_v2_path (c, c->rel, "cgroup.freeze", path, sizeof (path)) < 0)
        return -1;
    return cg_write (path, value);
}

static int cg_v2_freeze (struct cg_ctx *c)
{
    return cg_v2_freeze_write (c, "1");
}

static int cg_v2_thaw (struct cg_ctx *c)
{
    return cg_v2_freeze_write (c, "0");
}

/* 1 once cgroup.events says "frozen 1". */
static int cg_v2_is_frozen (struct cg_ctx *c)
{
    char path[PATH_MAX * 2], *ev;
    bool frozen;

    if (cg_v2_path (c, c->rel, "cgroup.events", path, sizeof (path)) < 0
        || !(ev = cg_v2_read (path)))
        return -1;
    frozen = strstr (ev, "frozen 1") != NULL;
    free (ev);
    return frozen;
}

static const struct cg_freezer cg_v2_freezer = {
    .freeze = cg_v2_freeze,
    .is_frozen = cg_v2_is_frozen,
    .thaw = cg_v2_thaw,
    .pids = cg_v2_pids,
};

int cg_v2_signal (struct cg_ctx *c, int sig)
{
    char path[PATH_MAX * 2];

    if (sig == SIGKILL
        && cg_v2_path (c, c->rel, "cgroup.kill", path, sizeof (path)) == 0
        && cg_write (path, "1") == 0)
        return 0;
    return cg_freeze_signal (c, &cg_v2_freezer, sig);
}

int cg_v2_destroy (struct cg_ctx *c, arbor_error_t *err)
{
    if (cg_rmdirs (c->mounts.v2, c->rel, c->levels) < 0)
        return errprintf (err, "proctrack/cgroup: rmdir %s/%s: %s",
                          c->mounts.v2, c->rel, strerror (errno));
    return 0;
}

int cg_v2_oom_kills (struct cg_ctx *c, uint64_t *count)
{
    char path[PATH_MAX * 2], *text;
    int rc;

    if (!c->mem_limited) {
        errno = ENOTSUP;
        return -1;
    }
    if (cg_v2_path (c, c->rel, "memory.events", path, sizeof (path)) < 0
        || !(text = cg_v2_read (path)))
        return -1;
    rc = cg_oom_kill_parse (text, count);
    free (text);
    return rc;
}
