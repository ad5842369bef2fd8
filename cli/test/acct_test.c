/* acct_test.c - arbor acct's pure parts: the -o list, each field's text
 * on job and step lines, the table and parsable layouts, sacct's values
 * (exit codes, durations, CPU times, sizes, times), -S/-E and -s words,
 * which records become lines, and the --json document.
 *
 * A job run is read as its view (jobview_acct.h): the job's record, made
 * here field by field, pointing at the accounting record of the run for
 * what only accounting knows (struct test_run).
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
#include <time.h>
#include <cmocka.h>

#include <jansson.h>

#include "acct/acct.h"
#include "jobsel.h"

/* 2026-01-02T03:04:05 UTC */
#define T0 1767323045u

static int utc_setup (void **state)
{
    (void)state;
    setenv ("TZ", "UTC", 1);
    tzset ();
    return 0;
}

/* One job run: its accounting record (what only accounting knows: the
 * cluster, the state and exit accounted, CPUs and memory asked) and its
 * view, whose acct points at it (so it is made in place). The strings
 * are the test's own: the view is never cleared. */
struct test_run {
    struct msg_acct_job acct;
    struct job_view v;
};

static void test_run (struct test_run *t)
{
    t->acct = (struct msg_acct_job){
        .job_id = 7,
        .cluster = "arbor",
        .state = "COMPLETED",
        .req_cpus = 8,
        .req_mem_mb = 2000,
    };
    t->v = (struct job_view){
        .rec = {
            .id = 7,
            .uid = 0,
            .gid = 0,
            .user = "alice",
            .account = "phys",
            .partition = "debug",
            .name = "simulation",
            .submit_time = T0,
            .eligible_time = T0,
            .start_time = T0 + 5,
            .end_time = T0 + 3725,
            .nnodes = 2,
            .nodelist = "node[1-2]",
            .ncpus = 8,
            .time_limit = 90,
        },
        .req = { .cwd = "/home/alice" },
        .acct = &t->acct,
    };
}

static struct msg_acct_step test_step (uint32_t id)
{
    struct msg_acct_step s = {
        .job_id = 7,
        .step_id = id,
        .name = "batch",
        .start_time = T0 + 5,
        .end_time = T0 + 65,
        .state = "COMPLETED",
        .nnodes = 1,
        .nodelist = "node1",
        .ntasks = 1,
        .alloc_cpus = 4,
        .nodes_reported = 1,
        .user_usec = 1250000,
        .sys_usec = 250000,
        .max_rss_kb = 1180,
        .max_rss_task = 0,
        .max_rss_node = "node1",
        .ave_rss_kb = 1180,
    };
    return s;
}

static const char *value (const char *field, const struct acct_row *r)
{
    static char buf[ACCT_VALUE_MAX];
    const struct acct_field *f = acct_field_find (field);

    assert_non_null (f);
    return acct_field_value (f, r, buf, sizeof (buf));
}

/* ---- acct_text ---------------------------------------------------------- */

static void test_exit_code (void **state)
{
    char b[32];

    (void)state;
    assert_string_equal (acct_text_exit (1, 0, b, sizeof (b)), "1:0");
    assert_string_equal (acct_text_exit (0, 9, b, sizeof (b)), "0:9");
    assert_string_equal (acct_text_exit (0, 0, b, sizeof (b)), "0:0");
}

static void test_durations (void **state)
{
    char b[32];

    (void)state;
    assert_string_equal (acct_text_duration (0, b, sizeof (b)), "00:00:00");
    assert_string_equal (acct_text_duration (3725, b, sizeof (b)), "01:02:05");
    assert_string_equal (acct_text_duration (93784, b, sizeof (b)),
                         "1-02:03:04");
    /* CPU times: milliseconds under an hour, hours dropped then */
    assert_string_equal (acct_text_cpu (1500000, b, sizeof (b)), "00:01.500");
    assert_string_equal (acct_text_cpu (62000000, b, sizeof (b)), "00:01:02");
    assert_string_equal (acct_text_cpu (3723250000ull, b, sizeof (b)),
                         "01:02:03");
    assert_string_equal (acct_text_cpu (0, b, sizeof (b)), "00:00:00");
    assert_string_equal (acct_text_cpu (999, b, sizeof (b)), "00:00:00");
}

