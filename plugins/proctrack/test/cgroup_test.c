/* cgroup_test.c - proctrack/cgroup for real, loaded from its .so: make a
 * container on this host, put a sleeper and its double-forked setsid()
 * grandchild in it, check the memory limit, signal, wait until empty and
 * remove it. Runs the v1 backend (freezer + memory via libcgroup) and the
 * v2 backend (cgroup2 files) wherever the host has them; on a hybrid host
 * both. Needs root and a cgroup filesystem: otherwise it says why and
 * exits 77 (ctest: skipped). */
#define _GNU_SOURCE /* pipe2 in proc_helpers.h */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "skip.h"

#include "proctrack.h"
#include "proc_helpers.h"

struct fixture {
    const char *version; /* CgroupVersion given to the plugin */
    char root[64];       /* CgroupRoot: private to this run */
    char mount[256];     /* where the step dir is checked */
    char memmount[256];  /* where memory limits are checked */
    struct plugin *p;
    const struct proctrack_ops *ops;
    struct plugin_env env;
    struct tree last; /* killed by teardown if a test failed */
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
    fprintf (stderr, "# plugin[%d]: %s\n", level, msg);
}

static bool dir_exists (const char *a, const char *b)
{
    char path[1024];
    struct stat sb;

    snprintf (path, sizeof (path), "%s/%s", a, b);
    return stat (path, &sb) == 0 && S_ISDIR (sb.st_mode);
}

static long long read_ll (const char *dir, const char *rel, const char *file)
{
    char path[1024];
    long long v = -1;
    FILE *fp;

    snprintf (path, sizeof (path), "%s/%s/%s", dir, rel, file);
    if ((fp = fopen (path, "r"))) {
        if (fscanf (fp, "%lld", &v) != 1)
            v = -1;
        fclose (fp);
    }
    return v;
}

/* Wait up to 5 s until the container is empty, reaping. */
static int wait_empty (const struct proctrack_ops *ops, void *ctx)
{
    for (int i = 0; i < 500 && ops->is_empty (ctx) == 0; i++) {
        reap_all ();
        sleep_ms (10);
    }
    reap_all ();
    return ops->is_empty (ctx);
}

/* One step's life: create, fill, signal 'sig', empty, destroy. */
static void run_step (struct fixture *f, uint32_t step, int sig,
                      bool stop_first)
{
    struct step_info s = { .job_id = 77,
                           .step_id = step,
                           .uid = 1234,
                           .gid = 1234,
                           .node = "n1",
                           .mem_mb = 64 };
    arbor_error_t err = { "" };
    char rel[256];
    void *ctx = NULL;
    struct tree t;
    pid_t *pids;
    size_t n;
    int go = -1, rep = -1;

    snprintf (rel, sizeof (rel), "%s/node_n1/uid_1234/job_77/step_%u", f->root,
              step);
    if (f->ops->init (&f->env, &ctx, &err) < 0
        || f->ops->create (ctx, &s, &err) < 0)
        fail_msg ("%s", err.text);
    assert_true (dir_exists (f->mount, rel));
    if (f->memmount[0])
        assert_int_equal (read_ll (f->memmount, rel, "memory.limit_in_bytes"),
                          64LL << 20);
    assert_int_equal (f->ops->is_empty (ctx), 1);

    assert_int_equal (tree_spawn (&t, true, &go, &rep), 0);
    assert_int_equal (f->ops->add (ctx, t.child), 0);
    assert_int_equal (tree_go (&t, go, rep), 0);
    f->last = t;
    assert_int_equal (f->ops->pids (ctx, &pids, &n), 0);
    /* The setsid grandchild is still in the container. */
    if (n != 2 || !pids_contain (pids, n, t.child)
        || !pids_contain (pids, n, t.grandchild))
        fail_msg ("%zu pids, want child %d and grandchild %d", n, (int)t.child,
                  (int)t.grandchild);
    free (pids);
    assert_int_equal (f->ops->destroy (ctx, &err), -1);
    assert_int_equal (errno, EBUSY);
    /* The kernel refused the rmdir; what is left is named, nothing went. */
    assert_non_null (strstr (err.text, "processes left"));
    assert_true (dir_exists (f->mount, rel));
    if (f->memmount[0])
        assert_true (dir_exists (f->memmount, rel));

    if (stop_first) {
        assert_int_equal (f->ops->signal (ctx, SIGSTOP), 0);
        for (int i = 0; i < 200 && proc_state (t.grandchild) != 'T'; i++)
            sleep_ms (5);
        assert_int_equal (proc_state (t.grandchild), 'T');
    }
    assert_int_equal (f->ops->signal (ctx, sig), 0);
    assert_int_equal (wait_empty (f->ops, ctx), 1);
    assert_false (proc_alive (t.child));
    assert_false (proc_alive (t.grandchild));
    memset (&f->last, 0, sizeof (f->last)); /* pids may be reused now */

    if (f->ops->destroy (ctx, &err) < 0)
        fail_msg ("%s", err.text);
    assert_false (dir_exists (f->mount, rel));
    f->ops->fini (ctx);
}

