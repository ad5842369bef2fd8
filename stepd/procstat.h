/* procstat.h - what a process uses now, from /proc, and which task it
 * belongs to: the measurements behind sstat (stepd/stat.c).
 *
 * A sample is read from /proc/<pid>/stat (CPU, page faults, sizes, the
 * parent), /proc/<pid>/status (the kernel's record of the process's own
 * peaks, VmHWM and VmPeak) and /proc/<pid>/io (storage bytes; unreadable
 * for another user's process unless we are root, then 0). The parsers
 * take the files' text, so they are unit-tested without processes.
 */
#ifndef ARBOR_STEPD_PROCSTAT_H
#define ARBOR_STEPD_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_sample {
    pid_t pid, ppid;
    /* utime + stime + cutime + cstime: its own CPU and that of the
     * children it waited for, in clock ticks. */
    uint64_t cpu_ticks;
    uint64_t majflt;           /* majflt + cmajflt */
    uint64_t rss_kb, vsize_kb; /* now */
    uint64_t hwm_kb, peak_kb;  /* VmHWM, VmPeak: its own peaks */
    uint64_t read_bytes, write_bytes;
};

/* /proc/<pid>/stat's text into s (pid, ppid, cpu_ticks, majflt, rss_kb,
 * vsize_kb); page_kb is the page size in KB. 0, or -1 when it is not
 * such a line. */
int procstat_parse_stat (const char *text, uint64_t page_kb,
                         struct proc_sample *s);

/* /proc/<pid>/status's VmHWM and VmPeak into s (left alone if absent,
 * as for a zombie). */
void procstat_parse_status (const char *text, struct proc_sample *s);

/* /proc/<pid>/io's read_bytes and write_bytes into s. */
void procstat_parse_io (const char *text, struct proc_sample *s);

/* Read the three files of pid. 0, or -1 with errno (ESRCH/ENOENT: the
 * process is gone) when stat cannot be read; status and io that cannot
 * be read leave their fields 0. */
int procstat_read (pid_t pid, struct proc_sample *s);

/* The task each sample belongs to: owner[i] is the index in task_pids of
 * the task whose process s[i] is or descends from (following ppid
 * through the samples), or -1 when none is found (a process that left
 * its task's tree, e.g. a daemon reparented to init). */
void procstat_attribute (const struct proc_sample *s, size_t n,
                         const pid_t *task_pids, size_t ntasks, int *owner);

#endif