static void test_sizes (void **state)
{
    char b[32];

    (void)state;
    assert_string_equal (acct_text_size (1180, ACCT_UNIT_K, b, sizeof (b)),
                         "1180K");
    assert_string_equal (acct_text_size (155092, ACCT_UNIT_K, b, sizeof (b)),
                         "155092K");
    /* exact multiples scale up; a half is still exact */
    assert_string_equal (acct_text_size (204800, ACCT_UNIT_K, b, sizeof (b)),
                         "200M");
    assert_string_equal (acct_text_size (2621440, ACCT_UNIT_K, b, sizeof (b)),
                         "2.50G");
    assert_string_equal (acct_text_size (4000, ACCT_UNIT_M, b, sizeof (b)),
                         "4000M");
    assert_string_equal (acct_text_size (4096, ACCT_UNIT_M, b, sizeof (b)),
                         "4G");
    assert_string_equal (acct_text_size (0, ACCT_UNIT_M, b, sizeof (b)), "0");
    assert_string_equal (acct_text_size (512, ACCT_UNIT_K, b, sizeof (b)),
                         "512K");
    /* --units: one unit, whole or two decimals; none: as above */
    assert_string_equal (acct_text_size_as (1180, ACCT_UNIT_K, 'M', b, 64),
                         "1.15M");
    assert_string_equal (acct_text_size_as (2048, ACCT_UNIT_K, 'm', b, 64),
                         "2M");
    assert_string_equal (acct_text_size_as (4, ACCT_UNIT_M, 'K', b, 64),
                         "4096K");
    assert_string_equal (acct_text_size_as (1, ACCT_UNIT_M, 'G', b, 64),
                         "0.00G");
    assert_string_equal (acct_text_size_as (0, ACCT_UNIT_K, 'G', b, 64), "0");
    assert_string_equal (acct_text_size_as (4096, ACCT_UNIT_M, 0, b, 64), "4G");
    assert_true (acct_text_unit_valid ('P') && acct_text_unit_valid ('k'));
    assert_false (acct_text_unit_valid ('X') || acct_text_unit_valid ('\0'));
}

static void test_times (void **state)
{
    char b[64];

    (void)state;
    assert_string_equal (acct_text_time (T0, NULL, b, sizeof (b)),
                         "2026-01-02T03:04:05");
    assert_string_equal (acct_text_time (0, NULL, b, sizeof (b)), "Unknown");
    assert_string_equal (acct_text_time (T0, "%H:%M", b, sizeof (b)), "03:04");
    setenv ("SLURM_TIME_FORMAT", "standard", 1);
    assert_null (acct_text_time_format ());
    setenv ("SLURM_TIME_FORMAT", "%d.%m %T", 1);
    assert_string_equal (acct_text_time_format (), "%d.%m %T");
    unsetenv ("SLURM_TIME_FORMAT");
    assert_null (acct_text_time_format ());
}

static time_t parse_ok (const char *s, time_t now)
{
    arbor_error_t err;
    time_t t = 0;

    if (acct_text_parse_time (s, now, &t, &err) < 0)
        fail_msg ("'%s': %s", s, err.text);
    return t;
}

