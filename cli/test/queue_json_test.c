/* queue_json_test.c - arbor queue --json (queue_json.c) on made-up job
 * views (jobview.h) and STEP_INFO replies: every member, its type, and its null
 * when there is nothing (no array, no limit, not started, not pending);
 * array tasks one object each. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "jobview_make.h"
#include "proto.h"
#include "queue/queue.h"
#include "timestr.h"

static const char *const job_members[] = {
    "job_id",        "array_job_id", "array_task_id",
    "name",          "user",         "account",
    "partition",     "state",        "state_code",
    "reason",        "priority",     "nodelist",
    "nnodes",        "ncpus",        "time_limit_minutes",
    "submit_time",   "start_time",   "expected_start_time",
    "end_time",      "exit_code",    "work_dir",
    "std_out",       "std_err",      "dependency",
    "batch",         "restarts",     "command",
    "running_steps", "comment",      "features",
    "tres_per_node", "tres_per_job", "tres_per_task",
    "gres_alloc",    "qos",
};
#define NMEMBERS (sizeof (job_members) / sizeof (job_members[0]))

/* Job 7 running (not an array task, no limit); job 9 task 2 of array
 * 8, pending, with a comment. */
static const uint32_t ids[] = { 7, 9 }, arrays[] = { 0, 8 }, tasks[] = { 0, 2 };
static const char *const names[] = { "sim", "arr\xff" }, *const states[] = {
    "RUNNING", "PENDING"
};
static const char *const reasons[] = { "", "Priority" }, *const deps[] = {
    "", "afterok:7"
};
static const char *const outs[] = { "", "/home/bob/slurm-8_2.out" };
static const char *const comments[] = { NULL, "sweep 2" };
static const char *const qos[] = { NULL, "high" }; /* 7: before 2.14 */
static const uint32_t limits[] = { TIME_INFINITE, 30 };
static const uint64_t starts[] = { 1000, 0 };
static const uint32_t prios[] = { 0, 4242 }, batch[] = { 0, 1 },
                      nsteps[] = { 2, 0 };
static const uint64_t submits[] = { 900, 950 }, expected[] = { 0, 5000 };

static struct job_list jobs (void)
{
    struct job_list l = { 0 };

    for (int k = 0; k < 2; k++) {
        struct job_view v = { 0 };
        v.rec.id = ids[k];
        v.rec.array_job_id = arrays[k];
        v.rec.array_task_id = tasks[k];
        jvm_set (&v.rec.name, names[k]);
        jvm_set (&v.rec.state_shown, states[k]);
        jvm_set (&v.rec.reason, reasons[k]);
        jvm_set (&v.rec.dependency, deps[k]);
        jvm_set (&v.rec.std_out, outs[k]);
        jvm_set (&v.req.comment, comments[k]);
        jvm_set (&v.rec.qos, qos[k]);
        v.rec.time_limit = limits[k];
        v.rec.start_time = starts[k];
        v.rec.priority = prios[k];
        v.rec.batch_id = batch[k]; /* a batch job has a BATCH_REC */
        v.rec.nsteps = nsteps[k];
        v.rec.submit_time = submits[k];
        v.rec.expected_start = expected[k];
        jvm_push (&l, &v);
    }
    return l;
}

/* What a write_* function wrote, read back by jansson. */
static json_t *parsed (char *text, size_t len)
{
    json_error_t e;
    json_t *doc = json_loadb (text, len, 0, &e);

    if (!doc)
        fail_msg ("not JSON: %s (line %d): %s", e.text, e.line, text);
    free (text);
    return doc;
}

static json_t *jobs_doc (const struct queue_row *v, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);

    assert_int_equal (queue_json_write_jobs (v, n, f), 0);
    fclose (f);
    return parsed (text, len);
}

static json_t *steps_doc (const struct msg_step_info_reply *r, const bool *keep)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);

    assert_int_equal (queue_json_write_steps (r, keep, f), 0);
    fclose (f);
    return parsed (text, len);
}

static json_t *job (json_t *doc, size_t k)
{
    json_t *o = json_array_get (json_object_get (doc, "jobs"), k);

    assert_non_null (o);
    assert_int_equal (json_object_size (o), NMEMBERS);
    for (size_t m = 0; m < NMEMBERS; m++)
        assert_non_null (json_object_get (o, job_members[m]));
    return o;
}

#define INT(o, k) json_integer_value (json_object_get ((o), (k)))
#define STR(o, k) json_string_value (json_object_get ((o), (k)))
#define ISNULL(o, k) json_is_null (json_object_get ((o), (k)))

