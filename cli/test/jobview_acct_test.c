/* jobview_acct_test.c - the job view of an accounting record
 * (cli/jobview_acct.c): a record of 2.11, which carries no job record
 * and fills the view from its own fields, and one of 2.12, whose job
 * record is the view; sacct's fields read the same values from both,
 * and what only the job record tells (Comment, JSON's "comment") is
 * blank or null without one.
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
#include <cmocka.h>

#include <jansson.h>

#include "acct/acct.h"
#include "jobview_acct.h"

/* A run as a controller of 2.11 wrote it: pending, then as it ended. */
static struct msg_acct_job acct_211 (void)
{
    struct msg_acct_job j = {
        .job_id = 7,
        .run = 1,
        .uid = 1000,
        .gid = 1000,
        .user = "alice",
        .account = "phys",
        .partition = "debug",
        .name = "simulation",
        .cluster = "arbor",
        .submit_time = 100,
        .eligible_time = 101,
        .start_time = 105,
        .end_time = 165,
        .state = "FAILED",
        .exit_code = 0,
        .signal = 9,
        .reason = "",
        .nnodes = 2,
        .nodelist = "node[1-2]",
        .alloc_cpus = 8,
        .req_cpus = 4,
        .ntasks = 4,
        .req_mem_mb = 500,
        .mem_per_cpu = true,
        .time_limit = 90,
        .work_dir = "/home/alice",
        .alloc_mem_mb = 4000,
    };
    return j;
}

static const char *value (const char *field, const struct job_view *v)
{
    static char buf[ACCT_VALUE_MAX];
    const struct acct_field *f = acct_field_find (field);
    struct acct_row r = { .view = v, .now = 1000 };

    assert_non_null (f);
    return acct_field_value (f, &r, buf, sizeof (buf));
}

/* What sacct shows of the run, whoever wrote its record. */
static void check_fields (const struct job_view *v)
{
    assert_string_equal (value ("JobID", v), "7");
    assert_string_equal (value ("JobName", v), "simulation");
    assert_string_equal (value ("User", v), "alice");
    assert_string_equal (value ("UID", v), "1000");
    assert_string_equal (value ("Account", v), "phys");
    assert_string_equal (value ("Partition", v), "debug");
    assert_string_equal (value ("Cluster", v), "arbor");
    assert_string_equal (value ("State", v), "FAILED");
    assert_string_equal (value ("ExitCode", v), "0:9");
    assert_string_equal (value ("AllocCPUS", v), "8");
    assert_string_equal (value ("ReqCPUS", v), "4");
    assert_string_equal (value ("ReqMem", v), "4000M"); /* 500 x 8 held */
    assert_string_equal (value ("NNodes", v), "2");
    assert_string_equal (value ("NodeList", v), "node[1-2]");
    assert_string_equal (value ("ElapsedRaw", v), "60");
    assert_string_equal (value ("TimelimitRaw", v), "90");
    assert_string_equal (value ("WorkDir", v), "/home/alice");
    assert_string_equal (value ("Reason", v), "None");
    assert_string_equal (value ("AllocTRES", v),
                         "billing=8,cpu=8,mem=4000M,node=2");
}

/* The JSON document's "comment" for view v. */
static json_t *json_comment (const struct job_view *v)
{
    struct acct_json *d = acct_json_create ();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    json_t *root, *c;

    assert_int_equal (acct_json_add_job (d, v, NULL, 0), 0);
    assert_int_equal (acct_json_write (d, f), 0);
    fclose (f);
    acct_json_destroy (d);
    assert_non_null (root = json_loads (buf, 0, NULL));
    free (buf);
    c = json_object_get (json_array_get (json_object_get (root, "jobs"), 0),
                         "comment");
    json_incref (c);
    json_decref (root);
    return c;
}