static void test_parse_time (void **state)
{
    time_t now = T0; /* 03:04:05 */
    arbor_error_t err;
    time_t t;

    (void)state;
    assert_int_equal (parse_ok ("now", now), now);
    assert_int_equal (parse_ok ("now-1hour", now), now - 3600);
    assert_int_equal (parse_ok ("now-2days", now), now - 2 * 86400);
    assert_int_equal (parse_ok ("now+10", now), now + 10);
    assert_int_equal (parse_ok ("today", now), T0 - 11045);
    assert_int_equal (parse_ok ("midnight", now), T0 - 11045);
    /* clock times are in the past: 02:00 today, 04:00 yesterday */
    assert_int_equal (parse_ok ("02:00", now), T0 - 11045 + 7200);
    assert_int_equal (parse_ok ("04:00:30", now),
                      T0 - 11045 - 86400 + 4 * 3600 + 30);
    assert_int_equal (parse_ok ("noon", now), T0 - 11045 - 43200);
    assert_int_equal (parse_ok ("2026-01-01", now), T0 - 11045 - 86400);
    assert_int_equal (parse_ok ("2026-01-01T10:00", now),
                      T0 - 11045 - 86400 + 36000);
    /* month/day: this year's, or last year's when still to come */
    assert_int_equal (parse_ok ("01/01", now), T0 - 11045 - 86400);
    assert_int_equal (parse_ok ("12/31", now), T0 - 11045 - 2 * 86400);
    assert_int_equal (parse_ok ("01/01/26-10:00", now),
                      T0 - 11045 - 86400 + 36000);
    assert_int_equal (parse_ok ("01.01.2026", now), T0 - 11045 - 86400);
    assert_int_equal (acct_text_parse_time ("yesterdayish", now, &t, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "yesterdayish"));
    assert_int_equal (acct_text_parse_time ("02/30", now, &t, &err), -1);
    assert_int_equal (acct_text_parse_time ("now-x", now, &t, &err), -1);
}

static void test_states (void **state)
{
    (void)state;
    assert_string_equal (acct_text_state ("CD"), "COMPLETED");
    assert_string_equal (acct_text_state ("pd"), "PENDING");
    assert_string_equal (acct_text_state ("R"), "RUNNING");
    assert_string_equal (acct_text_state ("F"), "FAILED");
    assert_string_equal (acct_text_state ("ca"), "CANCELLED");
    assert_string_equal (acct_text_state ("TO"), "TIMEOUT");
    assert_string_equal (acct_text_state ("OOM"), "OUT_OF_MEMORY");
    assert_string_equal (acct_text_state ("nf"), "NODE_FAIL");
    assert_string_equal (acct_text_state ("RQ"), "REQUEUED");
    assert_string_equal (acct_text_state ("completed"), "COMPLETED");
    assert_string_equal (acct_text_state ("PR"), "PREEMPTED");
    assert_null (acct_text_state ("XX"));
    assert_null (acct_text_state (""));
}

/* ---- -o ------------------------------------------------------------------ */

static void test_format_parse (void **state)
{
    struct acct_format fmt = { 0 };
    arbor_error_t err;

    (void)state;
    assert_int_equal (
        acct_format_parse (&fmt, "jobid,JOBNAME%20,state%-12, elap", &err), 0);
    assert_int_equal (fmt.ncols, 4);
    assert_string_equal (fmt.cols[0].field->name, "JobID");
    assert_int_equal (fmt.cols[0].width, -12);
    assert_string_equal (fmt.cols[1].field->name, "JobName");
    assert_int_equal (fmt.cols[1].width, 20);
    assert_string_equal (fmt.cols[2].field->name, "State");
    assert_int_equal (fmt.cols[2].width, -12);
    assert_string_equal (fmt.cols[3].field->name, "Elapsed"); /* prefix */
    assert_int_equal (fmt.cols[3].width, 10);
    /* an unknown name is an error and changes nothing */
    assert_int_equal (acct_format_parse (&fmt, "User,Bogus", &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "Invalid field requested: \"Bogus\"");
    assert_int_equal (fmt.ncols, 4);
    assert_int_equal (acct_format_parse (&fmt, "User%x", &err), -1);
    assert_int_equal (acct_format_parse (&fmt, "User%0", &err), -1);
    assert_int_equal (fmt.ncols, 4);
    acct_format_clear (&fmt);
    assert_int_equal (acct_format_parse (&fmt, "all", &err), 0);
    assert_true (fmt.ncols > 30);
    acct_format_clear (&fmt);
    assert_int_equal (acct_format_parse (&fmt, ACCT_LONG_FORMAT, &err), 0);
    assert_int_equal (acct_format_parse (&fmt, ACCT_DEFAULT_FORMAT, &err), 0);
    assert_false (acct_format_needs_steps (&fmt));
    assert_int_equal (acct_format_parse (&fmt, "totalcpu", &err), 0);
    assert_true (acct_format_needs_steps (&fmt));
    acct_format_clear (&fmt);
    /* exact names win over prefixes: "JobID" is not "JobIDRaw" */
    assert_string_equal (acct_field_find ("jobidraw")->name, "JobIDRaw");
    assert_string_equal (acct_field_find ("MaxRSS")->name, "MaxRSS");
    assert_null (acct_field_find ("nosuch"));
}

static void test_fields_list (void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);

    (void)state;
    acct_fields_list (f);
    fclose (f);
    assert_true (!strncmp (buf, "Account           AllocCPUS", 27));
    assert_non_null (
        strstr (buf, "ArrayJobID       \nArrayTaskID       AveRSS"));
    assert_non_null (strstr (buf, "WorkDir"));
    free (buf);
}

