/* cg_freeze_test.c - cg_freeze_signal, the freeze-signal-thaw order both
 * cgroup backends share, on a fake freezer: the calls it makes, a group
 * that never freezes, and which failure's errno is kept. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cg.h"

/* What the fake backend does and saw; one test at a time. */
static struct {
    int freeze_rc, pids_errno, thaw_errno;
    int frozen_after; /* is_frozen says 1 from this call on; <0: never */
    pid_t child;
    char calls[256]; /* F freeze, ? is_frozen, P pids, T thaw */
} fake;

static void called (char what)
{
    size_t n = strlen (fake.calls);

    if (n + 1 < sizeof (fake.calls))
        fake.calls[n] = what;
}

static int fake_freeze (struct cg_ctx *c)
{
    (void)c;
    called ('F');
    if (fake.freeze_rc < 0)
        errno = EIO;
    return fake.freeze_rc;
}

static int fake_is_frozen (struct cg_ctx *c)
{
    static int polls;

    (void)c;
    if (strlen (fake.calls) == 1)
        polls = 0;
    called ('?');
    return fake.frozen_after >= 0 && ++polls > fake.frozen_after;
}

static int fake_thaw (struct cg_ctx *c)
{
    (void)c;
    called ('T');
    errno = fake.thaw_errno;
    return fake.thaw_errno ? -1 : 0;
}

static int fake_pids (struct cg_ctx *c, pid_t **pids, size_t *count)
{
    (void)c;
    called ('P');
    if (fake.pids_errno) {
        errno = fake.pids_errno;
        return -1;
    }
    *pids = malloc (sizeof (**pids));
    assert_non_null (*pids);
    (*pids)[0] = fake.child;
    *count = 1;
    return 0;
}

static const struct cg_freezer fake_freezer = {
    .freeze = fake_freeze,
    .is_frozen = fake_is_frozen,
    .thaw = fake_thaw,
    .pids = fake_pids,
};

static int setup (void **state)
{
    memset (&fake, 0, sizeof (fake));
    fake.child = fork ();
    if (fake.child == 0) {
        pause ();
        _exit (0);
    }
    *state = calloc (1, sizeof (struct cg_ctx));
    return fake.child > 0 && *state ? 0 : -1;
}

static int teardown (void **state)
{
    if (fake.child > 0) {
        kill (fake.child, SIGKILL);
        waitpid (fake.child, NULL, 0);
    }
    free (*state);
    return 0;
}

/* The child's end: the signal that killed it, or 0. */
static int child_signal (void)
{
    int st;

    if (waitpid (fake.child, &st, 0) != fake.child)
        return -1;
    fake.child = 0; /* reaped: nothing left for teardown */
    return WIFSIGNALED (st) ? WTERMSIG (st) : 0;
}

static void test_order (void **state)
{
    fake.frozen_after = 2;
    assert_int_equal (cg_freeze_signal (*state, &fake_freezer, SIGTERM), 0);
    assert_string_equal (fake.calls, "F???PT");
    assert_int_equal (child_signal (), SIGTERM);
}

static void test_never_frozen (void **state)
{
    fake.frozen_after = -1;
    assert_int_equal (cg_freeze_signal (*state, &fake_freezer, SIGTERM), 0);
    /* F, a poll every 5 ms from 0 to CG_FREEZE_WAIT_MS, P, T */
    assert_int_equal (strlen (fake.calls), 4 + CG_FREEZE_WAIT_MS / 5);
    assert_int_equal (child_signal (), SIGTERM);
}

static void test_freeze_fails (void **state)
{
    fake.freeze_rc = -1;
    assert_int_equal (cg_freeze_signal (*state, &fake_freezer, SIGTERM), 0);
    assert_string_equal (fake.calls, "FPT");
    assert_int_equal (child_signal (), SIGTERM);
}

static void test_errors (void **state)
{
    fake.pids_errno = ENOENT;
    fake.thaw_errno = EIO;
    errno = 0;
    assert_int_equal (cg_freeze_signal (*state, &fake_freezer, SIGTERM), -1);
    assert_int_equal (errno, ENOENT); /* thaw's failure comes second */
    assert_string_equal (fake.calls, "F?PT");

    memset (fake.calls, 0, sizeof (fake.calls));
    fake.pids_errno = 0;
    errno = 0;
    assert_int_equal (cg_freeze_signal (*state, &fake_freezer, SIGTERM), -1);
    assert_int_equal (errno, EIO);
    assert_int_equal (child_signal (), SIGTERM);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_order, setup, teardown),
        cmocka_unit_test_setup_teardown (test_never_frozen, setup, teardown),
        cmocka_unit_test_setup_teardown (test_freeze_fails, setup, teardown),
        cmocka_unit_test_setup_teardown (test_errors, setup, teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