static void test_211 (void **state)
{
    struct msg_acct_job j = acct_211 ();
    struct job_view v;
    arbor_error_t err;
    json_t *c;

    (void)state;
    assert_int_equal (jobview_acct (&j, &v, &err), 0);
    assert_ptr_equal (v.acct, &j);
    assert_false (jobview_acct_has_rec (&v));
    assert_int_equal (v.rec.id, 7);
    assert_int_equal (v.rec.restarts, 1);
    assert_int_equal (v.rec.exit_rc, 128 + 9);
    assert_int_equal (v.rec.ncpus, 8);
    assert_int_equal (v.rec.mem_per_cpu, 500);
    check_fields (&v);
    assert_string_equal (value ("Comment", &v), "");
    assert_true (json_is_null (c = json_comment (&v)));
    json_decref (c);
    job_view_clear (&v);
    /* pending: no nodes, the CPUs asked are the record's count */
    j.nodelist = "";
    j.alloc_cpus = 0;
    assert_int_equal (jobview_acct (&j, &v, &err), 0);
    assert_int_equal (v.rec.ncpus, 4);
    assert_string_equal (value ("AllocCPUS", &v), "0");
    assert_string_equal (value ("NodeList", &v), "None assigned");
    job_view_clear (&v);
}

/* The job record a controller of 2.12 adds to the same run. */
static void add_rec (struct msg_acct_job *j)
{
    struct msg_job_alloc req = { .cwd = "/home/alice", .comment = "sweep 3" };
    struct msg_job_rec rec = {
        .id = 7,
        .uid = 1000,
        .gid = 1000,
        .name = "simulation",
        .reason = "",
        .exit_rc = 128 + 9,
        .exit_signal = 9,
        .time_limit = 90,
        .submit_time = 100,
        .eligible_time = 101,
        .start_time = 105,
        .end_time = 165,
        .restarts = 1,
        .user = "alice",
        .partition = "debug",
        .state_shown = "FAILED",
        .nodelist = "node[1-2]",
        .nnodes = 2,
        .ncpus = 8,
        .account = "phys",
        .ntasks = 4,
        .mem_per_cpu = 500,
    };
    size_t len;

    assert_int_equal (proto_encode (MSG_JOB_ALLOC, &req, &rec.request, &len),
                      0);
    rec.request_len = (uint32_t)len;
    assert_int_equal (proto_encode (MSG_JOB_REC, &rec, &j->job, &len), 0);
    j->job_len = (uint32_t)len;
    free (rec.request);
}

static void test_212 (void **state)
{
    struct msg_acct_job j = acct_211 ();
    struct job_view v;
    arbor_error_t err;
    json_t *c;

    (void)state;
    add_rec (&j);
    assert_int_equal (jobview_acct (&j, &v, &err), 0);
    assert_ptr_equal (v.acct, &j);
    assert_true (jobview_acct_has_rec (&v));
    check_fields (&v);
    assert_string_equal (value ("Comment", &v), "sweep 3");
    assert_non_null (c = json_comment (&v));
    assert_string_equal (json_string_value (c), "sweep 3");
    json_decref (c);
    job_view_clear (&v);
    /* a job record that does not decode */
    j.job_len = 3;
    assert_int_equal (jobview_acct (&j, &v, &err), -1);
    assert_int_equal (errno, EPROTO);
    free (j.job);
}

/* Every record of an answer, in order; each view points at its own. */
static void test_list (void **state)
{
    struct msg_acct_job jobs[2] = { acct_211 (), acct_211 () };
    struct job_list l = { 0 };
    arbor_error_t err;

    (void)state;
    jobs[1].job_id = 9;
    add_rec (&jobs[0]);
    assert_int_equal (jobview_acct_list (&l, jobs, 2, &err), 0);
    assert_int_equal (l.n, 2);
    assert_ptr_equal (l.jobs[0].acct, &jobs[0]);
    assert_ptr_equal (l.jobs[1].acct, &jobs[1]);
    assert_int_equal (l.jobs[1].rec.id, 9);
    job_list_clear (&l);
    free (jobs[0].job);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_211),
        cmocka_unit_test (test_212),
        cmocka_unit_test (test_list),
    };

    setenv ("TZ", "UTC", 1);
    return cmocka_run_group_tests (tests, NULL, NULL);
}
