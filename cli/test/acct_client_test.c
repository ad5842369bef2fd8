/* acct_client_test.c - client_acct_query over a socketpair: the answer's
 * frames are gathered until one says no more, frames of other tags are
 * passed over, an RC answer is an error, a record that does not decode
 * is EPROTO; the records come back decoded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "client_pair.h"

/* An encoded record of 'type' as one BINLIST element. */
static struct proto_bin record (int type, const void *msg)
{
    struct proto_bin b;
    size_t len;

    assert_int_equal (proto_encode (type, msg, &b.data, &len), 0);
    b.len = (uint32_t)len;
    return b;
}

static void send_reply (struct pair *p, uint32_t tag, struct proto_bin *jobs,
                        uint32_t njobs, struct proto_bin *steps,
                        uint32_t nsteps, bool more)
{
    struct msg_acct_reply r = { .jobs = jobs,
                                .jobs_count = njobs,
                                .steps = steps,
                                .steps_count = nsteps,
                                .more = more };
    arbor_error_t err;

    assert_int_equal (rpc_send (&p->srv, MSG_ACCT_REPLY, tag, &r, &err), 0);
}

static void test_frames (void **state)
{
    struct pair *p = *state;
    struct msg_acct_job j1 = { .job_id = 5, .state = "COMPLETED" };
    struct msg_acct_job j2 = { .job_id = 6, .state = "RUNNING", .user = "bob" };
    struct msg_acct_step s1 = { .job_id = 5,
                                .step_id = STEP_ID_BATCH,
                                .name = "batch",
                                .max_rss_kb = 1180 };
    struct proto_bin jobs[2] = { record (MSG_ACCT_JOB, &j1),
                                 record (MSG_ACCT_JOB, &j2) };
    struct proto_bin steps[1] = { record (MSG_ACCT_STEP, &s1) };
    uint32_t ids[1] = { 5 };
    struct msg_acct_query q = { .job_ids = ids,
                                .job_ids_count = 1,
                                .events = true };
    struct acct_result res;
    union msg_any got;
    arbor_error_t err;
    int type;
    uid_t uid;

    /* The whole answer is written before the request is made: the
     * first tag the client uses is 1. */
    send_reply (p, 1, jobs, 1, NULL, 0, true);
    send_reply (p, 99, jobs, 2, NULL, 0, false); /* not ours: passed over */
    send_reply (p, 1, &jobs[1], 1, NULL, 0, true);
    send_reply (p, 1, NULL, 0, steps, 1, false);
    assert_int_equal (client_acct_query (&p->cl, &q, &res, &err), 0);
    assert_int_equal (res.njobs, 2);
    assert_int_equal (res.jobs[0].job_id, 5);
    assert_string_equal (res.jobs[0].state, "COMPLETED");
    assert_int_equal (res.jobs[1].job_id, 6);
    assert_string_equal (res.jobs[1].user, "bob");
    assert_int_equal (res.nsteps, 1);
    assert_int_equal (res.steps[0].step_id, STEP_ID_BATCH);
    assert_int_equal (res.steps[0].max_rss_kb, 1180);
    client_acct_clear (&res);
    assert_int_equal (res.njobs, 0);
    /* the request as the controller got it */
    assert_int_equal (rpc_recv (&p->srv, 1000, &type, &got, &uid, &err), 0);
    assert_int_equal (type, MSG_ACCT_QUERY);
    assert_int_equal (got.acct_query.job_ids_count, 1);
    assert_int_equal (got.acct_query.job_ids[0], 5);
    assert_true (got.acct_query.events);
    proto_clear (type, &got);
    free (jobs[0].data);
    free (jobs[1].data);
    free (steps[0].data);
}

static void test_errors (void **state)
{
    struct pair *p = *state;
    struct msg_rc rc = { .errnum = EPERM, .text = "Access/permission denied" };
    struct msg_acct_job j1 = { .job_id = 5 };
    struct proto_bin good = record (MSG_ACCT_JOB, &j1);
    struct proto_bin bad[2] = { good, { .data = "\xc1junk", .len = 5 } };
    struct msg_acct_query q = { 0 };
    struct acct_result res;
    arbor_error_t err;

    assert_int_equal (rpc_send (&p->srv, MSG_RC, 1, &rc, &err), 0);
    assert_int_equal (client_acct_query (&p->cl, &q, &res, &err), -1);
    assert_int_equal (errno, EPERM);
    assert_string_equal (err.text, "Access/permission denied");
    assert_int_equal (res.njobs, 0);
    /* a record that does not decode: nothing is kept */
    send_reply (p, 2, bad, 2, NULL, 0, false);
    assert_int_equal (client_acct_query (&p->cl, &q, &res, &err), -1);
    assert_int_equal (errno, EPROTO);
    assert_non_null (strstr (err.text, "bad accounting record"));
    assert_int_equal (res.njobs, 0);
    assert_null (res.jobs);
    /* a plain success RC: an empty answer */
    rc.errnum = 0;
    rc.text = "";
    assert_int_equal (rpc_send (&p->srv, MSG_RC, 3, &rc, &err), 0);
    assert_int_equal (client_acct_query (&p->cl, &q, &res, &err), 0);
    assert_int_equal (res.njobs, 0);
    free (good.data);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_frames, pair_setup,
                                         pair_teardown),
        cmocka_unit_test_setup_teardown (test_errors, pair_setup,
                                         pair_teardown),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
