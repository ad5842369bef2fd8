/* jobstate_test.c - unit tests for the one place a job's state changes
 * (ctld/job/jobstate.c): legal transitions take effect, illegal ones are
 * refused with nothing changed, and a transition marks the job for the
 * durable commit and asks for a scheduling pass exactly as often as it
 * should (once, or not at all). persist_job and sched_request are
 * counted through the linker's --wrap (see ctld/CMakeLists.txt). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctld.h"
#include "error.h"
#include "fixture.h"
#include "job/events.h"
#include "job/job.h"
#include "job/jobstate.h"
#include "proto.h"
#include "sched/sched.h"
#include "states.h"
#include "sched/sched_wake.h"

static const char conf_text[] = FIXTURE_CONF_N4;

static struct outbox outbox;

static struct fixture_spec spec = {
    .conf_text = conf_text,
    .out = &outbox,
};

/* ---- counting the commit and the scheduler ------------------------------ */

static unsigned commits, passes;

void __real_persist_job (const struct ctld *ctx, struct job *j);
void __real_sched_request (struct ctld *ctx);
void __wrap_persist_job (const struct ctld *ctx, struct job *j);
void __wrap_sched_request (struct ctld *ctx);

void __wrap_persist_job (const struct ctld *ctx, struct job *j)
{
    commits++;
    __real_persist_job (ctx, j);
}

void __wrap_sched_request (struct ctld *ctx)
{
    passes++;
    __real_sched_request (ctx);
}

static void counts_reset (void)
{
    commits = passes = 0;
}

/* ---- jobs to play with -------------------------------------------------- */

static struct job *running_job (struct ctld *ctx)
{
    struct msg_job_alloc r = { .ntasks = 1 };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, getuid (), &err);

    assert_non_null (j);
    assert_int_equal (j->state, JOB_RUNNING);
    return j;
}

/* A job waiting behind a running one (all four nodes, exclusive). */
static struct job *pending_job (struct ctld *ctx)
{
    struct msg_job_alloc r = { .nnodes = 4, .exclusive = true };
    arbor_error_t err;
    struct job *j;

    (void)running_job (ctx);
    assert_non_null (j = fixture_submit (ctx, &r, getuid (), &err));
    assert_int_equal (j->state, JOB_PENDING);
    return j;
}

/* Post 'ev', expect it refused and j untouched. */
static void expect_refused (struct ctld *ctx, struct job *j,
                            enum jobstate_ev ev)
{
    enum job_state before = j->state;
    uint32_t nevents = j->nevents;
    bool completing = j->completing;

    counts_reset ();
    assert_false (jobstate_legal (j, ev));
    errno = 0;
    assert_int_equal (jobstate_post (ctx, j, ev, NULL), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (j->state, before);
    assert_int_equal (j->completing, completing);
    assert_int_equal (j->nevents, nevents);
    assert_int_equal (commits, 0);
    assert_int_equal (passes, 0);
}

/* ---- tests -------------------------------------------------------------- */

static void test_illegal_pending (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = pending_job (ctx);

    expect_refused (ctx, j, JS_TIMEOUT);
    expect_refused (ctx, j, JS_SUSPEND);
    expect_refused (ctx, j, JS_RESUME);
    expect_refused (ctx, j, JS_BATCH_DONE);
    expect_refused (ctx, j, JS_PROLOG_DONE);
    expect_refused (ctx, j, JS_EPILOG_DONE);
    expect_refused (ctx, j, JS_REQUEUE);
    expect_refused (ctx, j, JS_PURGE);
}

static void test_illegal_running (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = running_job (ctx);

    expect_refused (ctx, j, JS_SUBMIT);
    expect_refused (ctx, j, JS_HOLD);
    expect_refused (ctx, j, JS_ALLOCATE);
    expect_refused (ctx, j, JS_EPILOG_DONE);
    expect_refused (ctx, j, JS_PURGE);
}

static void test_hold_release (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = pending_job (ctx);
    struct jobstate_arg a = { .has_who = true, .who = getuid () };

    counts_reset ();
    assert_int_equal (jobstate_post (ctx, j, JS_HOLD, &a), JOB_PENDING);
    assert_true (j->held);
    assert_string_equal (j->reason, "JobHeldUser");
    assert_int_equal (commits, 1);
    assert_int_equal (passes, 0); /* nothing more can start */
    assert_non_null (strstr (j->events[j->nevents - 1].text, "held by"));

    counts_reset ();
    assert_int_equal (jobstate_post (ctx, j, JS_RELEASE, &a), JOB_PENDING);
    assert_false (j->held);
    assert_int_equal (commits, 1);
    assert_int_equal (passes, 1);
}

static void test_cancel_pending_once (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = pending_job (ctx);
    uint32_t nevents = j->nevents;

    counts_reset ();
    assert_int_equal (jobstate_post (ctx, j, JS_CANCEL, NULL), JOB_CANCELLED);
    assert_false (j->completing); /* it never ran */
    assert_int_equal (commits, 1);
    assert_int_equal (passes, 1);
    assert_int_equal (j->nevents, nevents + 1); /* "ended CANCELLED" */
    expect_refused (ctx, j, JS_CANCEL);
}

static void test_end_running_completing (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = running_job (ctx);

    counts_reset ();
    assert_int_equal (jobstate_post (ctx, j, JS_DONE, NULL), JOB_COMPLETED);
    assert_true (j->completing);
    assert_int_equal (passes, 1);
    assert_true (commits >= 1);
    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 1);
    expect_refused (ctx, j, JS_PURGE); /* not while completing */
    assert_int_equal (fixture_epilogs (ctx, j), 1);
    assert_false (j->completing); /* JS_EPILOG_DONE was posted */
    assert_int_equal (j->state, JOB_COMPLETED);
    expect_refused (ctx, j, JS_EPILOG_DONE);
    assert_true (jobstate_legal (j, JS_PURGE));
}

