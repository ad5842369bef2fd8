/* cg_devices_test.c - ConstrainDevices in proctrack/cgroup, for real.
 *
 * Stand-ins for harmless devices are made with mknod in a temporary
 * directory: null (c 1:3), zero (c 1:5) and full (c 1:7). A step
 * container denies the full stand-in; a process put in it by add, by
 * add_self or by adopt (and its child) must get EPERM opening it (read or
 * write) or making such a node, and must still open the others, while this
 * process, outside, opens all three. Then destroy must leave no group
 * behind, the devices hierarchy's included. Runs on v1 (the devices
 * controller) and v2 (a BPF device program; CgroupVersion=v2 puts it on a
 * hybrid host's unified mount) wherever the host has them: root only, or
 * it says why and skips.
 *
 * Without root: the v2 program's builder (its length, its refusals), the
 * devices mount in the mount table, and pgid's lack of the op.
 */
#define _GNU_SOURCE /* pipe2 in proc_helpers.h */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/bpf.h>
#include <cmocka.h>

#include "skip.h"

#include "proctrack.h"
#include "cg.h"
#include "proc_helpers.h"

/* What one process could do with the stand-ins: 0, or the errno. */
enum { P_NULL, P_ZERO, P_FULL_R, P_FULL_W, P_MKNOD_FULL, P_MKNOD_NULL, P_N };

struct probe {
    int self[P_N];  /* the process in the container */
    int child[P_N]; /* a child it forks afterwards */
};

enum join { JOIN_ADD, JOIN_SELF, JOIN_ADOPT };

struct fixture {
    const char *version; /* CgroupVersion given to the plugin */
    char root[64];       /* CgroupRoot: private to this run */
    char dir[64];        /* the stand-ins */
    struct cg_mounts m;
    struct plugin *p;
    const struct proctrack_ops *ops;
    struct plugin_env env;
};

static const char *conf_get (void *arg, const char *key)
{
    struct fixture *f = arg;

    if (!strcmp (key, "CgroupVersion"))
        return f->version;
    if (!strcmp (key, "CgroupRoot"))
        return f->root;
    return NULL;
}

static void env_log (void *arg, int level, const char *msg)
{
    (void)arg;
    fprintf (stderr, "# plugin[%d]: %s\n", level, msg);
}

static bool dir_exists (const char *a, const char *b)
{
    char path[PATH_MAX * 2 + 2];
    struct stat sb;

    snprintf (path, sizeof (path), "%s/%s", a, b);
    return stat (path, &sb) == 0 && S_ISDIR (sb.st_mode);
}

static int try_open (const char *dir, const char *name, int flags)
{
    char path[256];
    int fd;

    snprintf (path, sizeof (path), "%s/%s", dir, name);
    if ((fd = open (path, flags | O_CLOEXEC)) < 0)
        return errno;
    close (fd);
    return 0;
}

static int try_mknod (const char *dir, const char *name, unsigned minor)
{
    char path[256];

    snprintf (path, sizeof (path), "%s/%s.%d", dir, name, (int)getpid ());
    if (mknod (path, S_IFCHR | 0600, makedev (1, minor)) < 0)
        return errno;
    unlink (path);
    return 0;
}

static void probe_run (const char *dir, int r[P_N])
{
    r[P_NULL] = try_open (dir, "null", O_RDWR);
    r[P_ZERO] = try_open (dir, "zero", O_RDONLY);
    r[P_FULL_R] = try_open (dir, "full", O_RDONLY);
    r[P_FULL_W] = try_open (dir, "full", O_WRONLY);
    r[P_MKNOD_FULL] = try_mknod (dir, "mkfull", 7);
    r[P_MKNOD_NULL] = try_mknod (dir, "mknull", 3);
}

/* In the child, once in the container: probe, fork a grandchild that
 * probes too, and send both to 'out'. */
