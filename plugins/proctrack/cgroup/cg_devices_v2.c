/* cg_devices_v2.c - ConstrainDevices on cgroup v2: a device program.
 *
 * cgroup v2 has no devices.deny: the kernel asks the BPF programs of type
 * BPF_PROG_TYPE_CGROUP_DEVICE attached to a process's cgroup (and, with
 * BPF_F_ALLOW_MULTI, to its ancestors) on every open(2) or mknod(2) of a
 * device file; any of them returning 0 makes it fail with EPERM. The
 * kernel consults them on a hybrid host too (after the v1 devices
 * controller's own check), so CgroupVersion=v2 on systemd's unified mount
 * constrains as well.
 *
 * The program is a short array of instructions built here, so no BPF
 * compiler is needed at build time. Its context is struct
 * bpf_cgroup_dev_ctx: access_type (device type in the low 16 bits,
 * BPF_DEVCG_DEV_CHAR or _BLOCK; the access, read/write/mknod, in the high
 * 16, which is ignored: every access is denied), major, minor. Per denied
 * device it compares the three and returns 0 on a match; after the last
 * it returns 1 (allow):
 *
 *     r2 = ctx->access_type & 0xffff; r3 = ctx->major; r4 = ctx->minor
 *     if r2 != type goto next; if r3 != major goto next;
 *     if r4 != minor goto next; r0 = 0; exit
 *   next: ... (one such block per device)
 *     r0 = 1; exit
 *
 * The program's fd is closed right after the attach: the attachment holds
 * the program for as long as the cgroup exists, and the kernel drops both
 * when destroy's rmdir removes the group. So the constraint does not hang
 * on the stepd (a step whose stepd died and was adopted stays
 * constrained), no fd is held that a task could inherit, and there is
 * nothing to detach on destroy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/bpf.h>
#ifdef ARBOR_HAVE_LIBBPF
#include <bpf/bpf.h>
#endif

#include "cg.h"
#include "cg_devices.h"

/* BPF_MAXINSNS: what kernels before 5.2 load, even for root. */
#define CG_DEV_PROG_MAX 4096
#define CG_DEV_LOG_SIZE 1024

static struct bpf_insn cg_insn (uint8_t code, uint8_t dst, uint8_t src,
                                int16_t off, int32_t imm)
{
    struct bpf_insn i = {
        .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm
    };
    return i;
}

/* rDST = *(u32 *)(r1 + off): a field of struct bpf_cgroup_dev_ctx. */
static struct bpf_insn cg_ld_ctx (uint8_t dst, int16_t off)
{
    return cg_insn (BPF_LDX | BPF_MEM | BPF_W, dst, BPF_REG_1, off, 0);
}

/* if rREG != imm goto +off */
static struct bpf_insn cg_jne (uint8_t reg, int32_t imm, int16_t off)
{
    return cg_insn (BPF_JMP | BPF_JNE | BPF_K, reg, 0, off, imm);
}

