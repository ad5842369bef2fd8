/* fname_test.c - Slurm's file name patterns (fname.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fname.h"
#include "stepids.h"

static void expect (const char *pattern, const struct fname_vars *v,
                    const char *want)
{
    char *got = fname_expand (pattern, v);

    assert_non_null (got);
    assert_string_equal (got, want);
    free (got);
}

static void test_fields (void **state)
{
    struct fname_vars v = {
        .job_id = 42,
        .step_id = 3,
        .task = 7,
        .node_id = 1,
        .node = "node2",
        .user = "alice",
        .job_name = "sim",
        .array_task_id = FNAME_NO_ARRAY,
    };

    expect ("%j-%J-%s-%t-%n-%N-%u-%x-%%", &v,
            "42-42.3-3-7-1-node2-alice-sim-%");
    expect ("%A_%a", &v, "42_4294967294");
    v.array_job_id = 40;
    v.array_task_id = 2;
    expect ("slurm-%A_%a.out", &v, "slurm-40_2.out");
    expect ("%4j.%3t.%2x", &v, "0042.007.sim");
    expect ("%q %5 %", &v, "%q %5 %");
    expect ("", &v, "");
    v.node = NULL;
    expect ("%N", &v, "unknown");
}

static void test_special_steps (void **state)
{
    struct fname_vars v = { .job_id = 9, .step_id = STEP_ID_BATCH };

    expect ("%J %s", &v, "9 batch");
    v.step_id = STEP_ID_EXTERN;
    expect ("%J %s", &v, "9.extern extern");
    v.step_id = STEP_ID_INTERACTIVE;
    expect ("%s", &v, "interactive");
}

static void test_backslash_and_per_task (void **state)
{
    struct fname_vars v = { .job_id = 5 };

    expect ("out\\\\%j.txt", &v, "out%j.txt");
    expect ("a\\b", &v, "ab");
    assert_true (fname_per_task ("o.%t"));
    assert_true (fname_per_task ("o.%3n"));
    assert_true (fname_per_task ("%N.out"));
    assert_false (fname_per_task ("o.%j"));
    assert_false (fname_per_task ("o.%%t"));
    assert_false (fname_per_task ("o\\\\%t"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_fields),
        cmocka_unit_test (test_special_steps),
        cmocka_unit_test (test_backslash_and_per_task),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
