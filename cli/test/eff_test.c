/* eff_test.c - seff's figures: CPU and memory efficiency of a job from
 * its view and its steps' accounting records, seff's sizes and its
 * report text.
 *
 * A job run is its view (jobview_acct.h), made here field by field, and
 * the accounting record it points at (struct eff_run).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "acct/acct.h"

/* The accounting record (state, exit and memory as accounted) and the
 * view that points at it, made in place; strings are the test's own. */
struct eff_run {
    struct msg_acct_job acct;
    struct job_view v;
};

static void eff_job (struct eff_run *t)
{
    t->acct = (struct msg_acct_job){
        .job_id = 7,
        .cluster = "arbor",
        .state = "COMPLETED",
        .req_mem_mb = 4096, /* per node */
    };
    t->v = (struct job_view){
        .rec = {
            .id = 7,
            .user = "alice",
            .start_time = 1000,
            .end_time = 1120, /* 2 minutes */
            .nnodes = 2,
            .nodelist = "node[1-2]",
            .ncpus = 8,
        },
        .acct = &t->acct,
    };
}

static struct msg_acct_step eff_step (uint64_t user_s, uint64_t rss_kb)
{
    struct msg_acct_step s = {
        .job_id = 7,
        .nodes_reported = 1,
        .user_usec = user_s * 1000000,
        .sys_usec = 400000,
        .max_rss_kb = rss_kb,
    };
    return s;
}

static char *report (const struct eff_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);

    eff_print (f, r, "users");
    fclose (f);
    return buf;
}

static void test_compute (void **state)
{
    struct eff_run t;
    struct msg_job_rec *j = &t.v.rec;
    struct msg_acct_step s[2] = { eff_step (300, 1048576),
                                  eff_step (301, 512) };
    struct eff_report r;

    (void)state;
    eff_job (&t);
    eff_compute (&t.v, s, 2, 5000, &r);
    assert_int_equal (r.ncpus, 8);
    assert_int_equal (r.nnodes, 2);
    assert_int_equal (r.walltime_s, 120);
    assert_int_equal (r.cpu_used_s, 602);      /* 601.8 rounded */
    assert_int_equal (r.mem_used_kb, 1048576); /* the largest MaxRSS */
    assert_int_equal (r.mem_asked_kb, 2 * 4096 * 1024);
    assert_true (eff_cpu_percent (&r) > 62.70 && eff_cpu_percent (&r) < 62.71);
    assert_true (eff_mem_percent (&r) > 12.49 && eff_mem_percent (&r) < 12.51);
    /* per CPU: times the CPUs */
    t.acct.mem_per_cpu = true;
    t.acct.req_mem_mb = 1024;
    eff_compute (&t.v, s, 2, 5000, &r);
    assert_int_equal (r.mem_asked_kb, 8 * 1024 * 1024);
    /* a step that reported nothing counts for no memory */
    s[0].nodes_reported = 0;
    eff_compute (&t.v, s, 2, 5000, &r);
    assert_int_equal (r.mem_used_kb, 512);
    /* running: wall time up to now; nothing asked: 0% */
    j->end_time = 0;
    t.acct.req_mem_mb = 0;
    eff_compute (&t.v, NULL, 0, 1060, &r);
    assert_int_equal (r.walltime_s, 60);
    assert_int_equal (r.cpu_used_s, 0);
    assert_true (eff_mem_percent (&r) == 0.0);
    /* never started */
    j->start_time = 0;
    j->nodelist = ""; /* no nodes: none held */
    j->nnodes = 0;
    eff_compute (&t.v, NULL, 0, 1060, &r);
    assert_int_equal (r.walltime_s, 0);
    assert_int_equal (r.ncpus, 1);
    assert_int_equal (r.nnodes, 1);
    assert_true (eff_cpu_percent (&r) == 0.0);
}

static void test_kbytes (void **state)
{
    char b[32];

    (void)state;
    assert_string_equal (eff_kbytes_text (0, b, sizeof (b)), "0.00 MB");
    assert_string_equal (eff_kbytes_text (512, b, sizeof (b)), "512.00 KB");
    assert_string_equal (eff_kbytes_text (1024, b, sizeof (b)), "1.00 MB");
    assert_string_equal (eff_kbytes_text (1572864, b, sizeof (b)), "1.50 GB");
    assert_string_equal (eff_kbytes_text (8388608, b, sizeof (b)), "8.00 GB");
}

static void test_print_completed (void **state)
{
    struct eff_run t;
    struct msg_acct_step s = eff_step (602, 1258291);
    struct eff_report r;
    char *out;

    (void)state;
    eff_job (&t);
    t.acct.exit_code = 3;
    eff_compute (&t.v, &s, 1, 0, &r);
    out = report (&r);
    assert_string_equal (out, "Job ID: 7\n"
                              "Cluster: arbor\n"
                              "User/Group: alice/users\n"
                              "State: COMPLETED (exit code 3)\n"
                              "Nodes: 2\n"
                              "Cores per node: 4\n"
                              "CPU Utilized: 00:10:02\n"
                              "CPU Efficiency: 62.71% of 00:16:00 "
                              "core-walltime\n"
                              "Job Wall-clock time: 00:02:00\n"
                              "Memory Utilized: 1.20 GB\n"
                              "Memory Efficiency: 15.00% of 8.00 GB "
                              "(4.00 GB/node)\n");
    free (out);
}

static void test_print_running_pending (void **state)
{
    struct eff_run t;
    struct msg_job_rec *j = &t.v.rec;
    struct eff_report r;
    char *out;

    (void)state;
    eff_job (&t);
    t.acct.state = "RUNNING";
    j->end_time = 0;
    j->ncpus = 1;
    j->nnodes = 1;
    j->array_job_id = 5;
    j->array_task_id = 2;
    t.acct.mem_per_cpu = true;
    eff_compute (&t.v, NULL, 0, 1030, &r);
    out = report (&r);
    assert_string_equal (out, "Job ID: 7\n"
                              "Array Job ID: 5_2\n"
                              "Cluster: arbor\n"
                              "User/Group: alice/users\n"
                              "State: RUNNING\n"
                              "Cores: 1\n"
                              "CPU Utilized: 00:00:00\n"
                              "CPU Efficiency: 0.00% of 00:00:30 "
                              "core-walltime\n"
                              "Job Wall-clock time: 00:00:30\n"
                              "Memory Utilized: 0.00 MB\n"
                              "Memory Efficiency: 0.00% of 4.00 GB "
                              "(4.00 GB/core)\n"
                              "WARNING: Efficiency statistics may be "
                              "misleading for RUNNING jobs.\n");
    free (out);
    t.acct.state = "PENDING";
    j->start_time = 0;
    eff_compute (&t.v, NULL, 0, 1030, &r);
    out = report (&r);
    assert_non_null (strstr (out, "State: PENDING\nCores: 1\n"
                                  "Efficiency not available for jobs in "
                                  "the PENDING state.\n"));
    assert_null (strstr (out, "CPU Utilized"));
    free (out);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_compute),
        cmocka_unit_test (test_kbytes),
        cmocka_unit_test (test_print_completed),
        cmocka_unit_test (test_print_running_pending),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
