/* pgid_test.c - proctrack/pgid through its static descriptor: a child in
 * its own process group and its grandchild are tracked, signalled and
 * found gone; a setsid() grandchild escapes, as documented. */
#define _GNU_SOURCE /* pipe2 in proc_helpers.h */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "proctrack.h"
#include "proc_helpers.h"

struct fixture {
    struct plugin *p;
    const struct proctrack_ops *ops;
    void *ctx;
    struct tree last; /* killed by teardown if a test failed */
};

static int setup (void **state)
{
    static struct fixture f;
    struct step_info s = {
        .job_id = 5, .step_id = 0, .uid = getuid (), .gid = getgid ()
    };
    arbor_error_t err = { "" };

    memset (&f, 0, sizeof (f));
    if (!(f.p = proctrack_load (NULL, "pgid", &err))) {
        fprintf (stderr, "%s\n", err.text);
        return -1;
    }
    f.ops = plugin_ops (f.p);
    if (f.ops->init (NULL, &f.ctx, &err) < 0
        || f.ops->create (f.ctx, &s, &err) < 0) {
        fprintf (stderr, "%s\n", err.text);
        return -1;
    }
    *state = &f;
    return 0;
}

static int teardown (void **state)
{
    struct fixture *f = *state;

    tree_kill (&f->last);
    f->ops->fini (f->ctx);
    plugin_unload (f->p);
    return 0;
}

/* Wait up to 5 s for is_empty, reaping as we go. */
static int wait_empty (struct fixture *f)
{
    int rc = 0;

    for (int i = 0; i < 500 && (rc = f->ops->is_empty (f->ctx)) == 0; i++) {
        reap_all ();
        sleep_ms (10);
    }
    reap_all ();
    return f->ops->is_empty (f->ctx);
}

static void test_track_and_signal (void **state)
{
    struct fixture *f = *state;
    arbor_error_t err = { "" };
    struct tree t;
    pid_t *pids;
    size_t n;
    int go = -1, rep = -1;

    assert_int_equal (f->ops->is_empty (f->ctx), 1);
    assert_int_equal (tree_spawn (&t, false, &go, &rep), 0);
    assert_int_equal (f->ops->add (f->ctx, t.child), 0);
    assert_int_equal (getpgid (t.child), t.child);
    assert_int_equal (tree_go (&t, go, rep), 0);
    f->last = t;

    assert_int_equal (f->ops->is_empty (f->ctx), 0);
    assert_int_equal (f->ops->pids (f->ctx, &pids, &n), 0);
    assert_true (pids_contain (pids, n, t.child));
    assert_true (pids_contain (pids, n, t.grandchild));
    assert_false (pids_contain (pids, n, getpid ()));
    free (pids);

    assert_int_equal (f->ops->destroy (f->ctx, &err), -1);
    assert_int_equal (errno, EBUSY);
    assert_non_null (strstr (err.text, "processes left"));

    /* Stop them first: SIGTERM must still work, since SIGCONT follows. */
    assert_int_equal (f->ops->signal (f->ctx, SIGSTOP), 0);
    for (int i = 0; i < 200 && proc_state (t.grandchild) != 'T'; i++)
        sleep_ms (5);
    assert_int_equal (proc_state (t.grandchild), 'T');
    assert_int_equal (f->ops->signal (f->ctx, SIGTERM), 0);
    assert_int_equal (wait_empty (f), 1);
    assert_false (proc_alive (t.child));
    assert_false (proc_alive (t.grandchild));
    memset (&f->last, 0, sizeof (f->last)); /* pids may be reused now */
    assert_int_equal (f->ops->destroy (f->ctx, &err), 0);
    /* Signalling an empty step is not an error. */
    assert_int_equal (f->ops->signal (f->ctx, SIGKILL), 0);
}

/* The documented hole: setsid() leaves the process group. */
static void test_setsid_escapes (void **state)
{
    struct fixture *f = *state;
    struct tree t;
    pid_t *pids;
    size_t n;
    int go = -1, rep = -1;

    assert_int_equal (tree_spawn (&t, true, &go, &rep), 0);
    assert_int_equal (f->ops->add (f->ctx, t.child), 0);
    assert_int_equal (tree_go (&t, go, rep), 0);
    f->last = t;
    assert_int_equal (f->ops->pids (f->ctx, &pids, &n), 0);
    assert_true (pids_contain (pids, n, t.child));
    assert_false (pids_contain (pids, n, t.grandchild));
    free (pids);
    assert_int_equal (f->ops->signal (f->ctx, SIGKILL), 0);
    assert_int_equal (wait_empty (f), 1);
    assert_true (proc_alive (t.grandchild)); /* escaped */
    kill (t.grandchild, SIGKILL);
    for (int i = 0; i < 200 && proc_alive (t.grandchild); i++) {
        reap_all ();
        sleep_ms (5);
    }
    reap_all ();
    memset (&f->last, 0, sizeof (f->last));
}

static void test_add_errors (void **state)
{
    struct fixture *f = *state;

    assert_int_equal (f->ops->add (f->ctx, 0), -1);
    assert_int_equal (errno, EINVAL);
    /* pid 1 is not our child: its group cannot be changed by us. */
    if (getpgid (1) != 1) {
        assert_int_equal (f->ops->add (f->ctx, 1), -1);
    }
}

/* No memory accounting for process groups: the OOM counter is ENOTSUP. */
static void test_no_oom_counter (void **state)
{
    struct fixture *f = *state;
    uint64_t n = 42;

    errno = 0;
    assert_int_equal (f->ops->oom_kills (f->ctx, &n), -1);
    assert_int_equal (errno, ENOTSUP);
    assert_int_equal (n, 42);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_track_and_signal),
        cmocka_unit_test (test_setsid_escapes),
        cmocka_unit_test (test_add_errors),
        cmocka_unit_test (test_no_oom_counter),
    };

    /* Orphaned grandchildren come back to us to be reaped. */
    prctl (PR_SET_CHILD_SUBREAPER, 1);
    return cmocka_run_group_tests (tests, setup, teardown);
}
