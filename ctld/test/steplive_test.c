/* steplive_test.c - the controller's word on whether a step is live
 * (STEP_LIVE, asked by a noded that cannot vouch for a credential: issue
 * 32 item 8), and the nodes' step reports of a job whose share on the
 * node is over, refused. Requests go through serve_request on a
 * socketpair conn, as from a noded. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctld.h"
#include "fixture.h"
#include "job/job.h"
#include "nodes/node.h"
#include "proto.h"
#include "states.h"
#include "job/step.h"
#include "job/term.h"

static const char conf_text[] = FIXTURE_CONF_N4;

#define PRIV_UID 999
#define NODED_UID 998
#define USER_UID 4242

static struct outbox outbox;

static struct fixture_spec spec = {
    .conf_text = conf_text,
    .out = &outbox,
    .priv_uid = PRIV_UID,
    .noded_uid = NODED_UID,
};

/* Send 'msg' as 'uid' on a fresh conn: the RC's errnum, its text in
 * 'text'. */
static int rc_of (struct ctld *ctx, int type, const void *msg, uid_t uid,
                  char *text, size_t len)
{
    int peer, rtype = -1, errnum;
    struct conn *c = fixture_conn (ctx, &peer);
    union msg_any a;

    assert_non_null (c);
    fixture_request (ctx, c, type, msg, uid);
    assert_int_equal (fixture_answer (ctx, peer, &rtype, &a, NULL), 0);
    assert_int_equal (rtype, MSG_RC);
    errnum = a.rc.errnum;
    snprintf (text, len, "%s", a.rc.text ? a.rc.text : "");
    proto_clear (MSG_RC, &a);
    conn_destroy (c);
    close (peer);
    return errnum;
}

static int live (struct ctld *ctx, uint32_t job, uint32_t step, uint32_t run,
                 const char *node, uid_t uid, char *text)
{
    struct msg_step_live m = {
        .job_id = job, .step_id = step, .restarts = run, .node = (char *)node
    };

    return rc_of (ctx, MSG_STEP_LIVE, &m, uid, text, 200);
}

static int report (struct ctld *ctx, uint32_t job, uint32_t step,
                   const char *node, char *text)
{
    struct msg_step_complete m = { .job_id = job,
                                   .step_id = step,
                                   .node = (char *)node };

    return rc_of (ctx, MSG_STEP_COMPLETE, &m, 0, text, 200);
}

/* A running two-node job of USER_UID with step 0 on both nodes; their
 * names in n0, n1. */
static struct job *job_with_step (struct ctld *ctx, const char **n0,
                                  const char **n1)
{
    struct msg_job_alloc r = { .nnodes = 2, .cpus_per_task = 1 };
    struct msg_step_create s = { .cpus_per_task = 1, .nnodes = 2 };
    struct msg_step_created out;
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, USER_UID, &err);

    assert_non_null (j);
    assert_int_equal (j->state, JOB_RUNNING);
    s.job_id = j->id;
    assert_int_equal (step_create (ctx, j, &s, USER_UID, USER_UID, &out, &err),
                      0);
    assert_int_equal (out.step_id, 0);
    proto_clear (MSG_STEP_CREATED, &out);
    *n0 = ctx->nodes[j->nodes[0].node].name;
    *n1 = ctx->nodes[j->nodes[1].node].name;
    return j;
}

static void test_live_step (void **state)
{
    struct ctld *ctx = *state;
    const char *n0, *n1;
    struct job *j = job_with_step (ctx, &n0, &n1);
    char text[200];

    /* the nodeds' uids may ask, and hear it is live */
    assert_int_equal (live (ctx, j->id, 0, 0, n0, 0, text), 0);
    assert_int_equal (live (ctx, j->id, 0, 0, n1, NODED_UID, text), 0);
    assert_int_equal (live (ctx, j->id, 0, 0, n1, PRIV_UID, text), 0);
    /* a user may not, not even the job's owner */
    assert_int_equal (live (ctx, j->id, 0, 0, n0, USER_UID, text), EPERM);
    assert_non_null (strstr (text, "only the node daemons"));
    /* what is not live, and why */
    assert_int_equal (live (ctx, j->id + 100, 0, 0, n0, 0, text), ENOENT);
    assert_int_equal (live (ctx, j->id, 1, 0, n0, 0, text), EPERM);
    assert_non_null (strstr (text, "is not running"));
    assert_int_equal (live (ctx, j->id, 0, 1, n0, 0, text), EPERM);
    assert_non_null (strstr (text, "run 1 of job"));
    assert_int_equal (live (ctx, j->id, 0, 0, "n9", 0, text), EPERM);
    assert_non_null (strstr (text, "n9 is not a node of step"));
    /* a node whose share has ended: not live there, still on the other */
    assert_int_equal (report (ctx, j->id, 0, n0, text), 0);
    assert_int_equal (live (ctx, j->id, 0, 0, n0, 0, text), EPERM);
    assert_non_null (strstr (text, "has ended on"));
    assert_int_equal (live (ctx, j->id, 0, 0, n1, 0, text), 0);
    /* the job's end ends them all */
    job_end (ctx, j, JOB_COMPLETED, NULL);
    assert_int_equal (live (ctx, j->id, 0, 0, n1, 0, text), EPERM);
    if (!strstr (text, "is COMPLETING") && !strstr (text, "is COMPLETED"))
        fail_msg ("'%s' does not say the job ended", text);
}

/* A node's report of a step of an ended job is taken while it may still
 * be on its way: the node's share still ending, or the job just ended (a
 * noded relays a stepd's report apart from the job's EPILOG_COMPLETE,
 * which may come first). Long after, once the node's share is over, it is
 * refused: nothing of the job has run there since, so the report is of a
 * step launched outside it (a replayed launch). */
static void test_report_after_job_end (void **state)
{
    struct ctld *ctx = *state;
    const char *n0, *n1;
    struct job *j = job_with_step (ctx, &n0, &n1);
    char text[200];

    job_end (ctx, j, JOB_COMPLETED, NULL);
    assert_true (j->completing);
    assert_int_equal (report (ctx, j->id, 0, n0, text), 0);
    assert_int_equal (fixture_epilogs (ctx, j), 2);
    assert_false (j->completing);
    /* just after: a relayed report behind the EPILOG_COMPLETE */
    assert_int_equal (report (ctx, j->id, 0, n1, text), 0);
    /* an hour later */
    j->end_time -= 3600;
    assert_int_equal (report (ctx, j->id, 0, n1, text), EPERM);
    assert_non_null (strstr (text, "holds nothing of it"));
    assert_int_equal (report (ctx, j->id, 0, n0, text), EPERM);
    /* the launcher's own word (no node) is answered as before */
    assert_int_equal (report (ctx, j->id, 0, "", text), 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST (test_live_step, &spec),
        FIXTURE_TEST (test_report_after_job_end, &spec),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
