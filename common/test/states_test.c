/* states_test.c - unit tests for the shared job and node state tables:
 * every entry present and distinct, the names and codes both ends rely
 * on, parsing in any case, flags, and out-of-range values. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>

#include "states.h"

/* No hole in either table, no name or code used twice. */
static void check_table (const struct state_info *(*info) (int), int n)
{
    for (int i = 0; i < n; i++) {
        const struct state_info *a = info (i);
        assert_non_null (a->name);
        assert_non_null (a->code);
        for (int k = 0; k < i; k++) {
            assert_true (strcasecmp (a->name, info (k)->name) != 0);
            assert_true (strcasecmp (a->code, info (k)->code) != 0);
        }
    }
}

static const struct state_info *job_info (int i)
{
    return job_state_info ((enum job_state)i);
}

static const struct state_info *node_info (int i)
{
    return node_state_info ((enum node_state)i);
}

static void test_complete (void **state)
{
    check_table (job_info, JOB_STATE_COUNT);
    check_table (node_info, NODE_STATE_COUNT);
}

/* The names go on the wire: they must never change. */
static void test_job_names (void **state)
{
    static const char *const want[][2] = {
        { "PENDING", "PD" },   { "RUNNING", "R" },
        { "SUSPENDED", "S" },  { "COMPLETING", "CG" },
        { "COMPLETED", "CD" }, { "FAILED", "F" },
        { "CANCELLED", "CA" }, { "TIMEOUT", "TO" },
        { "NODE_FAIL", "NF" }, { "OUT_OF_MEMORY", "OOM" },
        { "REQUEUED", "RQ" },
    };

    assert_int_equal (sizeof (want) / sizeof (want[0]), JOB_STATE_COUNT);
    for (int i = 0; i < JOB_STATE_COUNT; i++) {
        assert_string_equal (job_state_info (i)->name, want[i][0]);
        assert_string_equal (job_state_info (i)->code, want[i][1]);
        assert_string_equal (job_state_str (i), want[i][0]);
    }
}

static void test_node_names (void **state)
{
    static const char *const want[][2] = {
        { "UNKNOWN", "unknown" }, { "IDLE", "idle" },
        { "MIXED", "mix" },       { "ALLOCATED", "alloc" },
        { "COMPLETING", "comp" }, { "DRAINING", "drng" },
        { "DRAIN", "drain" },     { "DOWN", "down" },
    };

    assert_int_equal (sizeof (want) / sizeof (want[0]), NODE_STATE_COUNT);
    for (int i = 0; i < NODE_STATE_COUNT; i++) {
        assert_string_equal (node_state_info (i)->name, want[i][0]);
        assert_string_equal (node_state_info (i)->code, want[i][1]);
    }
}

static void test_parse (void **state)
{
    assert_int_equal (job_state_parse ("RUNNING", false), JOB_RUNNING);
    assert_int_equal (job_state_parse ("Running", false), JOB_RUNNING);
    assert_int_equal (job_state_parse ("out_of_memory", false),
                      JOB_OUT_OF_MEMORY);
    assert_int_equal (job_state_parse ("pd", true), JOB_PENDING);
    assert_int_equal (job_state_parse ("CG", true), JOB_COMPLETING);
    assert_int_equal (node_state_parse ("draining", false),
                      NODE_STATE_DRAINING);
    assert_int_equal (node_state_parse ("drng", true), NODE_STATE_DRAINING);
    assert_int_equal (node_state_parse ("MIX", true), NODE_STATE_MIXED);

    /* Codes only when asked for; no prefixes, no unknown words. */
    const char *bad[] = { "R", "RUN", "RUNNINGX", "", "all", "??" };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        errno = 0;
        assert_int_equal (job_state_parse (bad[i], false), -1);
        assert_int_equal (errno, EINVAL);
    }
    errno = 0;
    assert_int_equal (job_state_parse ("RUN", true), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (job_state_parse (NULL, true), -1);
    assert_int_equal (node_state_parse ("mix", false), -1);
    assert_int_equal (node_state_parse ("NOT_RESPONDING", true), -1);
    assert_int_equal (node_state_parse (NULL, true), -1);
}

static void test_flags (void **state)
{
    for (int i = 0; i < JOB_STATE_COUNT; i++) {
        unsigned f = job_state_info (i)->flags;
        bool active =
            i == JOB_PENDING || i == JOB_RUNNING || i == JOB_SUSPENDED;
        assert_int_equal (!!(f & STATE_ACTIVE), active);
        assert_int_equal (!!(f & STATE_FINISHED),
                          !active && i != JOB_COMPLETING);
    }
    for (int i = 0; i < NODE_STATE_COUNT; i++)
        assert_int_equal (node_state_info (i)->flags, 0);
}

static void test_out_of_range (void **state)
{
    assert_string_equal (job_state_str (JOB_STATE_COUNT), "UNKNOWN");
    assert_string_equal (job_state_info (-1)->code, "??");
    assert_int_equal (job_state_info (JOB_STATE_COUNT + 5)->flags, 0);
    assert_ptr_equal (node_state_info (NODE_STATE_COUNT),
                      node_state_info (NODE_STATE_UNKNOWN));
    assert_ptr_equal (node_state_info (-1),
                      node_state_info (NODE_STATE_UNKNOWN));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_complete),
        cmocka_unit_test (test_job_names),
        cmocka_unit_test (test_node_names),
        cmocka_unit_test (test_parse),
        cmocka_unit_test (test_flags),
        cmocka_unit_test (test_out_of_range),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