static void probe_child (const char *dir, int out)
{
    struct probe pr;
    int p[2], status;
    pid_t g;

    memset (&pr, 0xff, sizeof (pr));
    probe_run (dir, pr.self);
    if (pipe (p) < 0)
        _exit (1);
    if ((g = fork ()) == 0) {
        probe_run (dir, pr.child);
        _exit (write (p[1], pr.child, sizeof (pr.child)) == sizeof (pr.child)
                   ? 0
                   : 1);
    }
    close (p[1]);
    if (g < 0 || read (p[0], pr.child, sizeof (pr.child)) != sizeof (pr.child)
        || waitpid (g, &status, 0) != g)
        _exit (1);
    _exit (write (out, &pr, sizeof (pr)) == sizeof (pr) ? 0 : 1);
}

/* Is pid in <rel> of the v1 hierarchy of 'ctrl'? /proc/PID/cgroup has
 * "N:ctrl:/rel" (the mounts here are the hierarchies' roots). */
static bool v1_member (pid_t pid, const char *ctrl, const char *rel)
{
    char path[64], line[1024], want[512];
    bool found = false;
    FILE *fp;

    snprintf (path, sizeof (path), "/proc/%d/cgroup", (int)pid);
    snprintf (want, sizeof (want), ":%s:/%s\n", ctrl, rel);
    if (!(fp = fopen (path, "r")))
        return false;
    while (!found && fgets (line, sizeof (line), fp))
        found = strstr (line, want) != NULL;
    fclose (fp);
    return found;
}

/* Fork a child that joins the container the 'how' way, probes and
 * exits; its findings in *pr. On v1, a child added or adopted is checked
 * to be in the step's devices and memory groups. */
