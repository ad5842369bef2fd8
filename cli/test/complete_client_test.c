/* complete_client_test.c - client_step_job_complete over a socketpair:
 * both requests go out before either answer is read, the answers are
 * taken in either order with notices between them, the step's error is
 * the one reported when both fail, and a connection lost before the
 * answers is the caller's cue to reconnect.
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

static const struct msg_step_complete step = { .job_id = 12,
                                               .step_id = 0,
                                               .node = "",
                                               .rc = 137,
                                               .oom = true,
                                               .exit_code = 0,
                                               .signal = 9 };
static const struct msg_job_complete job = { .job_id = 12,
                                             .rc = 137,
                                             .signal = 9 };

/* An answer, written before the request is made: the client's tags are
 * 1 (STEP_COMPLETE) and 2 (JOB_COMPLETE). */
static void answer (struct pair *p, uint32_t tag, int errnum, const char *text)
{
    struct msg_rc rc = { .errnum = errnum, .text = (char *)text };
    arbor_error_t err;

    assert_int_equal (rpc_send (&p->srv, MSG_RC, tag, &rc, &err), 0);
}

/* What the controller got: both requests, in order, as sent. */
static void check_requests (struct pair *p)
{
    union msg_any got;
    arbor_error_t err;
    uint32_t tag;
    uid_t uid;
    int type;

    assert_int_equal (
        rpc_recv_tagged (&p->srv, 1000, &type, &tag, NULL, &got, &uid, &err),
        0);
    assert_int_equal (type, MSG_STEP_COMPLETE);
    assert_int_equal (tag, 1);
    assert_int_equal (got.step_complete.job_id, 12);
    assert_int_equal (got.step_complete.rc, 137);
    assert_true (got.step_complete.oom);
    assert_int_equal (got.step_complete.signal, 9);
    proto_clear (type, &got);
    assert_int_equal (
        rpc_recv_tagged (&p->srv, 1000, &type, &tag, NULL, &got, &uid, &err),
        0);
    assert_int_equal (type, MSG_JOB_COMPLETE);
    assert_int_equal (tag, 2);
    assert_int_equal (got.job_complete.job_id, 12);
    assert_int_equal (got.job_complete.rc, 137);
    proto_clear (type, &got);
}

static void test_in_order (void **state)
{
    struct pair *p = *state;
    arbor_error_t err = { "" };

    answer (p, 1, 0, "");
    answer (p, 2, 0, "");
    assert_int_equal (client_step_job_complete (&p->cl, &step, &job, &err), 0);
    check_requests (p);
}

static void test_reversed_with_notice (void **state)
{
    struct pair *p = *state;
    arbor_error_t err = { "" };

    answer (p, 2, 0, "");
    answer (p, 99, 0, ""); /* not an answer to these: passed over */
    answer (p, 1, 0, "");
    assert_int_equal (client_step_job_complete (&p->cl, &step, &job, &err), 0);
    check_requests (p);
}

static void test_step_refused (void **state)
{
    struct pair *p = *state;
    arbor_error_t err = { "" };

    answer (p, 1, EINVAL, "step 12.0 already complete");
    answer (p, 2, 0, "");
    assert_int_equal (client_step_job_complete (&p->cl, &step, &job, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "step complete: step 12.0 already complete");
}

static void test_job_refused (void **state)
{
    struct pair *p = *state;
    arbor_error_t err = { "" };

    answer (p, 1, 0, "");
    answer (p, 2, EPERM, "not your job");
    assert_int_equal (client_step_job_complete (&p->cl, &step, &job, &err), -1);
    assert_int_equal (errno, EPERM);
    assert_string_equal (err.text, "job complete: not your job");
}

/* Both refused, the job's answer first: the step's error is reported. */
static void test_both_refused (void **state)
{
    struct pair *p = *state;
    arbor_error_t err = { "" };

    answer (p, 2, EPERM, "not your job");
    answer (p, 1, ENOENT, "no step 12.0");
    assert_int_equal (client_step_job_complete (&p->cl, &step, &job, &err), -1);
    assert_int_equal (errno, ENOENT);
    assert_string_equal (err.text, "step complete: no step 12.0");
}

/* One answer, then the controller is gone: a lost connection. */
static void test_lost (void **state)
{
    struct pair *p = *state;
    arbor_error_t err = { "" };

    answer (p, 1, 0, "");
    shutdown (p->srv.fd, SHUT_WR);
    assert_int_equal (client_step_job_complete (&p->cl, &step, &job, &err), -1);
    assert_true (client_conn_lost (errno));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_in_order, pair_setup,
                                         pair_teardown),
        cmocka_unit_test_setup_teardown (test_reversed_with_notice, pair_setup,
                                         pair_teardown),
        cmocka_unit_test_setup_teardown (test_step_refused, pair_setup,
                                         pair_teardown),
        cmocka_unit_test_setup_teardown (test_job_refused, pair_setup,
                                         pair_teardown),
        cmocka_unit_test_setup_teardown (test_both_refused, pair_setup,
                                         pair_teardown),
        cmocka_unit_test_setup_teardown (test_lost, pair_setup, pair_teardown),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
