/* queue_fold_test.c - arbor queue's lines (queue_fold.c) and -j/-p/-n/-q/-w
 * (queue_select.c) on made-up job views (jobview.h): an array whose tasks 0
 * and 1 run while 2-9 and 12 wait folds into "10_[2-9,12]" as squeue
 * folds it without -r; with -r every task is its own line; a held task
 * is set apart; -j picks tasks. */
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

#include "fmt.h"
#include "jobsel.h"
#include "jobview_make.h"
#include "queue/queue.h"

#define NOW 1000000
#define N 13

/* Row 0: job 7 running; rows 1-11: array 10, tasks 0-9 and 12 (job ids
 * 10-20), tasks 0 and 1 running; row 12: job 30 pending. */
static struct job_list jobs (void)
{
    struct job_list l = { 0 };

    for (int i = 0; i < N; i++) {
        bool task = i >= 1 && i <= 11, run = i <= 2;
        struct job_view v = { 0 };
        v.rec.id = i == 0 ? 7 : i == 12 ? 30 : 9 + (uint32_t)i;
        v.rec.array_job_id = task ? 10 : 0;
        v.rec.array_task_id = !task ? 0 : i == 11 ? 12 : (uint32_t)i - 1;
        jvm_set (&v.rec.name, task ? "arr" : "other");
        jvm_set (&v.rec.user, "bob");
        jvm_set (&v.rec.partition, "debug");
        jvm_set (&v.rec.state_shown, run ? "RUNNING" : "PENDING");
        jvm_set (&v.rec.reason, run ? "" : i == 12 ? "Priority" : "Resources");
        jvm_set (&v.rec.nodelist, i == 0   ? "node1"
                                  : i == 1 ? "node2"
                                  : i == 2 ? "node3"
                                           : "");
        v.rec.priority = run ? 0 : i == 12 ? 200 : 100;
        v.rec.nnodes = 1;
        v.rec.time_limit = 60;
        jvm_push (&l, &v);
    }
    return l;
}

/* The listing of 'l' in format 'spec', folded unless 'array' (-r), the
 * rows -j 'jobs' selects (NULL: all), squeue's default order. */
static char *listing (const struct job_list *l, const char *spec, bool array,
                      const char *jobs)
{
    struct queue_row proto = { .now = NOW };
    struct queue_select sel;
    struct queue_lines lines;
    struct queue_sort keys;
    size_t nd;
    const struct fmt_def *defs = queue_field_defs (&nd);
    bool keep[N];
    struct fmt f;
    arbor_error_t err;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream (&buf, &len);

    assert_int_equal (fmt_parse (spec, defs, nd, &f, &err), 0);
    assert_int_equal (queue_sort_parse (QUEUE_SORT, &keys, &err), 0);
    assert_int_equal (queue_select_parse (&sel, jobs, NULL, NULL, NULL, &err),
                      0);
    for (uint32_t i = 0; i < N; i++)
        keep[i] = queue_select_job (&sel, &l->jobs[i]);
    assert_int_equal (
        queue_lines_build (&proto, l, keep, !array, QUEUE_TASKS_LEN, &lines),
        0);
    queue_sort_rows (lines.v, lines.n, &keys);
    fmt_print_header (out, &f);
    for (size_t k = 0; k < lines.n; k++)
        fmt_print_row (out, &f, queue_field_value, &lines.v[k]);
    fclose (out);
    queue_lines_free (&lines);
    queue_select_clear (&sel);
    fmt_free (&f);
    return buf;
}

static void expect (const struct job_list *l, const char *spec, bool array,
                    const char *jobs, const char *want)
{
    char *got = listing (l, spec, array, jobs);

    assert_string_equal (got, want);
    free (got);
}

#define SPEC "%i|%t|%K|%A|%F|%R"
#define HEAD "JOBID|ST|ARRAY_TASK_ID|JOBID|ARRAY_JOB_ID|NODELIST(REASON)\n"

/* Without -r: the pending tasks on one line, the first of them (task 2,
 * job 12) giving every field but %i and %K; the running tasks each on
 * their own. */
static void test_folded (void **state)
{
    struct job_list l = jobs ();

    expect (&l, SPEC, false, NULL,
            HEAD "30|PD|N/A|30|30|(Priority)\n"
                 "10_[2-9,12]|PD|2-9,12|12|10|(Resources)\n"
                 "7|R|N/A|7|7|node1\n"
                 "10_0|R|0|10|10|node2\n"
                 "10_1|R|1|11|10|node3\n");
    /* the default layout: the folded id fits squeue's %.18i */
    expect (&l, QUEUE_FORMAT, false, "10",
            "             JOBID PARTITION     NAME     USER ST       TIME  "
            "NODES NODELIST(REASON)\n"
            "       10_[2-9,12]     debug      arr      bob PD       0:00  "
            "    1 (Resources)\n"
            "              10_0     debug      arr      bob  R       0:00  "
            "    1 node2\n"
            "              10_1     debug      arr      bob  R       0:00  "
            "    1 node3\n");
    job_list_clear (&l);
}

/* -r: one line per task. */
static void test_unfolded (void **state)
{
    struct job_list l = jobs ();

    expect (&l, "%i %t", true, NULL,
            "JOBID ST\n30 PD\n10_2 PD\n10_3 PD\n10_4 PD\n10_5 PD\n10_6 PD\n"
            "10_7 PD\n10_8 PD\n10_9 PD\n10_12 PD\n7 R\n10_0 R\n10_1 R\n");
    job_list_clear (&l);
}