/* ---- fields ----------------------------------------------------------- */

static void test_job_ids (void **state)
{
    struct test_run t;
    struct msg_acct_step s = test_step (STEP_ID_BATCH);
    struct acct_row r = { .view = &t.v };

    (void)state;
    test_run (&t);
    assert_string_equal (value ("JobID", &r), "7");
    r.step = &s;
    assert_string_equal (value ("JobID", &r), "7.batch");
    s.step_id = STEP_ID_EXTERN;
    assert_string_equal (value ("JobID", &r), "7.extern");
    s.step_id = STEP_ID_INTERACTIVE;
    assert_string_equal (value ("JobID", &r), "7.interactive");
    s.step_id = 0;
    assert_string_equal (value ("JobID", &r), "7.0");
    /* an array task: A_T, the raw id its own */
    t.v.rec.array_job_id = 5;
    t.v.rec.array_task_id = 2;
    assert_string_equal (value ("JobID", &r), "5_2.0");
    assert_string_equal (value ("JobIDRaw", &r), "7.0");
    assert_string_equal (value ("ArrayJobID", &r), "5");
    assert_string_equal (value ("ArrayTaskID", &r), "2");
    r.step = NULL;
    assert_string_equal (value ("JobID", &r), "5_2");
    assert_string_equal (value ("JobIDRaw", &r), "7");
    t.v.rec.array_job_id = 0;
    assert_string_equal (value ("ArrayJobID", &r), "");
}

static void test_job_line (void **state)
{
    struct test_run t;
    struct acct_row r = { .view = &t.v,
                          .now = T0 + 9999,
                          .user_usec = 60250000,
                          .sys_usec = 60000000 };

    (void)state;
    test_run (&t);
    assert_string_equal (value ("JobName", &r), "simulation");
    assert_string_equal (value ("Partition", &r), "debug");
    assert_string_equal (value ("Account", &r), "phys");
    assert_string_equal (value ("AllocCPUS", &r), "8");
    assert_string_equal (value ("State", &r), "COMPLETED");
    assert_string_equal (value ("ExitCode", &r), "0:0");
    assert_string_equal (value ("User", &r), "alice");
    assert_string_equal (value ("UID", &r), "0");
    assert_string_equal (value ("Group", &r), "root");
    assert_string_equal (value ("GID", &r), "0");
    assert_string_equal (value ("Submit", &r), "2026-01-02T03:04:05");
    assert_string_equal (value ("Start", &r), "2026-01-02T03:04:10");
    assert_string_equal (value ("End", &r), "2026-01-02T04:06:10");
    assert_string_equal (value ("Elapsed", &r), "01:02:00");
    assert_string_equal (value ("ElapsedRaw", &r), "3720");
    assert_string_equal (value ("CPUTime", &r), "08:16:00");
    assert_string_equal (value ("CPUTimeRAW", &r), "29760");
    assert_string_equal (value ("Timelimit", &r), "01:30:00");
    assert_string_equal (value ("TimelimitRaw", &r), "90");
    assert_string_equal (value ("NNodes", &r), "2");
    assert_string_equal (value ("NodeList", &r), "node[1-2]");
    assert_string_equal (value ("ReqMem", &r), "4000M"); /* 2000 x 2 */
    assert_string_equal (value ("ReqCPUS", &r), "8");
    /* the job's CPU times are its steps' sums; usage per step only */
    assert_string_equal (value ("TotalCPU", &r), "02:00.250");
    assert_string_equal (value ("UserCPU", &r), "01:00.250");
    assert_string_equal (value ("SystemCPU", &r), "00:01:00");
    assert_string_equal (value ("MaxRSS", &r), "");
    assert_string_equal (value ("MaxRSSNode", &r), "");
    assert_string_equal (value ("MaxRSSTask", &r), "");
    assert_string_equal (value ("AveRSS", &r), "");
    assert_string_equal (value ("NTasks", &r), "");
    assert_string_equal (value ("WorkDir", &r), "/home/alice");
    assert_string_equal (value ("Reason", &r), "None");
    assert_string_equal (value ("Cluster", &r), "arbor");
    t.acct.exit_code = 1;
    assert_string_equal (value ("ExitCode", &r), "1:0");
    t.acct.exit_code = 0;
    t.acct.signal = 9;
    assert_string_equal (value ("ExitCode", &r), "0:9");
}

