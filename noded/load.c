/* load.c - this node's CPU load and free memory. See load.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "noded_base.h"
#include "stepd_table.h"

#define LOAD_MAX_PROCS 65536 /* a /proc larger than this is cut short */

/* The start of file 'path' (NUL-terminated), or -1. */
static ssize_t load_read (const char *path, char *buf, size_t size)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = read (fd, buf, size - 1);
    close (fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

uint32_t load_parse_loadavg (const char *text)
{
    char *end;
    double v = strtod (text, &end);

    if (end == text || v < 0 || v > 1e6)
        return LOAD_UNKNOWN;
    return (uint32_t)(v * 100 + 0.5);
}

uint32_t load_parse_meminfo (const char *text)
{
    const char *s = strstr (text, "MemAvailable:");
    unsigned long long kb;

    if (!s || sscanf (s + strlen ("MemAvailable:"), "%llu", &kb) != 1)
        return LOAD_UNKNOWN;
    kb /= 1024;
    return kb >= LOAD_UNKNOWN ? LOAD_UNKNOWN - 1 : (uint32_t)kb;
}

int load_parse_stat (const char *text, long page_kb, struct load_proc *p)
{
    /* "pid (comm) S ppid ...": comm may hold spaces and parentheses, so
     * the fields start after the last ')'. rss is field 24. */
    const char *r = strrchr (text, ')');
    long long pid, ppid, rss;
    char state;

    if (sscanf (text, "%lld", &pid) != 1 || !r
        || sscanf (r + 1,
                   " %c %lld %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
                   "%*d %*d %*d %*d %*d %*u %*u %lld",
                   &state, &ppid, &rss)
               != 3)
        return -1;
    p->pid = (pid_t)pid;
    p->ppid = (pid_t)ppid;
    p->state = state;
    p->rss_kb = rss > 0 ? (uint64_t)rss * (uint64_t)page_kb : 0;
    return 0;
}

static int load_cmp_pid (const void *a, const void *b)
{
    pid_t x = ((const struct load_proc *)a)->pid;
    pid_t y = ((const struct load_proc *)b)->pid;

    return x < y ? -1 : x > y;
}

void load_sort (struct load_proc *procs, size_t n)
{
    qsort (procs, n, sizeof (*procs), load_cmp_pid);
}

static bool load_is_root (pid_t pid, const pid_t *roots, size_t nroots)
{
    for (size_t i = 0; i < nroots; i++)
        if (roots[i] == pid)
            return true;
    return false;
}

/* Is p a descendant of a root? Walks up at most 64 parents. */
static bool load_under (const struct load_proc *procs, size_t n,
                        const struct load_proc *p, const pid_t *roots,
                        size_t nroots)
{
    for (int depth = 0; depth < 64 && p && p->ppid > 1; depth++) {
        struct load_proc key = { .pid = p->ppid };
        if (load_is_root (p->ppid, roots, nroots))
            return true;
        p = bsearch (&key, procs, n, sizeof (*procs), load_cmp_pid);
    }
    return false;
}

void load_tree (const struct load_proc *procs, size_t n, const pid_t *roots,
                size_t nroots, uint32_t *running, uint64_t *rss_kb)
{
    *running = 0;
    *rss_kb = 0;
    if (nroots == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        if (!load_under (procs, n, &procs[i], roots, nroots))
            continue;
        if (procs[i].state == 'R')
            (*running)++;
        *rss_kb += procs[i].rss_kb;
    }
}

/* Does this kernel have /proc/PID/task/TID/children? */
static bool load_have_children (void)
{
    char path[64];

    snprintf (path, sizeof (path), "/proc/%d/task/%d/children", (int)getpid (),
              (int)getpid ());
    return access (path, R_OK) == 0;
}

/* Every process of /proc, sorted by pid. Caller frees; NULL if none. */
static struct load_proc *load_scan (size_t *n)
{
    long page_kb = sysconf (_SC_PAGESIZE) / 1024;
    struct load_proc *v = NULL;
    size_t cap = 0;
    DIR *dir = opendir ("/proc");
    struct dirent *de;
    char path[300], buf[1024];

    *n = 0;
    while (dir && (de = readdir (dir)) && *n < LOAD_MAX_PROCS) {
        if (!isdigit ((unsigned char)de->d_name[0]))
            continue;
        snprintf (path, sizeof (path), "/proc/%s/stat", de->d_name);
        if (load_read (path, buf, sizeof (buf)) < 0)
            continue; /* gone meanwhile */
        if (*n == cap) {
            struct load_proc *w =
                realloc (v, (cap ? 2 * cap : 256) * sizeof (*v));
            if (!w)
                break;
            v = w;
            cap = cap ? 2 * cap : 256;
        }
        if (load_parse_stat (buf, page_kb, &v[*n]) == 0)
            (*n)++;
    }
    if (dir)
        closedir (dir);
    load_sort (v, *n);
    return v;
}

static int load_push (pid_t pid, pid_t **v, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        pid_t *w = realloc (*v, (*cap ? 2 * *cap : 64) * sizeof (**v));
        if (!w)
            return -1;
        *v = w;
        *cap = *cap ? 2 * *cap : 64;
    }
    (*v)[(*n)++] = pid;
    return 0;
}

