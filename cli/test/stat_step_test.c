/* stat_step_test.c - sstat's sums over nodes (stat_step.h) and its
 * fields and layouts (stat_fields.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stat_fields.h"
#include "stat_step.h"

/* Two tasks on node1 (ranks 0, 1), one on node2 (rank 2). */
static void add_nodes (struct stat_step *s)
{
    uint32_t r1[] = { 0, 1 }, cpu1[] = { 150, 90 }, rss1[] = { 1024, 4096 },
             vs1[] = { 8192, 8192 }, pg1[] = { 3, 1 }, rd1[] = { 10, 0 },
             wr1[] = { 0, 2048 }, pids1[] = { 100, 101, 102 },
             pr1[] = { 0, 1, 1 };
    uint32_t r2[] = { 2 }, cpu2[] = { 400 }, rss2[] = { 2048 },
             vs2[] = { 10240 }, pg2[] = { 7 }, rd2[] = { 5 }, wr2[] = { 1 },
             pids2[] = { 200 }, pr2[] = { 2 };
    struct msg_step_stat_reply a = {
        .node = "node1",
        .ranks = r1,
        .ranks_count = 2,
        .cpu_cs = cpu1,
        .cpu_cs_count = 2,
        .rss_kb = rss1,
        .rss_kb_count = 2,
        .vsize_kb = vs1,
        .vsize_kb_count = 2,
        .pages = pg1,
        .pages_count = 2,
        .read_kb = rd1,
        .read_kb_count = 2,
        .write_kb = wr1,
        .write_kb_count = 2,
        .pids = pids1,
        .pids_count = 3,
        .pid_ranks = pr1,
        .pid_ranks_count = 3,
    };
    struct msg_step_stat_reply b = {
        .node = "node2",
        .ranks = r2,
        .ranks_count = 1,
        .cpu_cs = cpu2,
        .cpu_cs_count = 1,
        .rss_kb = rss2,
        .rss_kb_count = 1,
        .vsize_kb = vs2,
        .vsize_kb_count = 1,
        .pages = pg2,
        .pages_count = 1,
        .read_kb = rd2,
        .read_kb_count = 1,
        .write_kb = wr2,
        .write_kb_count = 1,
        .pids = pids2,
        .pids_count = 1,
        .pid_ranks = pr2,
        .pid_ranks_count = 1,
    };

    assert_int_equal (stat_step_add (s, &a), 0);
    assert_int_equal (stat_step_add (s, &b), 0);
}

static void test_sums (void **state)
{
    struct stat_step s;

    (void)state;
    assert_int_equal (stat_step_init (&s, 5, 0, "node[1-2]"), 0);
    add_nodes (&s);
    assert_int_equal (s.ntasks, 3);
    assert_int_equal (s.rss_kb.ext.value, 4096);
    assert_int_equal (s.rss_kb.ext.task, 1);
    assert_string_equal (s.rss_kb.ext.node, "node1");
    assert_int_equal (stat_step_ave (&s, &s.rss_kb), (1024 + 4096 + 2048) / 3);
    assert_int_equal (s.cpu_cs.ext.value, 90); /* MinCPU: the least */
    assert_int_equal (s.cpu_cs.ext.task, 1);
    assert_int_equal (s.vsize_kb.ext.task, 2);
    assert_string_equal (s.vsize_kb.ext.node, "node2");
    assert_int_equal (s.pages.ext.value, 7);
    assert_int_equal (s.write_kb.ext.value, 2048);
    assert_string_equal (s.pids, "100,101,102,200");
    stat_step_clear (&s);
}

/* A reply with lists shorter than its ranks (a stepd of another
 * version): the missing values count as 0. */
static void test_short_lists (void **state)
{
    uint32_t ranks[] = { 0, 1 }, cpu[] = { 5 };
    struct msg_step_stat_reply r = { .node = "n",
                                     .ranks = ranks,
                                     .ranks_count = 2,
                                     .cpu_cs = cpu,
                                     .cpu_cs_count = 1 };
    struct stat_step s;

    (void)state;
    assert_int_equal (stat_step_init (&s, 1, 2, "n"), 0);
    assert_int_equal (stat_step_add (&s, &r), 0);
    assert_int_equal (s.ntasks, 2);
    assert_int_equal (s.cpu_cs.ext.value, 0);
    assert_int_equal (s.cpu_cs.ext.task, 1);
    assert_string_equal (s.pids, "");
    stat_step_clear (&s);
}

static char *render (const char *fields, enum acct_layout layout, bool header)
{
    struct acct_format fmt = { 0 };
    struct stat_step s;
    struct acct_row row = { .ext = &s };
    arbor_error_t err;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);

    assert_int_equal (acct_format_parse_in (&fmt, fields, &stat_table, &err),
                      0);
    assert_int_equal (stat_step_init (&s, 5, 0, "node[1-2]"), 0);
    add_nodes (&s);
    if (header)
        acct_print_header (f, &fmt, layout);
    acct_print_row (f, &fmt, layout, &row);
    fclose (f);
    stat_step_clear (&s);
    acct_format_clear (&fmt);
    return buf;
}

static void test_fields (void **state)
{
    char *out;

    (void)state;
    out = render ("JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,NTasks,MinCPU,"
                  "MinCPUTask,AveCPU,MaxPages,MaxDiskWrite,Nodelist,Pids",
                  ACCT_PARSABLE2, true);
    assert_string_equal (
        out, "JobID|MaxRSS|MaxRSSNode|MaxRSSTask|AveRSS|NTasks|MinCPU|"
             "MinCPUTask|AveCPU|MaxPages|MaxDiskWrite|Nodelist|Pids\n"
             "5.0|4M|node1|1|2389K|3|00:00.900|1|00:02.130|7|2M|node[1-2]|"
             "100,101,102,200\n");
    free (out);
}

static void test_table_layout (void **state)
{
    char *out;

    (void)state;
    out = render ("JobID,NTasks,MaxRSS", ACCT_TABLE, true);
    assert_string_equal (out, "JobID          NTasks     MaxRSS \n"
                              "------------ -------- ---------- \n"
                              "5.0                 3         4M \n");
    free (out);
}

static void test_bad_field (void **state)
{
    struct acct_format fmt = { 0 };
    arbor_error_t err;

    (void)state;
    assert_int_equal (
        acct_format_parse_in (&fmt, "JobID,ConsumedEnergy", &stat_table, &err),
        -1);
    assert_string_equal (err.text,
                         "Invalid field requested: \"ConsumedEnergy\"");
    /* sacct's own fields are not sstat's */
    assert_int_equal (acct_format_parse_in (&fmt, "State", &stat_table, &err),
                      -1);
    assert_int_equal (acct_format_parse (&fmt, STAT_DEFAULT_FORMAT, &err), -1);
    assert_int_equal (
        acct_format_parse_in (&fmt, STAT_DEFAULT_FORMAT, &stat_table, &err), 0);
    assert_int_equal (fmt.ncols, 26);
    acct_format_clear (&fmt);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_sums),      cmocka_unit_test (test_short_lists),
        cmocka_unit_test (test_fields),    cmocka_unit_test (test_table_layout),
        cmocka_unit_test (test_bad_field),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