static void probe_in (struct fixture *f, void *ctx, enum join how,
                      const char *rel, struct probe *pr)
{
    int go[2], res[2], status = 0, rc = 0;
    char c;
    pid_t pid;

    assert_int_equal (pipe (go), 0);
    assert_int_equal (pipe (res), 0);
    if ((pid = fork ()) == 0) {
        close (go[1]);
        close (res[0]);
        if (how == JOIN_SELF && f->ops->add_self (ctx) < 0)
            _exit (2);
        if (read (go[0], &c, 1) != 1)
            _exit (1);
        probe_child (f->dir, res[1]);
    }
    assert_true (pid > 0);
    close (go[0]);
    close (res[1]);
    if (how == JOIN_ADD)
        rc = f->ops->add (ctx, pid);
    else if (how == JOIN_ADOPT)
        rc = f->ops->adopt (ctx, pid);
    if (rc < 0)
        kill (pid, SIGKILL);
    assert_int_equal (rc, 0);
    if (how != JOIN_SELF && !strcmp (f->version, "v1")
        && (!v1_member (pid, "devices", rel)
            || (f->m.memory[0] && !v1_member (pid, "memory", rel)))) {
        kill (pid, SIGKILL);
        fail_msg ("pid %d is not in %s's devices and memory groups", (int)pid,
                  rel);
    }
    assert_int_equal (write (go[1], "g", 1), 1);
    close (go[1]);
    assert_int_equal (read (res[0], pr, sizeof (*pr)), sizeof (*pr));
    close (res[0]);
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static void expect_constrained (const int r[P_N], const char *who)
{
    static const int want[P_N] = { 0, 0, EPERM, EPERM, EPERM, 0 };

    for (int i = 0; i < P_N; i++)
        if (r[i] != want[i])
            fail_msg ("%s: probe %d: got %s, want %s", who, i, strerror (r[i]),
                      strerror (want[i]));
}

/* The stand-ins, and whether this process can open them at all (a nodev
 * mount would refuse every device node). */
static bool standins_make (struct fixture *f)
{
    static const struct {
        const char *name;
        unsigned minor;
    } nodes[] = { { "null", 3 }, { "zero", 5 }, { "full", 7 } };
    char path[256];

    snprintf (f->dir, sizeof (f->dir), "/tmp/cg_devices_test.XXXXXX");
    if (!mkdtemp (f->dir))
        return false;
    for (size_t i = 0; i < 3; i++) {
        snprintf (path, sizeof (path), "%s/%s", f->dir, nodes[i].name);
        if (mknod (path, S_IFCHR | 0666, makedev (1, nodes[i].minor)) < 0)
            return false;
    }
    return try_open (f->dir, "full", O_RDWR) == 0;
}

static void standins_remove (struct fixture *f)
{
    static const char *const names[] = { "null", "zero", "full" };
    char path[256];

    if (!f->dir[0])
        return;
    for (size_t i = 0; i < 3; i++) {
        snprintf (path, sizeof (path), "%s/%s", f->dir, names[i]);
        unlink (path);
    }
    rmdir (f->dir);
    f->dir[0] = '\0';
}

/* rmdir root/node_n1/uid_0, root/node_n1 and root under 'mount'. */
static void remove_levels (const char *mount, const char *root)
{
    static const char *const rel[] = { "/node_n1/uid_0", "/node_n1", "" };
    char path[PATH_MAX + 128];

    for (size_t i = 0; i < 3; i++) {
        snprintf (path, sizeof (path), "%s/%s%s", mount, root, rel[i]);
        if (rmdir (path) < 0 && errno != ENOENT)
            fail_msg ("rmdir %s: %s", path, strerror (errno));
    }
}

/* Where the step's groups are: v1 freezer and devices, or v2's one. */
static void step_mounts (struct fixture *f, const char **a, const char **b)
{
    bool v1 = !strcmp (f->version, "v1");

    *a = v1 ? f->m.freezer : f->m.v2;
    *b = v1 ? f->m.devices : NULL;
}

/* The host refused the mechanism, naming why (the step would not run):
 * clean up and skip. */
static void refused (struct fixture *f, void *ctx, const char *why)
{
    arbor_error_t err = { "" };
    const char *a, *b;

    step_mounts (f, &a, &b);
    assert_true (why[0] != '\0');
    if (f->ops->destroy (ctx, &err) < 0)
        fail_msg ("%s", err.text);
    f->ops->fini (ctx);
    remove_levels (a, f->root);
    if (b)
        remove_levels (b, f->root);
    standins_remove (f);
    ARBOR_SKIP ("device containment refused on this host");
}

/* The misuses (a bad kind, which leaves no devices group behind on v1;
 * n == 0), then the real call and a second one (EEXIST). 0, or -1 with
 * err when the host refused the mechanism itself (bpf EPERM, no devices
 * controller...): the caller cleans up and skips. */
static int run_constrain (struct fixture *f, void *ctx, const char *rel,
                          arbor_error_t *err)
{
    const struct proctrack_dev bad = { 'x', 1, 7 }, full = { 'c', 1, 7 };
    const char *a, *b;

    step_mounts (f, &a, &b);
    assert_int_equal (f->ops->constrain_devices (ctx, &bad, 1, err), -1);
    assert_int_equal (errno, EINVAL);
    fprintf (stderr, "# bad kind: %s\n", err->text);
    if (b)
        assert_false (dir_exists (b, rel));
    assert_int_equal (f->ops->constrain_devices (ctx, NULL, 0, err), 0);
    if (f->ops->constrain_devices (ctx, &full, 1, err) < 0) {
        fprintf (stderr, "# %s %s: %s\n", f->version, strerror (errno),
                 err->text);
        assert_true (errno == EPERM || errno == ENOTSUP || errno == EACCES);
        return -1;
    }
    assert_int_equal (f->ops->constrain_devices (ctx, &full, 1, err), -1);
    assert_int_equal (errno, EEXIST);
    return 0;
}

/* One step: create, constrain (the misuses on the way), three children
 * joining three ways, destroy, nothing left. With a memory limit, so that
 * v1's attach handle made at create (freezer + memory) is replaced by one
 * with devices. */
static void run_devices (struct fixture *f)
{
    struct step_info s = { .job_id = 79,
                           .step_id = 2,
                           .uid = 0,
                           .gid = 0,
                           .node = "n1",
                           .mem_mb = 256 };
    const struct proctrack_dev full = { 'c', 1, 7 };
    arbor_error_t err = { "" };
    const char *a, *b;
    char rel[320], job[256];
    struct probe pr;
    int out[P_N];
    void *ctx = NULL;

    step_mounts (f, &a, &b);
    snprintf (job, sizeof (job), "%s/node_n1/uid_0/job_79", f->root);
    snprintf (rel, sizeof (rel), "%s/step_2", job);
    if (f->ops->init (&f->env, &ctx, &err) < 0)
        fail_msg ("%s", err.text);
    assert_int_equal (f->ops->constrain_devices (ctx, &full, 1, &err), -1);
    assert_int_equal (errno, EINVAL); /* before create */
    if (f->ops->create (ctx, &s, &err) < 0)
        fail_msg ("%s", err.text);
    if (run_constrain (f, ctx, rel, &err) < 0) {
        refused (f, ctx, err.text);
        return;
    }
    if (b)
        assert_true (dir_exists (b, rel));

    probe_in (f, ctx, JOIN_ADD, rel, &pr);
    expect_constrained (pr.self, "added");
    expect_constrained (pr.child, "added's child");
    probe_in (f, ctx, JOIN_SELF, rel, &pr);
    expect_constrained (pr.self, "add_self");
    expect_constrained (pr.child, "add_self's child");
    probe_in (f, ctx, JOIN_ADOPT, rel, &pr);
    expect_constrained (pr.self, "adopted");
    expect_constrained (pr.child, "adopted's child");
    probe_run (f->dir, out); /* outside: everything */
    for (int i = 0; i < P_N; i++)
        assert_int_equal (out[i], 0);

    assert_int_equal (f->ops->is_empty (ctx), 1);
    if (f->ops->destroy (ctx, &err) < 0)
        fail_msg ("%s", err.text);
    assert_false (dir_exists (a, rel));
    assert_false (dir_exists (a, job)); /* the job level went too */
    if (b) {
        assert_false (dir_exists (b, rel));
        assert_false (dir_exists (b, job));
    }
    if (b && f->m.memory[0])
        assert_false (dir_exists (f->m.memory, job));
    f->ops->fini (ctx);
    remove_levels (a, f->root);
    if (b)
        remove_levels (b, f->root);
    if (b && f->m.memory[0])
        remove_levels (f->m.memory, f->root);
}

static void run_version (void **state, const char *version)
{
    struct fixture *f = *state;
    arbor_error_t err = { "" };
    void *ctx = NULL;

    if (geteuid () != 0)
        ARBOR_SKIP ("needs root to create cgroups");
    if (!f->p)
        fail_msg ("proctrack_cgroup.so did not load");
    f->version = version;
    if (f->ops->init (&f->env, &ctx, &err) < 0) {
        fprintf (stderr, "# cgroup %s: %s\n", version, err.text);
        ARBOR_SKIP ("this cgroup version is not testable here");
    }
    f->ops->fini (ctx);
    if (!standins_make (f)) {
        standins_remove (f);
        ARBOR_SKIP ("cannot make or open device nodes under /tmp");
    }
    run_devices (f);
    standins_remove (f);
}

static void test_v1 (void **state)
{
    run_version (state, "v1");
}

static void test_v2 (void **state)
{
    run_version (state, "v2");
}

/* After a failure, leave no group of this run behind (every probing
 * child has been reaped by then, so the groups are empty). */
static int teardown (void **state)
{
    static const char *const rel[] = { "/node_n1/uid_0/job_79/step_2",
                                       "/node_n1/uid_0/job_79",
                                       "/node_n1/uid_0", "/node_n1", "" };
    struct fixture *f = *state;
    const char *mounts[] = { f->m.freezer, f->m.devices, f->m.memory, f->m.v2 };
    char path[PATH_MAX + 128];

    standins_remove (f);
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; mounts[i][0] && j < 5; j++) {
            snprintf (path, sizeof (path), "%s/%s%s", mounts[i], f->root,
                      rel[j]);
            (void)rmdir (path);
        }
    return 0;
}

