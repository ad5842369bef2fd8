/* cg_detect.c - which cgroup layout a host has, and where a step lives.
 *
 * Pure functions (no system calls) so they are unit-tested on sample
 * /proc/self/mounts tables:
 *   - v1: "cgroup" mounts, one per controller set (freezer, memory...);
 *     named hierarchies such as name=systemd hold no controller and are
 *     ignored;
 *   - v2: one "cgroup2" mount;
 *   - hybrid: both (systemd's hybrid layout, cgroup2 at
 *     /sys/fs/cgroup/unified holding no controller).
 * Container paths nest root/[node_N/]uid_U/job_J/step_S; see
 * docs/proctrack.md.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"
#include "cg_detect.h"

/* Copy a mounts(5) field, decoding \ooo escapes. */
static void cg_unescape (char *dst, size_t size, const char *src, size_t len)
{
    size_t o = 0;

    for (size_t i = 0; i < len && o + 1 < size; i++) {
        if (src[i] == '\\' && i + 3 < len && src[i + 1] >= '0'
            && src[i + 1] <= '3' && src[i + 2] >= '0' && src[i + 2] <= '7'
            && src[i + 3] >= '0' && src[i + 3] <= '7') {
            dst[o++] = (char)((src[i + 1] - '0') * 64 + (src[i + 2] - '0') * 8
                              + (src[i + 3] - '0'));
            i += 3;
        } else
            dst[o++] = src[i];
    }
    dst[o] = '\0';
}

/* Is 'opt' one of the comma-separated options in opts[0..len)? */
static bool cg_has_opt (const char *opts, size_t len, const char *opt)
{
    size_t olen = strlen (opt);
    const char *p = opts, *end = opts + len;

    while (p < end) {
        const char *comma = memchr (p, ',', (size_t)(end - p));
        size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);
        if (n == olen && !strncmp (p, opt, n))
            return true;
        p += n + 1;
    }
    return false;
}

/* Split one mounts line into its first four fields. */
static int cg_fields (const char *line, const char *f[4], size_t n[4])
{
    const char *p = line;

    for (int i = 0; i < 4; i++) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '\n')
            return -1;
        f[i] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n')
            p++;
        n[i] = (size_t)(p - f[i]);
    }
    return 0;
}

/* The kernel's v1 controllers. */
static const char *const cg_v1_controllers[] = {
    "cpu",     "cpuacct", "cpuset",   "memory", "devices",
    "freezer", "net_cls", "net_prio", "blkio",  "perf_event",
    "hugetlb", "pids",    "rdma",     "misc",
};

static void cg_mounts_line (const char *line, struct cg_mounts *m, bool *has_v1)
{
    const char *f[4];
    size_t n[4];

    if (cg_fields (line, f, n) < 0)
        return;
    if (n[2] == 7 && !strncmp (f[2], "cgroup2", 7)) {
        if (!m->v2[0])
            cg_unescape (m->v2, sizeof (m->v2), f[1], n[1]);
        return;
    }
    if (n[2] != 6 || strncmp (f[2], "cgroup", 6) != 0)
        return;
    if (cg_has_opt (f[3], n[3], "freezer") && !m->freezer[0])
        cg_unescape (m->freezer, sizeof (m->freezer), f[1], n[1]);
    if (cg_has_opt (f[3], n[3], "memory") && !m->memory[0])
        cg_unescape (m->memory, sizeof (m->memory), f[1], n[1]);
    if (cg_has_opt (f[3], n[3], "devices") && !m->devices[0])
        cg_unescape (m->devices, sizeof (m->devices), f[1], n[1]);
    /* Named hierarchies (name=systemd) carry no controller and do not make
     * a host v1. */
    for (size_t i = 0; i < sizeof (cg_v1_controllers) / sizeof (char *); i++)
        if (cg_has_opt (f[3], n[3], cg_v1_controllers[i]))
            *has_v1 = true;
}