/* A task puts itself in the container (add_self, as stepd's tasks do
 * before exec): it is then listed, signalled and gone with the rest. */
static void run_add_self (struct fixture *f)
{
    struct step_info s = {
        .job_id = 77, .step_id = 5, .uid = 1234, .gid = 1234, .node = "n1"
    };
    arbor_error_t err = { "" };
    void *ctx = NULL;
    pid_t *pids, child;
    size_t n;
    int p[2];
    char c = 0;

    assert_non_null (f->ops->add_self);
    if (f->ops->init (&f->env, &ctx, &err) < 0
        || f->ops->create (ctx, &s, &err) < 0)
        fail_msg ("%s", err.text);
    assert_int_equal (pipe (p), 0);
    if ((child = fork ()) == 0) {
        char r = f->ops->add_self (ctx) == 0 ? 'y' : 'n';
        if (write (p[1], &r, 1) != 1)
            _exit (1);
        for (;;)
            pause ();
    }
    close (p[1]);
    assert_int_equal (read (p[0], &c, 1), 1);
    close (p[0]);
    assert_int_equal (c, 'y');
    assert_int_equal (f->ops->pids (ctx, &pids, &n), 0);
    assert_int_equal (n, 1);
    assert_int_equal (pids[0], child);
    free (pids);
    assert_int_equal (f->ops->signal (ctx, SIGKILL), 0);
    assert_int_equal (wait_empty (f->ops, ctx), 1);
    if (f->ops->destroy (ctx, &err) < 0)
        fail_msg ("%s", err.text);
    f->ops->fini (ctx);
}

/* A child that waits for 'go', then touches 64 MB in a 16 MB container:
 * the kernel's OOM killer must SIGKILL it and the counter must rise. */
static void run_oom (struct fixture *f)
{
    struct step_info s = { .job_id = 78,
                           .step_id = 0,
                           .uid = 1234,
                           .gid = 1234,
                           .node = "n1",
                           .mem_mb = 16 };
    arbor_error_t err = { "" };
    uint64_t before = 99, after = 0;
    void *ctx = NULL;
    int go[2], status = 0;
    pid_t pid;

    if (f->ops->init (&f->env, &ctx, &err) < 0
        || f->ops->create (ctx, &s, &err) < 0)
        fail_msg ("%s", err.text);
    if (f->ops->oom_kills (ctx, &before) < 0) {
        fprintf (stderr, "# no OOM counter here: %s\n", strerror (errno));
        assert_int_equal (errno, ENOTSUP);
        f->ops->destroy (ctx, &err);
        f->ops->fini (ctx);
        return;
    }
    assert_int_equal (before, 0);
    assert_int_equal (pipe (go), 0);
    if ((pid = fork ()) == 0) {
        char c;
        close (go[1]);
        if (read (go[0], &c, 1) != 1)
            _exit (1);
        for (size_t i = 0; i < 64; i++) {
            char *p = malloc (1 << 20);
            if (!p)
                _exit (2);
            memset (p, (int)i + 1, 1 << 20);
        }
        _exit (0);
    }
    close (go[0]);
    assert_int_equal (f->ops->add (ctx, pid), 0);
    assert_int_equal (write (go[1], "g", 1), 1);
    close (go[1]);
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFSIGNALED (status));
    assert_int_equal (WTERMSIG (status), SIGKILL);
    assert_int_equal (f->ops->oom_kills (ctx, &after), 0);
    assert_true (after >= 1);
    assert_int_equal (wait_empty (f->ops, ctx), 1);
    if (f->ops->destroy (ctx, &err) < 0)
        fail_msg ("%s", err.text);
    f->ops->fini (ctx);
}

