/* cg_detect.h - proctrack/cgroup's pure parts (cg_detect.c): what the
 * host's mount table offers, container paths, the OOM counters' text, and
 * signalling a list of pids.
 *
 * cg_mounts_parse() and cg_path_build() are pure functions over their
 * arguments so that unit tests can feed them sample mount tables.
 */
#ifndef ARBOR_PROCTRACK_CG_DETECT_H
#define ARBOR_PROCTRACK_CG_DETECT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum cg_mode {
    CG_MODE_NONE = 0, /* no usable cgroup filesystem */
    CG_MODE_V1,       /* v1 controllers only */
    CG_MODE_V2,       /* one cgroup2 hierarchy, no v1 controllers */
    CG_MODE_HYBRID,   /* v1 controllers and a cgroup2 mount (systemd
                       * "hybrid": /sys/fs/cgroup/unified) */
};

struct cg_mounts {
    enum cg_mode mode;
    char v2[PATH_MAX];      /* cgroup2 mount point, or "" */
    char freezer[PATH_MAX]; /* v1 freezer mount point, or "" */
    char memory[PATH_MAX];  /* v1 memory mount point, or "" */
    char devices[PATH_MAX]; /* v1 devices mount point, or "" */
};

/* Parse /proc/self/mounts text. Returns 0 (mode NONE if nothing usable was
 * found), or -1 with errno EINVAL on NULL arguments. Mount points keep the
 * kernel's octal escapes decoded ("\040" -> ' '). */
int cg_mounts_parse (const char *text, struct cg_mounts *m);

const char *cg_mode_name (enum cg_mode mode);

/* Write "<root>/[node_<node>/]uid_<uid>/job_<job>/step_<step>" into buf,
 * relative to a hierarchy's mount point (root's leading and trailing '/'
 * dropped; root "" or "/" means none). node NULL or "" means no node
 * level. Returns the number of levels below root (3 or 4), or -1 with
 * errno EINVAL (node or root holding "..", node holding '/') or
 * ENAMETOOLONG. */
int cg_path_build (char *buf, size_t size, const char *root, const char *node,
                   uid_t uid, uint32_t job, uint32_t step);

/* Cut the last component off a relative path in place. Returns 0, or -1
 * if there is no parent. */
int cg_path_parent (char *path);

/* Find the "oom_kill N" line (v1 memory.oom_control, v2 memory.events;
 * not "oom_kill_disable" nor "oom_group_kill") in 'text' and store N.
 * Returns 0, or -1 with errno ENOENT when there is none (v1 kernels
 * before 4.13) or EINVAL on NULL arguments or a malformed number. */
int cg_oom_kill_parse (const char *text, uint64_t *count);

/* True for signals that must not be followed by SIGCONT. */
bool cg_is_stop_signal (int sig);

/* Send sig to each of pids[0..n), then SIGCONT unless sig is a stop signal,
 * so stopped processes act on it. Processes already gone (ESRCH) are not
 * errors. 0, or the errno of the last failure. */
int cg_signal_pids (const pid_t *pids, size_t n, int sig);

#endif