static void test_jobs (void **state)
{
    struct job_list l = jobs ();
    struct queue_row v[2] = { { .job = &l.jobs[1] }, { .job = &l.jobs[0] } };
    json_t *doc = jobs_doc (v, 2), *a, *b;

    assert_non_null (doc);
    assert_string_equal (STR (doc, "schema"), "arbor.queue");
    assert_int_equal (INT (doc, "version"), 1);
    a = job (doc, 0); /* the rows' order */
    assert_int_equal (INT (a, "job_id"), 9);
    assert_int_equal (INT (a, "array_job_id"), 8);
    assert_int_equal (INT (a, "array_task_id"), 2);
    assert_string_equal (STR (a, "name"), "arr?"); /* not UTF-8 */
    assert_string_equal (STR (a, "state_code"), "PD");
    assert_int_equal (INT (a, "priority"), 4242);
    assert_int_equal (INT (a, "time_limit_minutes"), 30);
    assert_true (ISNULL (a, "start_time"));
    assert_int_equal (INT (a, "expected_start_time"), 5000);
    assert_string_equal (STR (a, "dependency"), "afterok:7");
    assert_string_equal (STR (a, "std_out"), "/home/bob/slurm-8_2.out");
    assert_true (ISNULL (a, "std_err")); /* a field not set */
    assert_true (json_is_true (json_object_get (a, "batch")));
    b = job (doc, 1);
    assert_int_equal (INT (b, "job_id"), 7);
    assert_true (ISNULL (b, "array_job_id") && ISNULL (b, "array_task_id"));
    assert_true (ISNULL (b, "priority"));           /* not pending */
    assert_true (ISNULL (b, "time_limit_minutes")); /* unlimited */
    assert_true (ISNULL (b, "end_time") && ISNULL (b, "dependency"));
    assert_true (ISNULL (b, "expected_start_time"));
    assert_int_equal (INT (b, "start_time"), 1000);
    assert_string_equal (STR (b, "reason"), "");
    assert_string_equal (STR (b, "account"), ""); /* not set */
    assert_int_equal (INT (b, "running_steps"), 2);
    assert_int_equal (INT (json_object_get (b, "exit_code"), "status"), 0);
    assert_int_equal (INT (json_object_get (b, "exit_code"), "signal"), 0);
    assert_true (json_is_false (json_object_get (b, "batch")));
    assert_string_equal (STR (a, "comment"), "sweep 2");
    assert_string_equal (STR (b, "comment"), ""); /* none: "", as Slurm */
    assert_string_equal (STR (a, "qos"), "high");
    assert_string_equal (STR (b, "qos"), "normal"); /* the record has none */
    json_decref (doc);
    job_list_clear (&l);
}

static void test_steps (void **state)
{
    uint32_t jobs[] = { 5, 9, 9 }, steps[] = { STEP_ID_BATCH, 0, 1 };
    uint32_t sarrays[] = { 0, 8, 8 }, stasks[] = { 0, 2, 2 };
    char *snames[] = { "batch", "a", "b" };
    bool keep[] = { true, true, false };
    struct msg_step_info_reply r = {
        .job_ids = jobs,
        .job_ids_count = 3,
        .step_ids = steps,
        .step_ids_count = 3,
        .names = snames,
        .names_count = 3,
        .array_job_ids = sarrays,
        .array_job_ids_count = 3,
        .array_task_ids = stasks,
        .array_task_ids_count = 3,
    };
    json_t *doc = steps_doc (&r, keep), *list, *s;

    assert_non_null (doc);
    assert_string_equal (STR (doc, "schema"), "arbor.queue.steps");
    list = json_object_get (doc, "steps");
    assert_int_equal (json_array_size (list), 2);
    s = json_array_get (list, 0);
    assert_string_equal (STR (s, "id"), "5.batch");
    assert_string_equal (STR (s, "step"), "batch");
    assert_int_equal (INT (s, "step_id"), STEP_ID_BATCH);
    assert_int_equal (INT (s, "job_id"), 5);
    assert_true (ISNULL (s, "array_job_id") && ISNULL (s, "start_time"));
    assert_int_equal (json_object_size (s), 12);
    s = json_array_get (list, 1);
    assert_string_equal (STR (s, "id"), "8_2.0"); /* as squeue -s shows it */
    assert_string_equal (STR (s, "step"), "0");
    assert_int_equal (INT (s, "step_id"), 0);
    assert_int_equal (INT (s, "job_id"), 9);
    assert_int_equal (INT (s, "array_job_id"), 8);
    assert_int_equal (INT (s, "array_task_id"), 2);
    assert_int_equal (INT (s, "ntasks"), 0);
    json_decref (doc);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_jobs),
        cmocka_unit_test (test_steps),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
