/* prio_text_test.c - sprio's table (prio_text.h): columns chosen by the
 * weights and options, widths, -n, -l, -w, filters and the refusal of
 * priority/basic. Expected lines are sprio 22.05's layout. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "prio_text.h"

/* Two pending jobs, in scheduling order (12 before 7), which the table
 * keeps. */
static uint32_t ids[] = { 12, 7 };
static char *users[] = { "bob", "alice" };
static char *parts[] = { "debug", "batch" };
static uint32_t prios[] = { 1250, 1100 };
static uint32_t ages[] = { 750, 1000 };
static uint32_t sizes[] = { 500, 100 };
static uint32_t partf[] = { 0, 0 };
static int32_t nices[] = { 0, 0 };
static uint32_t tiers[] = { 1, 1 };

static struct msg_prio_info_reply reply (void)
{
    return (struct msg_prio_info_reply){
        .type = "priority/multifactor",
        .weight_age = 1000,
        .weight_job_size = 500,
        .weight_partition = 0,
        .max_age = 10080,
        .job_ids = ids,
        .job_ids_count = 2,
        .users = users,
        .users_count = 2,
        .partitions = parts,
        .partitions_count = 2,
        .priorities = prios,
        .priorities_count = 2,
        .age = ages,
        .age_count = 2,
        .job_size = sizes,
        .job_size_count = 2,
        .part = partf,
        .part_count = 2,
        .nice = nices,
        .nice_count = 2,
        .tiers = tiers,
        .tiers_count = 2,
    };
}

/* The table as text; caller frees. */
static char *table (const struct msg_prio_info_reply *r,
                    const struct prio_view *v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);

    assert_non_null (f);
    assert_int_equal (prio_text_print (f, r, v), 0);
    fclose (f);
    return buf;
}

static void assert_table (const struct msg_prio_info_reply *r,
                          const struct prio_view *v, const char *want)
{
    char *got = table (r, v);

    assert_string_equal (got, want);
    free (got);
}

/* Factor columns whose weight is 0 are left out; rows by job id. */
static void test_default (void **state)
{
    struct msg_prio_info_reply r = reply ();
    struct prio_view v = { 0 };

    assert_table (&r, &v,
                  "          JOBID PARTITION   PRIORITY       SITE        AGE "
                  "   JOBSIZE\n"
                  "             12 debug           1250          0        750 "
                  "       500\n"
                  "              7 batch           1100          0       1000 "
                  "       100\n");
    r.weight_job_size = 0;
    r.weight_partition = 10;
    assert_table (&r, &v,
                  "          JOBID PARTITION   PRIORITY       SITE        AGE "
                  " PARTITION\n"
                  "             12 debug           1250          0        750 "
                  "         0\n"
                  "              7 batch           1100          0       1000 "
                  "         0\n");
}

/* NICE appears once some job has a nice value; -u adds USER. */
static void test_nice_and_user (void **state)
{
    struct msg_prio_info_reply r = reply ();
    struct prio_view v = { .users = true };
    int32_t niced[] = { -5, 100 };

    r.nice = niced;
    r.weight_age = 0;
    assert_table (&r, &v,
                  "          JOBID PARTITION     USER   PRIORITY       SITE "
                  "   JOBSIZE        NICE\n"
                  "             12 debug          bob       1250          0 "
                  "       500          -5\n"
                  "              7 batch        alice       1100          0 "
                  "       100         100\n");
}

/* -l: USER and every factor and NICE, whatever the weights. */
static void test_long (void **state)
{
    struct msg_prio_info_reply r = reply ();
    struct prio_view v = { .longfmt = true };

    assert_table (&r, &v,
                  "          JOBID PARTITION     USER   PRIORITY       SITE "
                  "       AGE    JOBSIZE  PARTITION        QOS        NICE\n"
                  "             12 debug          bob       1250          0 "
                  "       750        500          0          0           0\n"
                  "              7 batch        alice       1100          0 "
                  "      1000        100          0          0           0\n");
}

/* -n: value / weight with 7 decimals, the priority over 2^32-1 cut to
 * its column, all left-aligned; no SITE. A zero weight gives 0. */
static void test_norm (void **state)
{
    struct msg_prio_info_reply r = reply ();
    struct prio_view v = { .norm = true };

    assert_table (
        &r, &v,
        "          JOBID PARTITION PRIORITY   AGE        JOBSIZE   \n"
        "             12 debug     0.00000029 0.7500000  1.0000000 \n"
        "              7 batch     0.00000025 1.0000000  0.2000000 \n");
    v.longfmt = true;
    v.noheader = true;
    assert_table (&r, &v,
                  "             12 debug          bob 0.00000029 0.7500000  "
                  "1.0000000  0.0000000  0.0000000 \n"
                  "              7 batch        alice 0.00000025 1.0000000  "
                  "0.2000000  0.0000000  0.0000000 \n");
}

/* -w: the weights under the header, SITE's as 1; never a NICE column. */
static void test_weights (void **state)
{
    struct msg_prio_info_reply r = reply ();
    struct prio_view v = { .weights_only = true };
    int32_t niced[] = { 0, 7 };

    r.nice = niced;
    assert_table (&r, &v,
                  "          JOBID PARTITION   PRIORITY       SITE        AGE "
                  "   JOBSIZE\n"
                  "        Weights                               1       1000 "
                  "       500\n");
    v.noheader = true;
    v.longfmt = true;
    assert_table (&r, &v,
                  "        Weights                                        1 "
                  "      1000        500          0          0            \n");
}

