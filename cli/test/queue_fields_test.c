/* queue_fields_test.c - squeue's layouts (queue_fields.c, fmt.c) on
 * made-up job views (jobview.h): the default, -l and --start formats
 * column by column as squeue 22.05 prints them, field values (times,
 * limits, array ids, "(null)", "N/A", the comment), and --sort. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fmt.h"
#include "jobview_make.h"
#include "queue/queue.h"

#define NOW 1000000

static const uint32_t ids[] = { 7, 9, 12 };
static const char *const names[] = { "a_long_job_name", "wrap", "sim" };
static const char *const users[] = { "alice", "bob", "carol" };
static const char *const parts[] = { "debug", "batch", "debug" };
static const char *const states[] = { "RUNNING", "PENDING", "PENDING" };
static const char *const reasons[] = { "", "Resources", "Priority" };
static const char *const nodelists[] = { "node[1-2]", "", "" };
static const uint32_t nnodes[] = { 2, 1, 4 };
static const uint32_t ncpus[] = { 8, 1, 16 };
static const uint32_t limits[] = { 60, UINT32_MAX, 30 };
static const uint64_t starts[] = { NOW - 3725, 0, 0 };
static const uint32_t array_jobs[] = { 0, 0, 10 };
static const uint32_t array_tasks[] = { 0, 0, 2 };
static const uint32_t prios[] = { 0, 100, 300 };
static const char *const accounts[] = { "physics", "", "" };
static const char *const comments[] = { NULL, "a note", "" };
/* 7: from a controller older than 2.14; 12: none named */
static const char *const qos[] = { NULL, "high", "" };

/* The three jobs above, as views. */
static struct job_list jobs (void)
{
    struct job_list l = { 0 };

    for (int k = 0; k < 3; k++) {
        struct job_view v = { 0 };
        v.rec.id = ids[k];
        jvm_set (&v.rec.name, names[k]);
        jvm_set (&v.rec.user, users[k]);
        jvm_set (&v.rec.partition, parts[k]);
        jvm_set (&v.rec.state_shown, states[k]);
        jvm_set (&v.rec.reason, reasons[k]);
        jvm_set (&v.rec.nodelist, nodelists[k]);
        v.rec.nnodes = nnodes[k];
        v.rec.ncpus = ncpus[k];
        v.rec.time_limit = limits[k];
        v.rec.start_time = starts[k];
        v.rec.array_job_id = array_jobs[k];
        v.rec.array_task_id = array_tasks[k];
        v.rec.priority = prios[k];
        jvm_set (&v.rec.account, accounts[k]);
        jvm_set (&v.req.comment, comments[k]);
        jvm_set (&v.rec.qos, qos[k]);
        jvm_push (&l, &v);
    }
    return l;
}

/* The table for 'spec' (a -o format; -O when lng), rows in 'sort' order. */
static char *table (const char *spec, bool lng, const char *sort)
{
    struct job_list l = jobs ();
    struct queue_row rows[3];
    struct queue_sort keys;
    size_t nd;
    const struct fmt_def *defs = queue_field_defs (&nd);
    struct fmt f;
    arbor_error_t err;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream (&buf, &len);

    assert_int_equal (lng ? fmt_parse_long (spec, defs, nd, &f, &err)
                          : fmt_parse (spec, defs, nd, &f, &err),
                      0);
    assert_int_equal (queue_sort_parse (sort, &keys, &err), 0);
    for (uint32_t k = 0; k < 3; k++)
        rows[k] = (struct queue_row){ .job = &l.jobs[k], .now = NOW };
    queue_sort_rows (rows, 3, &keys);
    fmt_print_header (out, &f);
    for (int k = 0; k < 3; k++)
        fmt_print_row (out, &f, queue_field_value, &rows[k]);
    fclose (out);
    fmt_free (&f);
    job_list_clear (&l);
    return buf;
}

static void expect (const char *spec, bool lng, const char *sort,
                    const char *want)
{
    char *got = table (spec, lng, sort);

    assert_string_equal (got, want);
    free (got);
}

/* squeue's default: partition, then state (PENDING first), then
 * priority down. */
