/* cg.h - internal to proctrack/cgroup: host detection, container paths and
 * the two backends (v1 through libcgroup, v2 through the cgroup2 files).
 *
 * cg_mounts_parse() and cg_path_build() are pure functions over their
 * arguments so that unit tests can feed them sample mount tables.
 */
#ifndef ARBOR_PROCTRACK_CG_H
#define ARBOR_PROCTRACK_CG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "proctrack.h"

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

/* The plugin's state for one step. */
struct cg_ctx {
    const struct plugin_env *env;
    struct cg_mounts mounts;
    int version;      /* backend in use: 1 or 2 */
    bool have_memory; /* memory controller usable by that backend */
    char root[256];   /* CgroupRoot */
    bool created;
    char rel[PATH_MAX]; /* step container, relative to the mount */
    int levels;         /* levels of rel below root */
    uint32_t job_id, step_id;
    bool mem_limited;  /* the step has a memory limit (v1: it also
                        * lives in the memory hierarchy) */
    struct cgroup *cg; /* v1: libcgroup handle of the step, made when
                        * needed (a memory limit, adopting a process) */
};

/* Write 'text' to the interface file 'path' (open, write, close: no
 * allocation, so a task sharing the stepd's memory may call it). 0, or -1
 * with errno. Both backends use it. */
int cg_write (const char *path, const char *text);

/* Make <mount>/<rel> and whichever of its parents below mount are
 * missing, touching no level that exists (cg_fs.c says why). 0 (also
 * when it existed), or -1 with errno: EINVAL (empty mount or rel),
 * ENAMETOOLONG, ENOENT (mount missing), or mkdir(2)'s. */
int cg_mkdirs (const char *mount, const char *rel);

/* "<mount>/<rel>[/<file>]" into path (file NULL: none). 0, or -1 with
 * errno ENAMETOOLONG. */
int cg_path_join (char *path, size_t size, const char *mount, const char *rel,
                  const char *file);

/* Remove <mount>/<rel>, then its parents while they are empty, 'levels'
 * directories in all, stopping at the first the kernel keeps (busy: a
 * process or another step's or job's group is in it). A missing directory
 * counts as removed. 0 when <rel> is gone, or -1 with rmdir(2)'s errno
 * (EBUSY) when it stays, or ENAMETOOLONG. */
int cg_rmdirs (const char *mount, const char *rel, int levels);

/* 1 if <mount>/<rel>/cgroup.procs lists no process, 0 if it lists one, -1
 * with errno (ENOENT: no such group). */
int cg_procs_empty (const char *mount, const char *rel);

/* Backend ops: same contracts as struct proctrack_ops. */
int cg_v1_create (struct cg_ctx *c, const struct step_info *s,
                  arbor_error_t *err);
int cg_v1_add (struct cg_ctx *c, pid_t pid);
int cg_v1_add_self (struct cg_ctx *c);
/* A running process with all its threads (cgroup.procs of each group). */
int cg_v1_adopt (struct cg_ctx *c, pid_t pid);
int cg_v1_pids (struct cg_ctx *c, pid_t **pids, size_t *count);
int cg_v1_signal (struct cg_ctx *c, int sig);
int cg_v1_destroy (struct cg_ctx *c, arbor_error_t *err);
int cg_v1_is_empty (struct cg_ctx *c);
void cg_v1_fini (struct cg_ctx *c);
int cg_v1_oom_kills (struct cg_ctx *c, uint64_t *count);

int cg_v2_create (struct cg_ctx *c, const struct step_info *s,
                  arbor_error_t *err);
int cg_v2_add (struct cg_ctx *c, pid_t pid);
int cg_v2_pids (struct cg_ctx *c, pid_t **pids, size_t *count);
int cg_v2_signal (struct cg_ctx *c, int sig);
int cg_v2_destroy (struct cg_ctx *c, arbor_error_t *err);
int cg_v2_oom_kills (struct cg_ctx *c, uint64_t *count);
/* 1 if the v2 hierarchy at 'mount' offers 'controller'. */
bool cg_v2_has_controller (const char *mount, const char *controller);

/* True for signals that must not be followed by SIGCONT. */
bool cg_is_stop_signal (int sig);

/* Send sig to each of pids[0..n), then SIGCONT unless sig is a stop signal,
 * so stopped processes act on it. Processes already gone (ESRCH) are not
 * errors. 0, or the errno of the last failure. */
int cg_signal_pids (const pid_t *pids, size_t n, int sig);

/* How long signalling waits for a group to be frozen before it signals
 * it unfrozen. */
#define CG_FREEZE_WAIT_MS 500

/* One backend's freezer, for cg_freeze_signal(). Each call returns 0, or
 * -1 with errno; is_frozen returns 1 (frozen), 0 (not yet) or -1. */
struct cg_freezer {
    int (*freeze) (struct cg_ctx *c);
    int (*is_frozen) (struct cg_ctx *c);
    int (*thaw) (struct cg_ctx *c);
    int (*pids) (struct cg_ctx *c, pid_t **pids, size_t *count);
};

/* Freeze the step's group (waiting CG_FREEZE_WAIT_MS at most; a group
 * that does not freeze is signalled unfrozen, with a warning), send sig to
 * each listed process (cg_signal_pids), then thaw it, even when it was not
 * seen frozen. 0, or -1 with the errno of the last failure. */
int cg_freeze_signal (struct cg_ctx *c, const struct cg_freezer *fz, int sig);

#endif