/* r0 = imm; exit */
static void cg_ret (struct bpf_insn *p, int32_t imm)
{
    p[0] = cg_insn (BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, imm);
    p[1] = cg_insn (BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

size_t cg_devices_prog_len (size_t n)
{
    return 5 * n + 6;
}

size_t cg_devices_prog_build (struct bpf_insn *insns,
                              const struct proctrack_dev *deny, size_t n)
{
    struct bpf_insn *p = insns;

    *p++ = cg_ld_ctx (BPF_REG_2,
                      offsetof (struct bpf_cgroup_dev_ctx, access_type));
    *p++ = cg_insn (BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
    *p++ = cg_ld_ctx (BPF_REG_3, offsetof (struct bpf_cgroup_dev_ctx, major));
    *p++ = cg_ld_ctx (BPF_REG_4, offsetof (struct bpf_cgroup_dev_ctx, minor));
    for (size_t i = 0; i < n; i++) {
        const struct proctrack_dev *d = &deny[i];
        /* the immediates are sign-extended to 64 bits: keep them >= 0 */
        if ((d->kind != 'c' && d->kind != 'b') || d->major > INT32_MAX
            || d->minor > INT32_MAX) {
            errno = EINVAL;
            return 0;
        }
        *p++ = cg_jne (
            BPF_REG_2,
            d->kind == 'c' ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK, 4);
        *p++ = cg_jne (BPF_REG_3, (int32_t)d->major, 3);
        *p++ = cg_jne (BPF_REG_4, (int32_t)d->minor, 2);
        cg_ret (p, 0);
        p += 2;
    }
    cg_ret (p, 1);
    p += 2;
    return (size_t)(p - insns);
}

#ifdef ARBOR_HAVE_LIBBPF

/* Load the program; its fd, or -1 with errno and err. libbpf raises
 * RLIMIT_MEMLOCK to infinity on kernels that charge BPF memory to it
 * (before 5.11): put it back, or every task of the step would inherit
 * the raised limit. The verifier's log, if any, goes to the plugin's. */
static int cg_devices_load (struct cg_ctx *c, const struct bpf_insn *insns,
                            size_t len, arbor_error_t *err)
{
    char log[CG_DEV_LOG_SIZE] = "";
    LIBBPF_OPTS (bpf_prog_load_opts, opts, .log_buf = log,
                 .log_size = sizeof (log));
    struct rlimit saved;
    bool have_saved = getrlimit (RLIMIT_MEMLOCK, &saved) == 0;
    int fd, e;

    fd = bpf_prog_load (BPF_PROG_TYPE_CGROUP_DEVICE, "arbor_devices", "GPL",
                        insns, len, &opts);
    e = errno;
    if (have_saved)
        (void)setrlimit (RLIMIT_MEMLOCK, &saved);
    if (fd >= 0)
        return fd;
    if (log[0])
        plugin_log (c->env, PLUGIN_LOG_ERR, "proctrack/cgroup: verifier: %s",
                    log);
    errno = e;
    return errprintf (err,
                      "proctrack/cgroup: ConstrainDevices: bpf "
                      "BPF_PROG_LOAD (cgroup device program): %s%s",
                      strerror (e),
                      e == EPERM ? " (needs CAP_SYS_ADMIN; a container "
                                   "may refuse bpf)"
                                 : "");
}

int cg_devices_v2 (struct cg_ctx *c, const struct proctrack_dev *deny, size_t n,
                   arbor_error_t *err)
{
    size_t len = cg_devices_prog_len (n);
    struct bpf_insn *insns;
    char path[PATH_MAX * 2];
    int prog = -1, cgfd = -1, rc = -1, e;

    if (len > CG_DEV_PROG_MAX) {
        errno = E2BIG;
        return errprintf (err,
                          "proctrack/cgroup: ConstrainDevices: %zu "
                          "devices to deny, at most %d",
                          n, (CG_DEV_PROG_MAX - 6) / 5);
    }
    if (!(insns = calloc (len, sizeof (*insns))))
        return errprintf (err, "proctrack/cgroup: out of memory");
    if (cg_devices_prog_build (insns, deny, n) != len) {
        errprintf (err, "proctrack/cgroup: ConstrainDevices: bad device "
                        "(kind not 'c' or 'b', or number over 2^31)");
        goto out;
    }
    if (cg_path_join (path, sizeof (path), c->mounts.v2, c->rel, NULL) < 0
        || (cgfd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        errprintf (err, "proctrack/cgroup: %s: %s", path, strerror (errno));
        goto out;
    }
    if ((prog = cg_devices_load (c, insns, len, err)) < 0)
        goto out;
    if (bpf_prog_attach (prog, cgfd, BPF_CGROUP_DEVICE, BPF_F_ALLOW_MULTI)
        < 0) {
        errprintf (err,
                   "proctrack/cgroup: ConstrainDevices: attach the "
                   "device program to %s: %s",
                   c->rel, strerror (errno));
        goto out;
    }
    rc = 0;
out:
    e = errno;
    if (prog >= 0)
        close (prog);
    if (cgfd >= 0)
        close (cgfd);
    free (insns);
    errno = e;
    return rc;
}

#else /* built without libbpf */

int cg_devices_v2 (struct cg_ctx *c, const struct proctrack_dev *deny, size_t n,
                   arbor_error_t *err)
{
    (void)c;
    (void)deny;
    (void)n;
    errno = ENOTSUP;
    return errprintf (err, "proctrack/cgroup: ConstrainDevices on cgroup v2 "
                           "needs a plugin built with libbpf (libbpf-dev)");
}

#endif
