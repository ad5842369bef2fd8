/* cg_devices.h - proctrack/cgroup's device containment (ConstrainDevices):
 * the constrain_devices op of each backend, with struct proctrack_ops's
 * contract (proctrack.h). The interface of one module in two files, one
 * per cgroup version:
 *
 *   cg_devices_v1.c  the step's group in the v1 devices hierarchy, one
 *                    "c MAJ:MIN rwm" line per device in devices.deny
 *   cg_devices_v2.c  a BPF_PROG_TYPE_CGROUP_DEVICE program attached to the
 *                    step's cgroup2 directory (libbpf)
 */
#ifndef ARBOR_PROCTRACK_CG_DEVICES_H
#define ARBOR_PROCTRACK_CG_DEVICES_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct cg_ctx;
struct proctrack_dev;
struct bpf_insn;

/* v1: make the step's group in the devices hierarchy (c->dev_limited
 * then puts every process added later there too) and deny deny[0..n).
 * -1 with errno ENOTSUP and err when the devices controller is not
 * mounted; on any failure the devices group is gone again. */
int cg_devices_v1 (struct cg_ctx *c, const struct proctrack_dev *deny, size_t n,
                   arbor_error_t *err);

/* v2: load the program that denies deny[0..n) and attach it to the
 * step's cgroup. -1 with errno and err when bpf(2) refuses (EPERM: no
 * CAP_SYS_ADMIN/CAP_BPF, or a container's seccomp profile), or ENOTSUP
 * when the plugin was built without libbpf. */
int cg_devices_v2 (struct cg_ctx *c, const struct proctrack_dev *deny, size_t n,
                   arbor_error_t *err);

/* The instructions of that program: 5 per device plus 6, so
 * cg_devices_prog_len (n) of them in insns[] (caller's). Returns the
 * count, or 0 with errno EINVAL for a kind other than 'c' or 'b' or a
 * number the 32-bit immediates cannot hold (> INT32_MAX; Linux's are 12
 * and 20 bits). Pure: unit-tested without root. */
size_t cg_devices_prog_len (size_t n);
size_t cg_devices_prog_build (struct bpf_insn *insns,
                              const struct proctrack_dev *deny, size_t n);

#endif