/* A task held (or changed) alone is set apart, as Slurm splits it off;
 * a requeued task started before: its own line; a group of one task is
 * shown as that task. */
static void test_set_apart (void **state)
{
    struct job_list l = jobs ();

    jvm_set (&l.jobs[11].rec.reason, "JobHeldUser");
    expect (&l, "%i %r", false, NULL,
            "JOBID REASON\n30 Priority\n10_[2-9] Resources\n"
            "10_12 JobHeldUser\n7 None\n10_0 None\n10_1 None\n");
    jvm_set (&l.jobs[11].rec.reason, "Resources");
    l.jobs[5].rec.time_limit = 30; /* task 4 */
    l.jobs[9].rec.restarts = 1;    /* task 8 */
    expect (&l, "%i", false, NULL,
            "JOBID\n30\n10_[2-3,5-7,9,12]\n10_4\n10_8\n7\n10_0\n10_1\n");
    job_list_clear (&l);
}

/* -j: an array's id selects all its tasks (folded), ID_TASK one task. */
static void test_select (void **state)
{
    struct job_list l = jobs ();
    struct queue_select sel;
    arbor_error_t err;
    uint32_t *v, n;

    expect (&l, "%i", false, "10_3,7,10_1", "JOBID\n10_3\n7\n10_1\n");
    expect (&l, "%i", false, "10_3,10_4", "JOBID\n10_[3-4]\n");
    expect (&l, "%i", false, "12", "JOBID\n10_2\n"); /* a task's own id */
    assert_int_equal (
        queue_select_parse (&sel, "10_3,7", NULL, NULL, NULL, &err), 0);
    v = queue_select_job_ids (&sel, &n);
    assert_int_equal (n, 2);
    assert_int_equal (v[0], 10); /* the array's id is asked for */
    assert_int_equal (v[1], 7);
    free (v);
    assert_true (queue_select_id (&sel, 7, 0, 0));
    assert_true (queue_select_id (&sel, 13, 10, 3));
    assert_false (queue_select_id (&sel, 14, 10, 4));
    queue_select_clear (&sel);
    assert_int_equal (queue_select_parse (&sel, "7.1", NULL, NULL, NULL, &err),
                      -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "invalid job id '7.1'"));
    assert_int_equal (queue_select_parse (&sel, "7,x", NULL, NULL, NULL, &err),
                      -1);
    assert_non_null (strstr (err.text, "'x'"));
    job_list_clear (&l);
}

/* -p, -n, -w. */
static void test_where (void **state)
{
    struct job_list l = jobs ();
    struct queue_select sel;
    arbor_error_t err;

    assert_int_equal (queue_select_parse (&sel, NULL, "debug,batch", "other",
                                          "node[1-2]", &err),
                      0);
    assert_true (queue_select_job (&sel, &l.jobs[0]));   /* 7 on node1 */
    assert_false (queue_select_job (&sel, &l.jobs[1]));  /* named arr */
    assert_false (queue_select_job (&sel, &l.jobs[12])); /* on no node */
    queue_select_clear (&sel);
    assert_int_equal (
        queue_select_parse (&sel, NULL, NULL, NULL, "node[1-", &err), -1);
    job_list_clear (&l);
}

/* -q: the job's QOS, any case; a record without one is in "normal". */
static void test_qos (void **state)
{
    struct job_list l = jobs ();
    struct queue_select sel;
    arbor_error_t err;

    jvm_set (&l.jobs[0].rec.qos, "high");
    jvm_set (&l.jobs[1].rec.qos, "");
    assert_int_equal (queue_select_parse (&sel, NULL, NULL, NULL, NULL, &err),
                      0);
    sel.qos = "HIGH,low";
    assert_true (queue_select_job (&sel, &l.jobs[0]));
    assert_false (queue_select_job (&sel, &l.jobs[1]));
    assert_false (queue_select_job (&sel, &l.jobs[12]));
    sel.qos = "normal";
    assert_false (queue_select_job (&sel, &l.jobs[0]));
    assert_true (queue_select_job (&sel, &l.jobs[1]));  /* "" */
    assert_true (queue_select_job (&sel, &l.jobs[12])); /* none */
    queue_select_clear (&sel);
    job_list_clear (&l);
}

static void test_ranges (void **state)
{
    uint32_t v[] = { 0, 2, 4, 6, 8, 10 }, w[] = { 1, 2, 3, 5, 9, 10 };
    char *s;

    s = queue_task_ranges (w, 6, 0);
    assert_string_equal (s, "1-3,5,9-10");
    free (s);
    s = queue_task_ranges (v, 6, 0);
    assert_string_equal (s, "0,2,4,6,8,10");
    free (s);
    s = queue_task_ranges (v, 6, 10); /* cut as squeue's 64 bytes */
    assert_string_equal (s, "0,2,4,6...");
    free (s);
    s = queue_task_ranges (v, 1, 10);
    assert_string_equal (s, "0");
    free (s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_folded),    cmocka_unit_test (test_unfolded),
        cmocka_unit_test (test_set_apart), cmocka_unit_test (test_select),
        cmocka_unit_test (test_where),     cmocka_unit_test (test_qos),
        cmocka_unit_test (test_ranges),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