/* The v2 program: 4 loads, 5 instructions a device, 2 to allow. */
static void test_prog_build (void **state)
{
    const struct proctrack_dev devs[] = { { 'c', 195, 0 }, { 'b', 8, 16 } };
    struct proctrack_dev bad = { 'c', 1, 7 };
    struct bpf_insn insns[16];

    (void)state;
    assert_int_equal (cg_devices_prog_len (2), 16);
    assert_int_equal (cg_devices_prog_build (insns, devs, 2), 16);
    assert_int_equal (insns[4].imm, BPF_DEVCG_DEV_CHAR);
    assert_int_equal (insns[4].off, 4); /* to the next device's block */
    assert_int_equal (insns[5].imm, 195);
    assert_int_equal (insns[9].imm, BPF_DEVCG_DEV_BLOCK);
    assert_int_equal (insns[11].imm, 16);
    assert_int_equal (insns[12].imm, 0); /* deny */
    assert_int_equal (insns[14].imm, 1); /* allow */
    assert_int_equal (insns[15].code, BPF_JMP | BPF_EXIT);
    assert_int_equal (cg_devices_prog_build (insns, NULL, 0), 6);
    bad.kind = 'p';
    errno = 0;
    assert_int_equal (cg_devices_prog_build (insns, &bad, 1), 0);
    assert_int_equal (errno, EINVAL);
    bad.kind = 'c';
    bad.major = (uint32_t)INT32_MAX + 1;
    assert_int_equal (cg_devices_prog_build (insns, &bad, 1), 0);
}

