/* jobinfo_test.c - jobinfo_fetch over a socketpair: the pages of a
 * JOB_INFO listing are asked for one after the other (each request
 * resuming after the last page's more_after) and come back as one list
 * of job views; an error on a later page clears what came before, and a
 * page that does not advance is refused rather than asked again forever;
 * a long id filter goes in parts. The pages come as records (2.12) or as
 * the lists of an older controller; both give the same views.
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
#include "jobinfo.h"

/* A page of jobs ids[0..n) named "j<id>", ending at more_after. */
static void send_page (struct pair *p, uint32_t tag, uint32_t *ids, uint32_t n,
                       uint32_t more_after)
{
    char *names[4], buf[4][16];
    struct msg_job_info_reply r = { .job_ids = ids,
                                    .job_ids_count = n,
                                    .names = names,
                                    .names_count = n,
                                    .more_after = more_after };
    arbor_error_t err;

    for (uint32_t i = 0; i < n; i++) {
        snprintf (buf[i], sizeof (buf[i]), "j%u", ids[i]);
        names[i] = buf[i];
    }
    assert_int_equal (rpc_send (&p->srv, MSG_JOB_INFO_REPLY, tag, &r, &err), 0);
}

/* A page of records (2.12): job 'id' named "j<id>", its request asking
 * for 'ntasks' tasks with comment "c<id>". */
static void send_records (struct pair *p, uint32_t tag, uint32_t *ids,
                          uint32_t n, uint32_t more_after)
{
    struct proto_bin bins[4];
    struct msg_job_info_reply r = { .jobs = bins,
                                    .jobs_count = n,
                                    .more_after = more_after };
    arbor_error_t err;

    for (uint32_t i = 0; i < n; i++) {
        char name[16], comment[16];
        struct msg_job_alloc req = { .ntasks = 3, .comment = comment };
        struct msg_job_rec rec = { .id = ids[i], .name = name, .nsteps = 2 };
        size_t len;
        snprintf (name, sizeof (name), "j%u", ids[i]);
        snprintf (comment, sizeof (comment), "c%u", ids[i]);
        assert_int_equal (
            proto_encode (MSG_JOB_ALLOC, &req, &rec.request, &len), 0);
        rec.request_len = (uint32_t)len;
        assert_int_equal (proto_encode (MSG_JOB_REC, &rec, &bins[i].data, &len),
                          0);
        bins[i].len = (uint32_t)len;
        free (rec.request);
    }
    assert_int_equal (rpc_send (&p->srv, MSG_JOB_INFO_REPLY, tag, &r, &err), 0);
    for (uint32_t i = 0; i < n; i++)
        free (bins[i].data);
}

/* The after_job_id of the next request the controller got. */
static uint32_t asked_after (struct pair *p)
{
    union msg_any got;
    arbor_error_t err;
    uint32_t after;
    int type;
    uid_t uid;

    assert_int_equal (rpc_recv (&p->srv, 1000, &type, &got, &uid, &err), 0);
    assert_int_equal (type, MSG_JOB_INFO);
    assert_int_equal (got.job_info.users_count, 1);
    assert_string_equal (got.job_info.users[0], "bob");
    assert_true (got.job_info.records);
    after = got.job_info.after_job_id;
    proto_clear (type, &got);
    return after;
}

static void test_pages (void **state)
{
    struct pair *p = *state;
    uint32_t a[2] = { 3, 5 }, b[2] = { 8, 9 }, c[1] = { 12 };
    char *bob = "bob";
    struct msg_job_info q = { .users = &bob, .users_count = 1 };
    struct job_list r;
    arbor_error_t err;

    /* Written before asking: the client's tags are 1, 2, 3. */
    send_page (p, 1, a, 2, 5);
    send_page (p, 2, b, 2, 9);
    send_page (p, 3, c, 1, 0);
    assert_int_equal (jobinfo_fetch (&p->cl, &q, &r, &err), 0);
    assert_int_equal (r.n, 5);
    assert_int_equal (r.jobs[0].rec.id, 3);
    assert_int_equal (r.jobs[2].rec.id, 8);
    assert_int_equal (r.jobs[4].rec.id, 12);
    assert_string_equal (r.jobs[3].rec.name, "j9");
    assert_string_equal (r.jobs[4].rec.name, "j12");
    job_list_clear (&r);
    assert_int_equal (asked_after (p), 0);
    assert_int_equal (asked_after (p), 5);
    assert_int_equal (asked_after (p), 9);
    assert_int_equal (q.after_job_id, 0); /* the caller's request as given */
}

/* A 2.12 controller's pages: each record and the request inside it are
 * decoded once, into the view the commands read. */
