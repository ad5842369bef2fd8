/* cg.h - internal to proctrack/cgroup: the plugin's state for one step
 * (struct cg_ctx), and its modules' headers, each for one file:
 *
 *   cg_detect.h  host detection, container paths, OOM counters, signalling
 *                a list of pids (pure, unit-tested)
 *   cg_fs.h      interface files and the groups' directories
 *   cg_freeze.h  freeze, signal, thaw
 *   cg_v1.h      the v1 backend (libcgroup)
 *   cg_v2.h      the v2 backend (the cgroup2 files)
 *   cg_devices.h ConstrainDevices: v1 devices.deny (cg_devices_v1.c), v2
 *                a BPF device program (cg_devices_v2.c)
 *
 * cgroup.c, the plugin's ops table, picks a backend per host.
 */
#ifndef ARBOR_PROCTRACK_CG_H
#define ARBOR_PROCTRACK_CG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include "proctrack.h"

#include "cg_detect.h"
#include "cg_devices.h"
#include "cg_freeze.h"
#include "cg_fs.h"
#include "cg_v1.h"
#include "cg_v2.h"

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
    bool mem_limited;     /* the step has a memory limit (v1: it also
                           * lives in the memory hierarchy) */
    struct cgroup *cg;    /* v1: libcgroup handle of the step, made when
                           * needed (a memory limit, adopting a process) */
    bool dev_constrained; /* constrain_devices done (once per ctx) */
    bool dev_limited;     /* v1: the step also lives in the devices
                           * hierarchy (cg_devices_v1.c) */
};

#endif
