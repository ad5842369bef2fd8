/* proctrack.h - process tracking plugins: keep every process of a step.
 *
 * A proctrack plugin holds the processes of one step on one node in a
 * container that they cannot leave by forking, so that the step can be
 * signalled as a whole and known to be over when the container is empty.
 * ProctrackType in arbor.conf names the plugin:
 *   proctrack/cgroup  a cgroup per step (v1 freezer+memory, or v2), through
 *                     libcgroup; escape-proof for unprivileged processes.
 *   proctrack/pgid    the step's process groups; for hosts without cgroups.
 *                     A process that calls setsid() or setpgid() escapes.
 * See docs/proctrack.md.
 *
 * One ctx tracks one step: stepd calls init, create, add for each task
 * (right after fork), signal as needed, is_empty until it says 1, then
 * destroy and fini. All ops return 0 on success, -1 with errno on failure,
 * unless stated otherwise.
 */
#ifndef ARBOR_PROCTRACK_H
#define ARBOR_PROCTRACK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "error.h"
#include "plugin.h"

#define PROCTRACK_TYPE "proctrack"
/* 2: oom_kills added. 3: add_self added. 4: adopt added.
 * 5: constrain_devices added. */
#define PROCTRACK_OPS_VERSION 5

/* The step a container is made for. Borrowed for the create call only. */
struct step_info {
    uint32_t job_id;
    uint32_t step_id;
    uid_t uid; /* owner of the step's processes */
    gid_t gid;
    /* Non-NULL when several nodes share this host (emulation): the
     * container nests under a node_<node> level so nodes do not collide. */
    const char *node;
    uint64_t mem_mb; /* memory limit of the step on this node; 0: none */
};

/* A device a step's processes may not open (ConstrainDevices): the
 * numbers of a device file, as stat(2)'s st_rdev gives them. */
struct proctrack_dev {
    char kind; /* 'c' (character) or 'b' (block) */
    uint32_t major, minor;
};

struct proctrack_ops {
    /* Read config through env (kept, borrowed, until fini) and allocate a
     * ctx in *ctx. Fails (with err) if the host lacks what the plugin
     * needs, e.g. no cgroup filesystem. */
    int (*init) (const struct plugin_env *env, void **ctx, arbor_error_t *err);
    /* Free ctx. Leaves the container and its processes alone. NULL ok. */
    void (*fini) (void *ctx);
    /* Make the step's container. Once per ctx; EEXIST if called twice.
     * An existing container of the same step on the host is reused. */
    int (*create) (void *ctx, const struct step_info *s, arbor_error_t *err);
    /* Put pid in the container. Call it in the parent right after fork,
     * while the child is single-threaded and before it execs (cgroup v1
     * through libcgroup moves the one thread pid; pgid makes pid lead its
     * own process group, which only works before exec). */
    int (*add) (void *ctx, pid_t pid);
    /* Send sig to every process in the container, such that processes
     * forking meanwhile are not missed. Non-stop signals are followed by
     * SIGCONT so stopped tasks act on them. ESRCH-only races are not
     * errors: 0 when nothing was left to signal. */
    int (*signal) (void *ctx, int sig);
    /* 1 if no live process is left in the container, 0 if some are,
     * -1 with errno on error. */
    int (*is_empty) (void *ctx);
    /* Remove the container, and its job's level if that became empty (the
     * user's level above it stays).
     * -1 EBUSY (err says who is left) if processes remain. */
    int (*destroy) (void *ctx, arbor_error_t *err);
    /* The live pids in the container, in *pids (caller frees; NULL when
     * *count is 0). */
    int (*pids) (void *ctx, pid_t **pids, size_t *count);
    /* Processes of the container killed by the kernel's OOM killer since
     * it was made, in *count (cgroup v1 memory.oom_control, v2
     * memory.events: "oom_kill N"). -1 with errno ENOTSUP when the
     * container has no memory accounting (pgid; cgroup without a memory
     * limit or controller; v1 kernels before 4.13), or another errno if
     * the counter cannot be read. stepd compares it with the value right
     * after create to tell an OOM kill from any other SIGKILL. */
    int (*oom_kills) (void *ctx, uint64_t *count);
    /* Optional (NULL: only add works). Put the calling process in the
     * container: called by a freshly born task itself, still root and
     * single threaded, before it execs. The task may share the stepd's
     * memory (clone with CLONE_VM, as posix_spawn does): add_self must
     * only make system calls on its own stack, with no malloc, no lock
     * and no library state written. stepd prefers it to add: on
     * cgroup v1 the kernel moves the caller's one thread (a write of "0"
     * to tasks) without the global threadgroup lock that moving another
     * process takes, whose RCU grace period cost every task milliseconds
     * of wall time. */
    int (*add_self) (void *ctx);
    /* Optional (NULL: the plugin cannot adopt). Move a running process
     * that is not the stepd's child, with all its threads, into the
     * container: the session process of a login that pam_arbor_adopt
     * gives to the job's extern step. pgid leaves it NULL: a process
     * group is not a container, and another process's group cannot be
     * changed once it has exec'd. */
    int (*adopt) (void *ctx, pid_t pid);
    /* Optional (NULL: the plugin cannot constrain devices; pgid). Deny
     * the container's processes, and all their children, every access
     * (read, write, mknod: open(2) fails with EPERM) to the n devices of
     * deny[] (borrowed for the call); other devices stay as they were.
     * Called once, after create and before any process is put in the
     * container; EEXIST if called again. n == 0 is a no-op success. -1
     * with errno and err when the host cannot enforce it (cgroup v1
     * without the devices controller, v2 where bpf(2) is refused): the
     * step must then not run. The constraint lasts as long as the
     * container (destroy removes it with it), whether or not the ctx
     * does: a container adopted after a stepd restart keeps it. */
    int (*constrain_devices) (void *ctx, const struct proctrack_dev *deny,
                              size_t n, arbor_error_t *err);
};

/* Descriptor initializer for a proctrack plugin named 'name_' with ops
 * table 'ops_':
 *   ARBOR_PLUGIN_EXPORT const struct arbor_plugin arbor_plugin =
 *       PROCTRACK_PLUGIN ("cgroup", proctrack_cgroup_ops);
 */
#define PROCTRACK_PLUGIN(name_, ops_)                                     \
    {                                                                     \
        .abi = ARBOR_PLUGIN_ABI, .type = PROCTRACK_TYPE, .name = (name_), \
        .ops_version = PROCTRACK_OPS_VERSION,                             \
        .ops_size = sizeof (struct proctrack_ops), .ops = &(ops_),        \
    }

/* plugin_check_f for proctrack: every op is required but the optional
 * ones (add_self, adopt, constrain_devices). */
int proctrack_ops_check (const void *ops, arbor_error_t *err);

/* Load the ProctrackType 'spec' ("proctrack/cgroup", "cgroup", "pgid"...)
 * from dir (NULL: plugin_default_dir()). pgid is linked in statically and
 * needs no .so. Returns the plugin (plugin_ops() is a struct
 * proctrack_ops), or NULL with errno and err. Free with plugin_unload(). */
struct plugin *proctrack_load (const char *dir, const char *spec,
                               arbor_error_t *err);

/* pgid's descriptor, for static use (tests, stepd without dlopen), is
 * pgid.c's: proctrack_pgid_plugin() in pgid/pgid.h, which comes with this
 * header so that its users (proctrack_load, the tests) need only this one. */
#include "pgid/pgid.h"

#endif