static void test_records (void **state)
{
    struct pair *p = *state;
    uint32_t a[2] = { 3, 5 }, b[1] = { 8 };
    char *bob = "bob";
    struct msg_job_info q = { .users = &bob, .users_count = 1 };
    struct job_list r;
    arbor_error_t err;

    send_records (p, 1, a, 2, 5);
    send_records (p, 2, b, 1, 0);
    assert_int_equal (jobinfo_fetch (&p->cl, &q, &r, &err), 0);
    assert_int_equal (r.n, 3);
    assert_int_equal (r.jobs[1].rec.id, 5);
    assert_string_equal (r.jobs[1].rec.name, "j5");
    assert_int_equal (r.jobs[1].rec.nsteps, 2);
    assert_int_equal (r.jobs[2].req.ntasks, 3);
    assert_string_equal (r.jobs[2].req.comment, "c8");
    job_list_clear (&r);
    assert_int_equal (asked_after (p), 0);
    assert_int_equal (asked_after (p), 5);
}

/* A record whose request does not decode: the listing fails, naming the
 * job, and keeps nothing. */
static void test_bad_record (void **state)
{
    struct pair *p = *state;
    struct proto_bin bin;
    struct msg_job_rec rec = { .id = 42, .request = "\x81", .request_len = 1 };
    struct msg_job_info_reply page = { .jobs = &bin, .jobs_count = 1 };
    struct msg_job_info q = { 0 };
    struct job_list r;
    arbor_error_t err;
    size_t len;

    assert_int_equal (proto_encode (MSG_JOB_REC, &rec, &bin.data, &len), 0);
    bin.len = (uint32_t)len;
    assert_int_equal (rpc_send (&p->srv, MSG_JOB_INFO_REPLY, 1, &page, &err),
                      0);
    free (bin.data);
    assert_int_equal (jobinfo_fetch (&p->cl, &q, &r, &err), -1);
    assert_int_equal (errno, EPROTO);
    assert_non_null (strstr (err.text, "job 42: its request"));
    assert_int_equal (r.n, 0);
}

/* More ids than the controller takes in one filter: asked in parts of
 * JOBINFO_MAX_IDS, the answers joined. */
static void test_id_parts (void **state)
{
    struct pair *p = *state;
    uint32_t n = JOBINFO_MAX_IDS + 10, *ids = calloc (n, sizeof (*ids));
    uint32_t a[1] = { 4 }, b[2] = { 4100, 4103 };
    struct msg_job_info q = { .job_ids = ids, .job_ids_count = n };
    struct job_list r;
    union msg_any got;
    arbor_error_t err;
    int type;
    uid_t uid;

    assert_non_null (ids);
    for (uint32_t i = 0; i < n; i++)
        ids[i] = i + 1;
    send_page (p, 1, a, 1, 0);
    send_page (p, 2, b, 2, 0);
    assert_int_equal (jobinfo_fetch (&p->cl, &q, &r, &err), 0);
    assert_int_equal (r.n, 3);
    assert_int_equal (r.jobs[2].rec.id, 4103);
    job_list_clear (&r);
    assert_int_equal (rpc_recv (&p->srv, 1000, &type, &got, &uid, &err), 0);
    assert_int_equal (got.job_info.job_ids_count, JOBINFO_MAX_IDS);
    assert_int_equal (got.job_info.job_ids[0], 1);
    proto_clear (type, &got);
    assert_int_equal (rpc_recv (&p->srv, 1000, &type, &got, &uid, &err), 0);
    assert_int_equal (got.job_info.job_ids_count, 10);
    assert_int_equal (got.job_info.job_ids[0], JOBINFO_MAX_IDS + 1);
    proto_clear (type, &got);
    free (ids);
}

static void test_errors (void **state)
{
    struct pair *p = *state;
    uint32_t a[1] = { 7 };
    struct msg_rc rc = { .errnum = EPERM, .text = "Access/permission denied" };
    struct msg_job_info q = { 0 };
    struct job_list r;
    arbor_error_t err;

    /* an error on the second page: nothing is kept */
    send_page (p, 1, a, 1, 7);
    assert_int_equal (rpc_send (&p->srv, MSG_RC, 2, &rc, &err), 0);
    assert_int_equal (jobinfo_fetch (&p->cl, &q, &r, &err), -1);
    assert_int_equal (errno, EPERM);
    assert_string_equal (err.text, "Access/permission denied");
    assert_int_equal (r.n, 0);
    assert_null (r.jobs);
    /* a page that does not move past where it was asked to start */
    send_page (p, 3, a, 1, 7);
    send_page (p, 4, a, 1, 7);
    assert_int_equal (jobinfo_fetch (&p->cl, &q, &r, &err), -1);
    assert_int_equal (errno, EPROTO);
    assert_non_null (strstr (err.text, "after job 7 ends at job 7"));
    assert_int_equal (r.n, 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_pages, pair_setup, pair_teardown),
        cmocka_unit_test_setup_teardown (test_records, pair_setup,
                                         pair_teardown),
        cmocka_unit_test_setup_teardown (test_bad_record, pair_setup,
                                         pair_teardown),
        cmocka_unit_test_setup_teardown (test_id_parts, pair_setup,
                                         pair_teardown),
        cmocka_unit_test_setup_teardown (test_errors, pair_setup,
                                         pair_teardown),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
