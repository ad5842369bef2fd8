/* sim_test.c - arbor-sim's pieces: the SWF reader (fields, header,
 * fallbacks, skipped and malformed lines) and one replay on a small
 * hand-made trace where the figures are known: under FCFS the small job
 * waits behind the big one; with backfill it runs in the gap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "log.h"
#include "simrun.h"
#include "swf.h"

static int read_text (const char *text, struct swf_trace *t, arbor_error_t *err)
{
    FILE *f = fmemopen ((void *)text, strlen (text), "r");
    int rc;

    assert_non_null (f);
    rc = swf_read (f, "t.swf", t, err);
    fclose (f);
    return rc;
}

static void test_reader (void **state)
{
    struct swf_trace t;
    arbor_error_t err;

    assert_int_equal (read_text ("; MaxNodes: 8\n; MaxProcs: 16\n"
                                 "1 10 -1 100 4 -1 -1 -1 -1 -1 1 -1 -1 -1 "
                                 "0 -1 -1 -1\n"
                                 "2 20 -1 50 4 -1 -1 2 300 -1 1 -1 -1 -1 0 "
                                 "-1 -1 -1\n"
                                 "3 30 -1 -1 4 -1 -1 -1 -1 -1 0 -1 -1 -1 0 "
                                 "-1 -1 -1\n\n",
                                 &t, &err),
                      0);
    assert_int_equal (t.max_procs, 16); /* MaxProcs wins over MaxNodes */
    assert_int_equal (t.njobs, 2);
    assert_int_equal (t.skipped, 1);            /* no run time */
    assert_int_equal (t.jobs[0].procs, 4);      /* allocated: none asked */
    assert_int_equal (t.jobs[0].req_time, 100); /* its run time */
    assert_int_equal (t.jobs[1].procs, 2);      /* asked */
    assert_int_equal (t.jobs[1].req_time, 300);
    swf_free (&t);
    assert_int_equal (read_text ("1 2 3\n", &t, &err), -1);
    assert_string_equal (err.text, "t.swf:1: not an SWF job line (18 numbers)");
}

static const char conf_fcfs[] = "ClusterName=s\nNodedPort=1\nMinJobAge=0\n"
                                "NodeName=n[1-4] CPUs=1\n"
                                "PartitionName=p Nodes=ALL Default=YES\n";

/* t=0: A takes 2 of 4 CPUs for 1000 s; t=10: B needs all 4 (waits for
 * A); t=20: C needs 1 for 100 s: FCFS keeps it behind B, backfill runs it
 * at once. */
static const struct swf_job trace[] = {
    { .id = 1, .submit = 0, .run = 1000, .procs = 2, .req_time = 1000 },
    { .id = 2, .submit = 10, .run = 1000, .procs = 4, .req_time = 1000 },
    { .id = 3, .submit = 20, .run = 100, .procs = 1, .req_time = 100 },
};

static void test_replay (void **state)
{
    char conf[512];
    struct sim_result r;
    arbor_error_t err;

    assert_int_equal (sim_run (conf_fcfs, trace, 3, 4, &r, &err), 0);
    assert_int_equal (r.jobs, 3);
    /* waits: 0, B from 10 to 1000 (A's end), C from 20 to 2000 */
    assert_true (r.avg_wait > (0 + 990 + 1980) / 3.0 - 1);
    assert_true (r.avg_wait < (0 + 990 + 1980) / 3.0 + 1);
    assert_int_equal (r.makespan, 2100);
    snprintf (conf, sizeof (conf), "%sSchedulerType=sched/backfill\n",
              conf_fcfs);
    assert_int_equal (sim_run (conf, trace, 3, 4, &r, &err), 0);
    /* C runs at 20 and ends at 120, before B's start at 1000 */
    assert_true (r.avg_wait < (0 + 990 + 0) / 3.0 + 1);
    assert_int_equal (r.makespan, 2000);
    assert_int_equal (sim_run ("NodeName=", trace, 3, 4, &r, &err), -1);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_reader),
        cmocka_unit_test (test_replay),
    };

    log_open ("sim_test", LOG_LVL_ERR, NULL);
    return cmocka_run_group_tests (tests, NULL, NULL);
}
