/* procstat.c - see procstat.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procstat.h"

/* Fields of /proc/<pid>/stat after "pid (comm)", counted from 3
 * (state), as proc(5) numbers them. */
enum {
    STAT_PPID = 4,
    STAT_MAJFLT = 12,
    STAT_CMAJFLT = 13,
    STAT_UTIME = 14,
    STAT_CSTIME = 17,
    STAT_VSIZE = 23,
    STAT_RSS = 24,
};

int procstat_parse_stat (const char *text, uint64_t page_kb,
                         struct proc_sample *s)
{
    /* comm may hold spaces and parentheses: it ends at the last ')'. */
    const char *p = strrchr (text, ')');
    char *end;
    long pid;

    errno = 0;
    pid = strtol (text, &end, 10);
    if (!p || end == text || errno || pid <= 0 || pid > INT_MAX || p[1] != ' ')
        return -1;
    s->pid = (pid_t)pid;
    s->majflt = s->cpu_ticks = 0;
    p += 2;
    for (int field = 3; field <= STAT_RSS; field++) {
        unsigned long long v = 0;
        if (field > 3) { /* field 3, the state, is a letter */
            errno = 0;
            v = strtoull (p, &end, 10);
            if (end == p || errno)
                return -1;
            p = end;
        } else
            p += strcspn (p, " ");
        if (field == STAT_PPID)
            s->ppid = (pid_t)v;
        else if (field == STAT_MAJFLT || field == STAT_CMAJFLT)
            s->majflt += v;
        else if (field >= STAT_UTIME && field <= STAT_CSTIME)
            s->cpu_ticks += v;
        else if (field == STAT_VSIZE)
            s->vsize_kb = v / 1024;
        else if (field == STAT_RSS)
            s->rss_kb = v * page_kb;
        if (*p == ' ')
            p++;
    }
    return 0;
}

/* The number after "key" at the start of a line of text, or 0. */
static uint64_t procstat_key (const char *text, const char *key)
{
    size_t klen = strlen (key);

    for (const char *line = text; line && *line;) {
        if (!strncmp (line, key, klen))
            return strtoull (line + klen, NULL, 10);
        if ((line = strchr (line, '\n')))
            line++;
    }
    return 0;
}

void procstat_parse_status (const char *text, struct proc_sample *s)
{
    s->hwm_kb = procstat_key (text, "VmHWM:");
    s->peak_kb = procstat_key (text, "VmPeak:");
}

void procstat_parse_io (const char *text, struct proc_sample *s)
{
    s->read_bytes = procstat_key (text, "read_bytes:");
    s->write_bytes = procstat_key (text, "write_bytes:");
}

/* /proc/<pid>/<name> into buf, NUL-terminated. 0 or -1 with errno. */
static int procstat_file (pid_t pid, const char *name, char *buf, size_t len)
{
    char path[64];
    ssize_t n;
    int fd;

    snprintf (path, sizeof (path), "/proc/%ld/%s", (long)pid, name);
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read (fd, buf, len - 1);
    close (fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

int procstat_read (pid_t pid, struct proc_sample *s)
{
    static uint64_t page_kb;
    char buf[4096];

    if (!page_kb) {
        long ps = sysconf (_SC_PAGESIZE);
        page_kb = ps >= 1024 ? (uint64_t)ps / 1024 : 4;
    }
    memset (s, 0, sizeof (*s));
    if (procstat_file (pid, "stat", buf, sizeof (buf)) < 0)
        return -1;
    if (procstat_parse_stat (buf, page_kb, s) < 0) {
        errno = EINVAL;
        return -1;
    }
    if (procstat_file (pid, "status", buf, sizeof (buf)) == 0)
        procstat_parse_status (buf, s);
    if (procstat_file (pid, "io", buf, sizeof (buf)) == 0)
        procstat_parse_io (buf, s);
    return 0;
}

static int procstat_task_of (pid_t pid, const pid_t *task_pids, size_t ntasks)
{
    for (size_t k = 0; k < ntasks; k++)
        if (task_pids[k] == pid)
            return (int)k;
    return -1;
}

static const struct proc_sample *procstat_find (const struct proc_sample *s,
                                                size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].pid == pid)
            return &s[i];
    return NULL;
}

void procstat_attribute (const struct proc_sample *s, size_t n,
                         const pid_t *task_pids, size_t ntasks, int *owner)
{
    for (size_t i = 0; i < n; i++) {
        const struct proc_sample *p = &s[i];
        int task = procstat_task_of (p->pid, task_pids, ntasks);

        /* At most n steps up: a ppid loop cannot hold us. */
        for (size_t hop = 0; task < 0 && p && hop < n; hop++) {
            task = procstat_task_of (p->ppid, task_pids, ntasks);
            p = procstat_find (s, n, p->ppid);
        }
        owner[i] = task;
    }
}