/* rmdir root/node_n1/uid_1234, root/node_n1 and root under 'mount'. */
static void remove_levels (const char *mount, const char *root)
{
    static const char *const rel[] = { "/node_n1/uid_1234", "/node_n1", "" };
    char path[512];

    for (size_t i = 0; i < 3; i++) {
        snprintf (path, sizeof (path), "%s/%s%s", mount, root, rel[i]);
        if (rmdir (path) < 0 && errno != ENOENT)
            fail_msg ("rmdir %s: %s", path, strerror (errno));
    }
}

static void run_version (void **state, const char *version)
{
    struct fixture *f = *state;
    arbor_error_t err = { "" };
    char levels[512];
    void *ctx = NULL;

    f->version = version;
    if (f->ops->init (&f->env, &ctx, &err) < 0) {
        fprintf (stderr, "# cgroup %s: %s\n", version, err.text);
        ARBOR_SKIP ("this cgroup version is not testable here");
    }
    f->ops->fini (ctx);
    if (!strcmp (version, "v1")) {
        snprintf (f->mount, sizeof (f->mount), "/sys/fs/cgroup/freezer");
        snprintf (f->memmount, sizeof (f->memmount), "/sys/fs/cgroup/memory");
    } else {
        /* the v2 mount: unified under hybrid, else /sys/fs/cgroup */
        snprintf (f->mount, sizeof (f->mount), "%s",
                  dir_exists ("/sys/fs/cgroup/unified", ".")
                      ? "/sys/fs/cgroup/unified"
                      : "/sys/fs/cgroup");
        f->memmount[0] = '\0'; /* memory.max only if v2 has memory */
    }
    if (!dir_exists (f->mount, "."))
        ARBOR_SKIP ("the cgroup mount is not there");
    run_step (f, 3, SIGKILL, false);
    run_step (f, 4, SIGTERM, true);
    run_add_self (f);
    run_oom (f);
    /* The job level went with the last step; the user's level stays. */
    snprintf (levels, sizeof (levels), "%s/node_n1/uid_1234/job_77", f->root);
    assert_false (dir_exists (f->mount, levels));
    snprintf (levels, sizeof (levels), "%s/node_n1/uid_1234", f->root);
    assert_true (dir_exists (f->mount, levels));
    remove_levels (f->mount, f->root);
    if (f->memmount[0])
        remove_levels (f->memmount, f->root);
}

/* After a failure, leave no stopped sleeper behind holding ctest's pipe. */
static int teardown (void **state)
{
    struct fixture *f = *state;

    tree_kill (&f->last);
    memset (&f->last, 0, sizeof (f->last));
    return 0;
}

static void test_v1 (void **state)
{
    run_version (state, "v1");
}

static void test_v2 (void **state)
{
    run_version (state, "v2");
}

int main (void)
{
    static struct fixture f;
    arbor_error_t err = { "" };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate_setup_teardown (test_v1, NULL, teardown, &f),
        cmocka_unit_test_prestate_setup_teardown (test_v2, NULL, teardown, &f),
    };
    int rc;

    if (geteuid () != 0) {
        printf ("cgroup_test: skipped: needs root to create cgroups\n");
        return 77;
    }
    if (!dir_exists ("/sys/fs/cgroup", ".")) {
        printf ("cgroup_test: skipped: no /sys/fs/cgroup\n");
        return 77;
    }
    if (!(f.p = proctrack_load (ARBOR_TEST_PLUGIN_DIR, "proctrack/cgroup",
                                &err))) {
        fprintf (stderr, "cgroup_test: %s\n", err.text);
        return 1;
    }
    f.ops = plugin_ops (f.p);
    snprintf (f.root, sizeof (f.root), "arbor-test-%d", (int)getpid ());
    f.env =
        (struct plugin_env){ .arg = &f, .log = env_log, .conf_get = conf_get };
    prctl (PR_SET_CHILD_SUBREAPER, 1);
    rc = cmocka_run_group_tests (tests, NULL, NULL);
    plugin_unload (f.p);
    return arbor_test_exit (rc);
}