static void test_job_pending_running (void **state)
{
    struct test_run t;
    struct acct_row r = { .view = &t.v, .now = T0 + 65 };

    (void)state;
    test_run (&t);
    t.v.rec.end_time = 0; /* running: until now */
    t.acct.state = "RUNNING";
    assert_string_equal (value ("Elapsed", &r), "00:01:00");
    assert_string_equal (value ("End", &r), "Unknown");
    t.v.rec.start_time = 0; /* pending: no nodes, its ncpus are asked */
    t.v.rec.nodelist = "";
    t.v.rec.time_limit = UINT32_MAX;
    t.acct.mem_per_cpu = true;
    t.acct.req_mem_mb = 1024; /* per CPU x the 8 asked */
    assert_string_equal (value ("Elapsed", &r), "00:00:00");
    assert_string_equal (value ("Start", &r), "Unknown");
    assert_string_equal (value ("NodeList", &r), "None assigned");
    assert_string_equal (value ("AllocCPUS", &r), "0");
    assert_string_equal (value ("Timelimit", &r), "UNLIMITED");
    assert_string_equal (value ("TimelimitRaw", &r), "UNLIMITED");
    assert_string_equal (value ("ReqMem", &r), "8G");
}

/* Comment comes from the job record the accounting record carries:
 * blank without one (a record of 2.11) and on a step's line. */
static void test_comment (void **state)
{
    struct test_run t;
    struct msg_acct_step s = test_step (0);
    struct acct_row r = { .view = &t.v, .now = T0 + 9999 };

    (void)state;
    test_run (&t);
    assert_string_equal (value ("Comment", &r), "");
    t.v.req.comment = "run 7 of the sweep";
    assert_string_equal (value ("Comment", &r), "run 7 of the sweep");
    assert_string_equal (value ("comm", &r), "run 7 of the sweep");
    r.step = &s;
    assert_string_equal (value ("Comment", &r), "");
}

/* QOS: the job record's, "normal" when it names none (a record written
 * before 2.14); blank on a step's line, as sacct's. */
static void test_qos (void **state)
{
    struct test_run t;
    struct msg_acct_step s = test_step (0);
    struct acct_row r = { .view = &t.v, .now = T0 + 9999 };

    (void)state;
    test_run (&t);
    assert_string_equal (value ("QOS", &r), "normal");
    t.v.rec.qos = "";
    assert_string_equal (value ("qos", &r), "normal");
    t.v.rec.qos = "high";
    assert_string_equal (value ("QOS", &r), "high");
    r.step = &s;
    assert_string_equal (value ("QOS", &r), "");
}