static void test_default (void **state)
{
    expect (QUEUE_FORMAT, false, QUEUE_SORT,
            "             JOBID PARTITION     NAME     USER ST       TIME  "
            "NODES NODELIST(REASON)\n"
            "                 9     batch     wrap      bob PD       0:00  "
            "    1 (Resources)\n"
            "              10_2     debug      sim    carol PD       0:00  "
            "    4 (Priority)\n"
            "                 7     debug a_long_j    alice  R    1:02:05  "
            "    2 node[1-2]\n");
}

static void test_long_and_start (void **state)
{
    expect (QUEUE_FORMAT_LONG, false, "i",
            "             JOBID PARTITION     NAME     USER    STATE       "
            "TIME TIME_LIMI  NODES NODELIST(REASON)\n"
            "                 7     debug a_long_j    alice  RUNNING    "
            "1:02:05   1:00:00      2 node[1-2]\n"
            "                 9     batch     wrap      bob  PENDING       "
            "0:00 UNLIMITED      1 (Resources)\n"
            "              10_2     debug      sim    carol  PENDING       "
            "0:00     30:00      4 (Priority)\n");
    expect (QUEUE_FORMAT_START, false, "-Q",
            "             JOBID PARTITION     NAME     USER ST          "
            "START_TIME  NODES SCHEDNODES           NODELIST(REASON)\n"
            "              10_2     debug      sim    carol PD                 "
            "N/A      4 (null)               (Priority)\n"
            "                 9     batch     wrap      bob PD                 "
            "N/A      1 (null)               (Resources)\n"
            "                 7     debug a_long_j    alice  R "
            "1970-01-12T12:44:35      2 (null)               node[1-2]\n");
}

static void test_values (void **state)
{
    expect (
        "%A|%F|%K|%a|%L|%C|%q|%r", false, "A",
        "JOBID|ARRAY_JOB_ID|ARRAY_TASK_ID|ACCOUNT|TIME_LEFT|CPUS|QOS|REASON\n"
        "7|7|N/A|physics|0:00|8|normal|None\n"
        "9|9|N/A|(null)|UNLIMITED|1|high|Resources\n"
        "12|10|2|(null)|30:00|16|normal|Priority\n");
    expect ("JobArrayID:6,StateCompact:.3,TimeLimit", true, "-i",
            "JOBID  STTIME_LIMIT          \n"
            "10_2   PD30:00               \n"
            "9      PDUNLIMITED           \n"
            "7       R1:00:00             \n");
}

/* %k / -O Comment: the job's --comment, "(null)" without one, as
 * squeue. */
static void test_comment (void **state)
{
    expect ("%A|%k", false, "A",
            "JOBID|COMMENT\n7|(null)\n9|a note\n12|(null)\n");
    expect ("JobID:6,Comment:8", true, "A",
            "JOBID COMMENT \n7     (null)  \n9     a note  \n12    (null)  \n");
}

/* %q / -O QOS: the job's QOS, "normal" when its record names none (a
 * controller older than 2.14); --sort q sorts by it. */
static void test_qos (void **state)
{
    expect ("%A|%q", false, "-q,A", "JOBID|QOS\n7|normal\n12|normal\n9|high\n");
    expect ("JobID:6,QOS:8", true, "A",
            "JOBID QOS     \n7     normal  \n9     high    \n12    normal  \n");
    expect ("JobID:6,qos", true, "A",
            "JOBID QOS                 \n7     normal              \n"
            "9     high                \n12    normal              \n");
}

static void test_sort_errors (void **state)
{
    struct queue_sort keys;
    arbor_error_t err;

    assert_int_equal (queue_sort_parse ("P,-z", &keys, &err), -1);
    assert_non_null (strstr (err.text, "'z'"));
    assert_int_equal (queue_sort_parse ("+P,,-t", &keys, &err), 0);
    assert_int_equal (keys.n, 2);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_default), cmocka_unit_test (test_long_and_start),
        cmocka_unit_test (test_values),  cmocka_unit_test (test_comment),
        cmocka_unit_test (test_qos),     cmocka_unit_test (test_sort_errors),
    };
    setenv ("TZ", "UTC", 1); /* the start time's text */
    return cmocka_run_group_tests (tests, NULL, NULL);
}