int cg_mounts_parse (const char *text, struct cg_mounts *m)
{
    bool has_v1 = false;
    const char *line;

    if (!text || !m) {
        errno = EINVAL;
        return -1;
    }
    memset (m, 0, sizeof (*m));
    for (line = text; line && *line;) {
        const char *nl = strchr (line, '\n');
        cg_mounts_line (line, m, &has_v1);
        line = nl ? nl + 1 : NULL;
    }
    if (has_v1 && m->v2[0])
        m->mode = CG_MODE_HYBRID;
    else if (has_v1)
        m->mode = CG_MODE_V1;
    else if (m->v2[0])
        m->mode = CG_MODE_V2;
    else
        m->mode = CG_MODE_NONE;
    return 0;
}

const char *cg_mode_name (enum cg_mode mode)
{
    switch (mode) {
    case CG_MODE_V1: return "v1";
    case CG_MODE_V2: return "v2";
    case CG_MODE_HYBRID: return "hybrid";
    default: return "none";
    }
}

/* A path component we accept from config or the node name. */
static bool cg_component_ok (const char *s, size_t len)
{
    if (len == 0 || (len == 1 && s[0] == '.')
        || (len == 2 && s[0] == '.' && s[1] == '.'))
        return false;
    return memchr (s, '\n', len) == NULL;
}

/* Append root with its outer slashes dropped, checking each component. */
static int cg_path_root (char *buf, size_t size, const char *root)
{
    const char *p = root ? root : "";
    size_t len;

    while (*p == '/')
        p++;
    len = strlen (p);
    while (len > 0 && p[len - 1] == '/')
        len--;
    if (len + 1 > size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (size_t i = 0; i < len;) {
        const char *s = memchr (p + i, '/', len - i);
        size_t l = s ? (size_t)(s - (p + i)) : len - i;
        if (!cg_component_ok (p + i, l)) {
            errno = EINVAL;
            return -1;
        }
        i += l + 1;
    }
    memcpy (buf, p, len);
    buf[len] = '\0';
    return 0;
}

int cg_path_build (char *buf, size_t size, const char *root, const char *node,
                   uid_t uid, uint32_t job, uint32_t step)
{
    size_t off;
    int n;

    if (!buf || size == 0 || cg_path_root (buf, size, root) < 0)
        return -1;
    if (node && *node
        && (strchr (node, '/') || !cg_component_ok (node, strlen (node)))) {
        errno = EINVAL;
        return -1;
    }
    off = strlen (buf);
    n = snprintf (buf + off, size - off, "%s%s%s%suid_%lu/job_%u/step_%u",
                  off ? "/" : "", node && *node ? "node_" : "",
                  node && *node ? node : "", node && *node ? "/" : "",
                  (unsigned long)uid, job, step);
    if (n < 0 || (size_t)n >= size - off) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return node && *node ? 4 : 3;
}

int cg_path_parent (char *path)
{
    char *s = strrchr (path, '/');

    if (!s)
        return -1;
    *s = '\0';
    return 0;
}

bool cg_is_stop_signal (int sig)
{
    return sig == 0 || sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN
           || sig == SIGTTOU || sig == SIGCONT;
}

int cg_signal_pids (const pid_t *pids, size_t n, int sig)
{
    int e = 0;

    for (size_t i = 0; i < n; i++) {
        if (kill (pids[i], sig) < 0 && errno != ESRCH)
            e = errno;
        else if (!cg_is_stop_signal (sig))
            (void)kill (pids[i], SIGCONT);
    }
    return e;
}

int cg_oom_kill_parse (const char *text, uint64_t *count)
{
    static const char key[] = "oom_kill";
    const char *line = text;

    if (!text || !count) {
        errno = EINVAL;
        return -1;
    }
    for (; line && *line;
         line = strchr (line, '\n'), line = line ? line + 1 : NULL) {
        char *end;
        unsigned long long v;

        if (strncmp (line, key, sizeof (key) - 1) != 0
            || (line[sizeof (key) - 1] != ' '
                && line[sizeof (key) - 1] != '\t'))
            continue;
        errno = 0;
        v = strtoull (line + sizeof (key), &end, 10);
        if (!isdigit ((unsigned char)line[sizeof (key)]) || errno != 0
            || (*end != '\n' && *end != '\0')) {
            errno = EINVAL;
            return -1;
        }
        *count = v;
        return 0;
    }
    errno = ENOENT;
    return -1;
}