static void test_step_line (void **state)
{
    struct test_run t;
    struct msg_acct_step s = test_step (0);
    struct acct_row r = { .view = &t.v, .step = &s, .now = T0 + 9999 };

    (void)state;
    test_run (&t);
    s.name = "a.out";
    assert_string_equal (value ("JobName", &r), "a.out");
    assert_string_equal (value ("Partition", &r), "");
    assert_string_equal (value ("Account", &r), "phys");
    assert_string_equal (value ("User", &r), "");
    assert_string_equal (value ("AllocCPUS", &r), "4");
    assert_string_equal (value ("Elapsed", &r), "00:01:00");
    assert_string_equal (value ("CPUTime", &r), "00:04:00");
    assert_string_equal (value ("TotalCPU", &r), "00:01.500");
    assert_string_equal (value ("UserCPU", &r), "00:01.250");
    assert_string_equal (value ("SystemCPU", &r), "00:00.250");
    assert_string_equal (value ("MaxRSS", &r), "1180K");
    assert_string_equal (value ("MaxRSSNode", &r), "node1");
    assert_string_equal (value ("MaxRSSTask", &r), "0");
    assert_string_equal (value ("AveRSS", &r), "1180K");
    assert_string_equal (value ("NTasks", &r), "1");
    assert_string_equal (value ("NodeList", &r), "node1");
    assert_string_equal (value ("Timelimit", &r), "");
    assert_string_equal (value ("ReqMem", &r), "");
    assert_string_equal (value ("Submit", &r), "2026-01-02T03:04:10");
    s.exit_code = 0;
    s.signal = 15;
    assert_string_equal (value ("ExitCode", &r), "0:15");
    s.nodes_reported = 0; /* nothing measured yet */
    assert_string_equal (value ("MaxRSS", &r), "");
    s.alloc_cpus = 0; /* the job's */
    assert_string_equal (value ("AllocCPUS", &r), "8");
}

/* ---- layouts --------------------------------------------------------------
 */

static char *print_rows (const char *fields, enum acct_layout layout,
                         bool header, const struct acct_row *rows, size_t n)
{
    struct acct_format fmt = { 0 };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    arbor_error_t err;

    assert_int_equal (acct_format_parse (&fmt, fields, &err), 0);
    if (header)
        acct_print_header (f, &fmt, layout);
    for (size_t i = 0; i < n; i++)
        acct_print_row (f, &fmt, layout, &rows[i]);
    fclose (f);
    acct_format_clear (&fmt);
    return buf;
}

static void test_table (void **state)
{
    struct test_run t;
    struct msg_acct_step s = test_step (STEP_ID_BATCH);
    struct acct_row rows[2] = { { .view = &t.v },
                                { .view = &t.v, .step = &s } };
    char *out;

    (void)state;
    test_run (&t);
    out = print_rows (ACCT_DEFAULT_FORMAT, ACCT_TABLE, true, rows, 2);
    /* sacct's widths; long texts cut with '+' */
    assert_string_equal (out, "JobID           JobName  Partition    Account  "
                              "AllocCPUS      State ExitCode \n"
                              "------------ ---------- ---------- ---------- "
                              "---------- ---------- -------- \n"
                              "7            simulation      debug       phys"
                              "          8  COMPLETED      0:0 \n"
                              "7.batch           batch                  phys"
                              "          4  COMPLETED      0:0 \n");
    free (out);
    t.v.rec.name = "a_much_longer_name";
    out = print_rows ("JobName,JobID%3,NCPUS%1", ACCT_TABLE, false, rows, 1);
    assert_string_equal (out, "a_much_lo+   7 8 \n");
    free (out);
}

static void test_parsable (void **state)
{
    struct test_run t;
    struct msg_acct_step s = test_step (0);
    struct acct_row rows[2] = { { .view = &t.v },
                                { .view = &t.v, .step = &s } };
    char *out;

    (void)state;
    test_run (&t);
    t.v.rec.name = "a_much_longer_name";
    out = print_rows ("JobID,JobName,Partition,ExitCode", ACCT_PARSABLE2, true,
                      rows, 2);
    assert_string_equal (out, "JobID|JobName|Partition|ExitCode\n"
                              "7|a_much_longer_name|debug|0:0\n"
                              "7.0|batch||0:0\n");
    free (out);
    out = print_rows ("JobID,State", ACCT_PARSABLE, true, rows, 1);
    assert_string_equal (out, "JobID|State|\n7|COMPLETED|\n");
    free (out);
}