/* Append the pids of one "children" file ("12 345 6789 ") to v, read in
 * pieces of any length: a pid cut at a piece's end is carried over, never
 * taken for a shorter one. 0 (also when the file is gone), -1 when out of
 * memory. */
static int load_children_file (const char *path, pid_t **v, size_t *n,
                               size_t *cap)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    char buf[4096];
    long pid = 0;
    bool digits = false;
    ssize_t got;
    int rc = 0;

    if (fd < 0)
        return 0; /* the thread or process is gone */
    while (rc == 0 && (got = read (fd, buf, sizeof (buf))) > 0) {
        for (ssize_t i = 0; i < got && rc == 0; i++) {
            if (isdigit ((unsigned char)buf[i]) && pid < INT32_MAX / 10) {
                pid = pid * 10 + (buf[i] - '0');
                digits = true;
            } else if (digits) {
                rc = load_push ((pid_t)pid, v, n, cap);
                pid = 0;
                digits = false;
            }
        }
    }
    if (rc == 0 && digits)
        rc = load_push ((pid_t)pid, v, n, cap);
    close (fd);
    return rc;
}

/* The children of every thread of pid, appended to v: 0, or -1 when out
 * of memory. A process gone meanwhile has none. */
static int load_children (pid_t pid, pid_t **v, size_t *n, size_t *cap)
{
    char path[320];
    struct dirent *de;
    DIR *dir;
    int rc = 0;

    snprintf (path, sizeof (path), "/proc/%d/task", (int)pid);
    if (!(dir = opendir (path)))
        return 0;
    while (rc == 0 && (de = readdir (dir))) {
        if (!isdigit ((unsigned char)de->d_name[0]))
            continue;
        snprintf (path, sizeof (path), "/proc/%d/task/%s/children", (int)pid,
                  de->d_name);
        rc = load_children_file (path, v, n, cap);
    }
    closedir (dir);
    return rc;
}

int load_descendants (const pid_t *roots, size_t nroots, uint32_t *running,
                      uint64_t *rss_kb, size_t *count)
{
    long page_kb = sysconf (_SC_PAGESIZE) / 1024;
    pid_t *v = NULL;
    size_t n = 0, cap = 0;
    char path[64], buf[1024];

    *running = 0;
    *rss_kb = 0;
    *count = 0;
    if (!load_have_children ()) {
        errno = ENOENT;
        return -1;
    }
    for (size_t i = 0; i < nroots; i++)
        if (load_children (roots[i], &v, &n, &cap) < 0)
            goto fail;
    /* v grows as each descendant's children are appended: a walk of the
     * tree in breadth, bounded like the scan. */
    for (size_t i = 0; i < n && i < LOAD_MAX_PROCS; i++) {
        struct load_proc p;
        snprintf (path, sizeof (path), "/proc/%d/stat", (int)v[i]);
        if (load_read (path, buf, sizeof (buf)) < 0
            || load_parse_stat (buf, page_kb, &p) < 0)
            continue; /* gone meanwhile */
        (*count)++;
        if (p.state == 'R')
            (*running)++;
        *rss_kb += p.rss_kb;
        if (n < LOAD_MAX_PROCS && load_children (v[i], &v, &n, &cap) < 0)
            goto fail;
    }
    free (v);
    return 0;
fail:
    free (v);
    errno = ENOMEM;
    return -1;
}

/* An emulated node: the work under its own stepds. Its stepds' process
 * trees are walked through /proc/PID/task/TID/children: reading all of
 * /proc instead costs every node the whole host's processes, and a
 * thousand emulated nodes registering together read millions of files
 * (a 1,024-node launch stalled for 20 s under that). The whole scan is
 * kept for kernels without children files. */
static void load_emulated (const struct noded *nd, uint32_t *cpu_load,
                           uint32_t *free_mem)
{
    pid_t roots[256];
    size_t nroots = 0, nprocs;
    struct load_proc *procs;
    uint32_t running = 0;
    uint64_t rss_kb = 0, mem = nd->self->real_memory;

    for (struct stepd_rec *s = nd->stepds->head; s && nroots < 256; s = s->next)
        if (s->pid > 0)
            roots[nroots++] = s->pid;
    if (nroots > 0
        && load_descendants (roots, nroots, &running, &rss_kb, &nprocs) < 0) {
        running = 0; /* a walk cut short by ENOMEM counts for nothing */
        rss_kb = 0;
        if (errno == ENOENT && (procs = load_scan (&nprocs))) {
            load_tree (procs, nprocs, roots, nroots, &running, &rss_kb);
            free (procs);
        }
    }
    *cpu_load = running * 100;
    *free_mem = rss_kb / 1024 >= mem ? 0 : (uint32_t)(mem - rss_kb / 1024);
}

void load_measure (const struct noded *nd, uint32_t *cpu_load,
                   uint32_t *free_mem)
{
    char buf[4096];

    if (nd->emulate) {
        load_emulated (nd, cpu_load, free_mem);
        return;
    }
    *cpu_load = load_read ("/proc/loadavg", buf, sizeof (buf)) < 0
                    ? LOAD_UNKNOWN
                    : load_parse_loadavg (buf);
    *free_mem = load_read ("/proc/meminfo", buf, sizeof (buf)) < 0
                    ? LOAD_UNKNOWN
                    : load_parse_meminfo (buf);
}