static void test_exit_policy (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = running_job (ctx);
    struct jobstate_arg node = { .step_id = 0, .node = "n1", .rc = 7 };
    struct jobstate_arg launcher = { .step_id = 0, .rc = 3, .signal = 0 };
    struct jobstate_arg complete = { .rc = 0 };

    /* a node's report says only whether a task was OOM-killed */
    assert_int_equal (jobstate_post (ctx, j, JS_STEP_DONE, &node), JOB_RUNNING);
    assert_int_equal (j->exit_rc, 0);
    /* the launcher's exit code is the allocation's */
    assert_int_equal (jobstate_post (ctx, j, JS_STEP_DONE, &launcher),
                      JOB_RUNNING);
    assert_int_equal (j->exit_rc, 3);
    /* the highest wins; JOB_COMPLETE with rc 0 still ends it COMPLETED */
    assert_int_equal (jobstate_post (ctx, j, JS_COMPLETE, &complete),
                      JOB_COMPLETED);
    assert_int_equal (j->exit_rc, 3);
    /* an OOM kill reported while completing names the end */
    node.oom = true;
    assert_int_equal (jobstate_post (ctx, j, JS_STEP_DONE, &node),
                      JOB_OUT_OF_MEMORY);
}

static void test_complete_pending_cancels (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = pending_job (ctx);
    struct jobstate_arg a = { .rc = 0 };

    assert_int_equal (jobstate_post (ctx, j, JS_COMPLETE, &a), JOB_CANCELLED);
}

static void test_suspend_resume (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = running_job (ctx);

    outbox_clear (&outbox);
    counts_reset ();
    assert_int_equal (jobstate_post (ctx, j, JS_SUSPEND, NULL), JOB_RUNNING);
    assert_true (j->suspended);
    assert_int_equal (commits, 1);
    assert_int_equal (passes, 0);
    assert_int_equal (outbox_count (&outbox, MSG_STEP_KILL), 1);
    assert_int_equal (jobstate_post (ctx, j, JS_RESUME, NULL), JOB_RUNNING);
    assert_false (j->suspended);
    assert_int_equal (outbox_count (&outbox, MSG_STEP_KILL), 2);
}

static void test_timeout_node_fail (void **state)
{
    struct ctld *ctx = *state;
    struct job *a = running_job (ctx), *b = running_job (ctx);
    struct jobstate_arg why = { .reason = "TimeLimit" };

    assert_int_equal (jobstate_post (ctx, a, JS_TIMEOUT, &why), JOB_TIMEOUT);
    assert_string_equal (a->reason, "TimeLimit");
    assert_int_equal (jobstate_post (ctx, b, JS_NODE_FAIL, NULL),
                      JOB_NODE_FAIL);
    assert_false (b->requeue_pending); /* not a batch job */
}

int main (void)
{
#define T(f) FIXTURE_TEST (f, &spec)
    const struct CMUnitTest tests[] = {
        T (test_illegal_pending),
        T (test_illegal_running),
        T (test_hold_release),
        T (test_cancel_pending_once),
        T (test_end_running_completing),
        T (test_exit_policy),
        T (test_complete_pending_cancels),
        T (test_suspend_resume),
        T (test_timeout_node_fail),
    };
#undef T

    return cmocka_run_group_tests (tests, NULL, NULL);
}