static void test_mounts_devices (void **state)
{
    const char *hybrid = "cgroup /sys/fs/cgroup/devices cgroup rw,devices 0 0\n"
                         "cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n";
    struct cg_mounts m;

    (void)state;
    assert_int_equal (cg_mounts_parse (hybrid, &m), 0);
    assert_string_equal (m.devices, "/sys/fs/cgroup/devices");
    assert_int_equal (
        cg_mounts_parse ("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n", &m), 0);
    assert_string_equal (m.devices, "");
}

static void test_pgid_has_no_op (void **state)
{
    arbor_error_t err = { "" };
    struct plugin *p = proctrack_load (NULL, "pgid", &err);
    const struct proctrack_ops *ops;

    (void)state;
    assert_non_null (p);
    ops = plugin_ops (p);
    assert_null (ops->constrain_devices);
    plugin_unload (p);
}

/* The host's mount table, for where to look. */
static void read_mounts (struct cg_mounts *m)
{
    char buf[65536];
    size_t n = 0;
    FILE *fp = fopen ("/proc/self/mounts", "r");

    if (fp) {
        n = fread (buf, 1, sizeof (buf) - 1, fp);
        fclose (fp);
    }
    buf[n] = '\0';
    (void)cg_mounts_parse (buf, m);
}

int main (void)
{
    static struct fixture f;
    arbor_error_t err = { "" };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_prog_build),
        cmocka_unit_test (test_mounts_devices),
        cmocka_unit_test (test_pgid_has_no_op),
        cmocka_unit_test_prestate_setup_teardown (test_v1, NULL, teardown, &f),
        cmocka_unit_test_prestate_setup_teardown (test_v2, NULL, teardown, &f),
    };
    int rc;

    read_mounts (&f.m);
    if (geteuid () == 0
        && !(f.p = proctrack_load (ARBOR_TEST_PLUGIN_DIR, "proctrack/cgroup",
                                   &err)))
        fprintf (stderr, "# cg_devices_test: %s\n", err.text);
    if (f.p)
        f.ops = plugin_ops (f.p);
    snprintf (f.root, sizeof (f.root), "arbor-devtest-%d", (int)getpid ());
    f.env =
        (struct plugin_env){ .arg = &f, .log = env_log, .conf_get = conf_get };
    rc = cmocka_run_group_tests (tests, NULL, NULL);
    if (f.p)
        plugin_unload (f.p);
    return arbor_test_exit (rc);
}