/* Long names are cut to the column, as sprio cuts them. */
static void test_cut (void **state)
{
    struct msg_prio_info_reply r = reply ();
    struct prio_view v = { .users = true, .noheader = true };
    char *long_users[] = { "maximilian", "alice" };
    char *long_parts[] = { "verylongpartition", "batch" };

    r.users = long_users;
    r.partitions = long_parts;
    r.weight_age = r.weight_job_size = 0;
    assert_table (&r, &v,
                  "             12 verylongp maximili       1250          0\n"
                  "              7 batch        alice       1100          0\n");
}

/* -p a,b filters here; -j with nothing left says so; without -j an
 * empty queue is the header alone. */
static void test_filters (void **state)
{
    struct msg_prio_info_reply r = reply ();
    struct prio_view v = { .noheader = true, .partitions = "debug,other" };

    r.weight_age = r.weight_job_size = 0;
    assert_table (&r, &v, "             12 debug           1250          0\n");
    v.partitions = "none";
    v.jobs = true;
    assert_table (&r, &v,
                  "Unable to find jobs matching user/id(s) specified\n");
    v = (struct prio_view){ 0 };
    r.job_ids_count = 0;
    assert_table (&r, &v, "          JOBID PARTITION   PRIORITY       SITE\n");
}

/* An older controller's shorter lists read as 0 and "". */
static void test_short_lists (void **state)
{
    struct msg_prio_info_reply r = reply ();
    struct prio_view v = { .longfmt = true, .noheader = true };

    r.users_count = r.partitions_count = r.priorities_count = 0;
    r.age_count = r.job_size_count = r.part_count = r.nice_count = 1;
    assert_table (&r, &v,
                  "             12                             0          0 "
                  "       750        500          0          0           0\n"
                  "              7                             0          0 "
                  "         0          0          0          0           0\n");
}

/* PriorityWeightQOS (2.14): a QOS column after PARTITION when its
 * weight is not 0, the weight under it with -w, the factor over the
 * weight with -n. */
static void test_qos (void **state)
{
    struct msg_prio_info_reply r = reply ();
    struct prio_view v = { 0 };
    uint32_t qos[] = { 2000, 0 };
    char *names[] = { "high", "normal" };

    r.weight_job_size = 0;
    r.weight_qos = 2000;
    r.qos = qos;
    r.qos_count = 2;
    r.qos_names = names;
    r.qos_names_count = 2;
    assert_table (&r, &v,
                  "          JOBID PARTITION   PRIORITY       SITE        AGE "
                  "       QOS\n"
                  "             12 debug           1250          0        750 "
                  "      2000\n"
                  "              7 batch           1100          0       1000 "
                  "         0\n");
    v.weights_only = true;
    assert_table (&r, &v,
                  "          JOBID PARTITION   PRIORITY       SITE        AGE "
                  "       QOS\n"
                  "        Weights                               1       1000 "
                  "      2000\n");
    v = (struct prio_view){ .norm = true, .noheader = true };
    assert_table (&r, &v,
                  "             12 debug     0.00000029 0.7500000  1.0000000 \n"
                  "              7 batch     0.00000025 1.0000000  0.0000000 "
                  "\n");
}

static void test_unsupported (void **state)
{
    char buf[256];

    assert_string_equal (
        prio_text_unsupported ("priority/basic", buf, sizeof (buf)),
        "You are not running a supported priority plugin\n"
        "(priority/basic).\n"
        "Only 'priority/multifactor' is supported.\n");
    assert_null (
        prio_text_unsupported ("priority/multifactor", buf, sizeof (buf)));
    assert_null (prio_text_unsupported ("", buf, sizeof (buf)));
    assert_null (prio_text_unsupported (NULL, buf, sizeof (buf)));
}

/* priority/wait: P, Y and k t E as decimals, RESERVE once P reached P_th;
 * -w shows P_th. */
static void test_wait (void **state)
{
    struct msg_prio_info_reply r = reply ();
    struct prio_view v = { 0 }, w = { .weights_only = true };
    uint32_t p[] = { 17000, 12958 }, y[] = { 15000, 8000 },
             kte[] = { 2000, 4958 }, res[] = { 1, 0 };

    r.type = "priority/wait";
    r.threshold = 17000;
    r.priorities = p;
    r.preset = y;
    r.preset_count = 2;
    r.wait = kte;
    r.wait_count = 2;
    r.reserve = res;
    r.reserve_count = 2;
    assert_table (&r, &v,
                  "          JOBID PARTITION   PRIORITY     PRESET       WAIT "
                  "RESERVE\n"
                  "             12 debug         17.000     15.000      2.000 "
                  "    yes\n"
                  "              7 batch         12.958      8.000      4.958 "
                  "     no\n");
    assert_table (&r, &w,
                  "          JOBID PARTITION   PRIORITY     PRESET       WAIT "
                  "RESERVE\n"
                  "        Weights               17.000                        "
                  "      \n");
    assert_null (
        prio_text_unsupported ("priority/wait", (char[200]){ 0 }, 200));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_default), cmocka_unit_test (test_nice_and_user),
        cmocka_unit_test (test_long),    cmocka_unit_test (test_norm),
        cmocka_unit_test (test_weights), cmocka_unit_test (test_cut),
        cmocka_unit_test (test_filters), cmocka_unit_test (test_short_lists),
        cmocka_unit_test (test_qos),     cmocka_unit_test (test_unsupported),
        cmocka_unit_test (test_wait),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