/* ---- selection and order ------------------------------------------------ */

static void test_sels (void **state)
{
    struct acct_sels sels = { 0 };
    struct test_run t;
    struct msg_job_rec *j = &t.v.rec;
    arbor_error_t err;

    (void)state;
    test_run (&t);
    assert_true (acct_sels_job (&sels, &t.v));
    assert_true (acct_sels_step (&sels, &t.v, 0));
    assert_int_equal (acct_sels_parse (&sels, "9.batch,5_2", &err), 0);
    assert_int_equal (sels.n, 2);
    assert_int_equal (acct_sels_parse (&sels, "9,x", &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "Invalid job id: x");
    assert_int_equal (sels.n, 2);
    assert_false (acct_sels_job (&sels, &t.v)); /* 7 is neither */
    j->id = 9;                                  /* only its batch step */
    assert_false (acct_sels_job (&sels, &t.v));
    assert_true (acct_sels_step (&sels, &t.v, STEP_ID_BATCH));
    assert_false (acct_sels_step (&sels, &t.v, 0));
    j->id = 12; /* task 2 of array 5: all of it */
    j->array_job_id = 5;
    j->array_task_id = 2;
    assert_true (acct_sels_job (&sels, &t.v));
    assert_true (acct_sels_step (&sels, &t.v, 0));
    j->array_task_id = 3;
    assert_false (acct_sels_job (&sels, &t.v));
    acct_sels_clear (&sels);
    /* N names array N's every task */
    assert_int_equal (acct_sels_parse (&sels, "5", &err), 0);
    assert_true (acct_sels_job (&sels, &t.v));
    acct_sels_clear (&sels);
}

static void test_order (void **state)
{
    struct test_run t[3];
    struct job_view jobs[3];
    struct msg_acct_step steps[5] = {
        test_step (1),
        test_step (0),
        test_step (STEP_ID_EXTERN),
        test_step (STEP_ID_BATCH),
        test_step (STEP_ID_INTERACTIVE),
    };
    const struct msg_acct_step *first;
    size_t n;

    (void)state;
    for (size_t i = 0; i < 3; i++) {
        test_run (&t[i]);
        jobs[i] = t[i].v;
    }
    jobs[0].rec.id = 9;
    t[1].acct.run = 1; /* job 7 requeued once: run 1 is the last */
    steps[1].run = 1;
    acct_sort_jobs (jobs, 3);
    assert_int_equal (jobs[0].rec.id, 7);
    assert_int_equal (jobs[0].acct->run, 0);
    assert_int_equal (jobs[1].acct->run, 1);
    assert_int_equal (jobs[2].rec.id, 9);
    assert_false (acct_last_run (jobs, 3, 0));
    assert_true (acct_last_run (jobs, 3, 1));
    assert_true (acct_last_run (jobs, 3, 2));
    acct_sort_steps (steps, 5);
    first = acct_steps_of (steps, 5, &jobs[0], &n);
    assert_int_equal (n, 4);
    assert_int_equal (first[0].step_id, STEP_ID_BATCH);
    assert_int_equal (first[1].step_id, STEP_ID_EXTERN);
    assert_int_equal (first[2].step_id, STEP_ID_INTERACTIVE);
    assert_int_equal (first[3].step_id, 1);
    first = acct_steps_of (steps, 5, &jobs[1], &n);
    assert_int_equal (n, 1);
    assert_int_equal (first[0].step_id, 0);
    assert_null (acct_steps_of (steps, 5, &jobs[2], &n));
    assert_int_equal (n, 0);
}

/* ---- --json ------------------------------------------------------------- */

#ifndef ARBOR_SOURCE_DIR
#error "ARBOR_SOURCE_DIR: the source tree, for docs/schema/"
#endif

/* Check that o's members are exactly $defs.<def>.required of
 * docs/schema/arbor.acct.schema.json, in that order. */
static void members_match (json_t *o, const char *def)
{
    const char *path = ARBOR_SOURCE_DIR "/docs/schema/arbor.acct.schema.json";
    json_error_t jerr;
    json_t *schema, *req, *v;
    const char *key;
    size_t i = 0;

    if (!(schema = json_load_file (path, 0, &jerr)))
        fail_msg ("%s: %s", path, jerr.text);
    req = json_object_get (
        json_object_get (json_object_get (schema, "$defs"), def), "required");
    assert_non_null (req);
    json_object_foreach (o, key, v)
    {
        const char *want = json_string_value (json_array_get (req, i));
        if (!want || strcmp (want, key))
            fail_msg ("%s member %zu: %s, schema has %s", def, i, key,
                      want ? want : "none");
        i++;
    }
    assert_int_equal (i, json_array_size (req));
    json_decref (schema);
}

static void test_json (void **state)
{
    struct test_run t;
    struct msg_acct_step s = test_step (STEP_ID_BATCH);
    const struct msg_acct_step *shown[1] = { &s };
    uint32_t times[1] = { T0 };
    char *events[1] = { "submitted by alice (uid 0)" };
    struct acct_json *d = acct_json_create ();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    json_t *root, *job, *step;

    (void)state;
    test_run (&t);
    t.acct.signal = 9;
    t.v.rec.end_time = 0;
    t.acct.event_times = times; /* the history: accounting's */
    t.acct.event_times_count = 1;
    t.acct.events = events;
    t.acct.events_count = 1;
    t.v.rec.name = "bad\xff";
    assert_int_equal (acct_json_add_job (d, &t.v, shown, 1), 0);
    assert_int_equal (acct_json_write (d, f), 0);
    fclose (f);
    acct_json_destroy (d);
    assert_non_null (root = json_loads (buf, 0, NULL));
    assert_string_equal (json_string_value (json_object_get (root, "schema")),
                         "arbor.acct");
    assert_int_equal (json_integer_value (json_object_get (root, "version")),
                      1);
    job = json_array_get (json_object_get (root, "jobs"), 0);
    assert_int_equal (json_integer_value (json_object_get (job, "job_id")), 7);
    assert_string_equal (json_string_value (json_object_get (job, "name")),
                         "bad?");
    assert_true (json_is_null (json_object_get (job, "end_time")));
    assert_true (json_is_null (json_object_get (job, "array_job_id")));
    /* a record of 2.11 carries no job record: what only it tells is null */
    assert_true (json_is_null (json_object_get (job, "comment")));
    /* but its QOS is the one there was */
    assert_string_equal (json_string_value (json_object_get (job, "qos")),
                         "normal");
    members_match (job, "job");
    assert_int_equal (json_integer_value (json_object_get (job, "submit_time")),
                      T0);
    assert_int_equal (json_integer_value (json_object_get (
                          json_object_get (job, "exit_code"), "signal")),
                      9);
    assert_string_equal (
        json_string_value (json_object_get (
            json_array_get (json_object_get (job, "events"), 0), "text")),
        "submitted by alice (uid 0)");
    step = json_array_get (json_object_get (job, "steps"), 0);
    assert_string_equal (json_string_value (json_object_get (step, "step")),
                         "batch");
    assert_int_equal (json_integer_value (json_object_get (step, "max_rss_kb")),
                      1180);
    json_decref (root);
    free (buf);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_exit_code),
        cmocka_unit_test (test_durations),
        cmocka_unit_test (test_sizes),
        cmocka_unit_test (test_times),
        cmocka_unit_test (test_parse_time),
        cmocka_unit_test (test_states),
        cmocka_unit_test (test_format_parse),
        cmocka_unit_test (test_fields_list),
        cmocka_unit_test (test_job_ids),
        cmocka_unit_test (test_job_line),
        cmocka_unit_test (test_comment),
        cmocka_unit_test (test_job_pending_running),
        cmocka_unit_test (test_qos),
        cmocka_unit_test (test_step_line),
        cmocka_unit_test (test_table),
        cmocka_unit_test (test_parsable),
        cmocka_unit_test (test_sels),
        cmocka_unit_test (test_order),
        cmocka_unit_test (test_json),
    };

    return cmocka_run_group_tests (tests, utc_setup, NULL);
}
