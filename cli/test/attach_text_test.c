/* attach_text_test.c - sattach's arguments, output filters and layout
 * (attach_text.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "attach_text.h"
#include "proto.h"

static void test_parse_step (void **state)
{
    uint32_t job = 7, step = 7;

    (void)state;
    assert_int_equal (attach_parse_step ("5.0", &job, &step), 0);
    assert_int_equal (job, 5);
    assert_int_equal (step, 0);
    assert_int_equal (attach_parse_step ("12.3", &job, &step), 0);
    assert_int_equal (job, 12);
    assert_int_equal (step, 3);
    assert_int_equal (attach_parse_step ("9.interactive", &job, &step), 0);
    assert_int_equal (step, STEP_ID_INTERACTIVE);
    assert_int_equal (attach_parse_step ("9.batch", &job, &step), 0);
    assert_int_equal (step, STEP_ID_BATCH);
    assert_false (attach_step_has_io (STEP_ID_BATCH));
    assert_false (attach_step_has_io (STEP_ID_EXTERN));
    assert_true (attach_step_has_io (STEP_ID_INTERACTIVE));
    assert_true (attach_step_has_io (0));

    /* no step, an array task, junk: refused, outputs untouched */
    job = step = 42;
    const char *bad[] = { "5", "5_3.0", "5.x", "", "5.", ".0", "x.0", NULL };
    for (const char **b = bad; *b; b++) {
        errno = 0;
        assert_int_equal (attach_parse_step (*b, &job, &step), -1);
        assert_int_equal (errno, EINVAL);
    }
    assert_int_equal (attach_parse_step (NULL, &job, &step), -1);
    assert_int_equal (job, 42);
    assert_int_equal (step, 42);
}

static void test_parse_rank (void **state)
{
    int32_t r = -5;

    (void)state;
    assert_int_equal (attach_parse_rank ("0", &r), 0);
    assert_int_equal (r, 0);
    assert_int_equal (attach_parse_rank ("17", &r), 0);
    assert_int_equal (r, 17);
    assert_int_equal (attach_parse_rank ("2147483646", &r), 0);
    assert_int_equal (r, 2147483646);
    const char *bad[] = { "",   "-1", "+1",         " 1",
                          "1x", "x",  "2147483647", "99999999999999999999",
                          NULL };
    for (const char **b = bad; *b; b++) {
        r = 3;
        assert_int_equal (attach_parse_rank (*b, &r), -1);
        assert_int_equal (errno, EINVAL);
        assert_int_equal (r, 3);
    }
}

static void test_filters (void **state)
{
    struct attach_filter all = { ATTACH_ALL, ATTACH_ALL };
    struct attach_filter out1 = { 1, ATTACH_ALL };
    struct attach_filter err0 = { ATTACH_ALL, 0 };

    (void)state;
    assert_true (attach_shows (&all, 0, 1));
    assert_true (attach_shows (&all, 5, 2));
    /* --output-filter=1: task 1's stdout, everyone's stderr */
    assert_true (attach_shows (&out1, 1, 1));
    assert_false (attach_shows (&out1, 0, 1));
    assert_false (attach_shows (&out1, 2, 1));
    assert_true (attach_shows (&out1, 0, 2));
    /* --error-filter=0: task 0's stderr, everyone's stdout */
    assert_true (attach_shows (&err0, 0, 2));
    assert_false (attach_shows (&err0, 1, 2));
    assert_true (attach_shows (&err0, 1, 1));
}

static char *layout_text (uint32_t step, const char *nodelist, uint32_t ntasks,
                          const struct attach_node *n, size_t nn)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);

    assert_non_null (f);
    assert_int_equal (attach_layout_print (f, 5, step, nodelist, ntasks, n, nn),
                      0);
    fclose (f);
    return buf;
}

static void test_layout (void **state)
{
    const uint32_t r1[] = { 0, 1 }, r2[] = { 2 };
    const struct attach_node nodes[] = { { "node1", r1, 2 },
                                         { "node2", r2, 1 } };
    char *t;

    (void)state;
    t = layout_text (0, "node[1-2]", 3, nodes, 2);
    assert_string_equal (t, "Job step 5.0 layout:\n"
                            "  3 tasks, 2 nodes (node[1-2])\n"
                            "\n"
                            "  Node 0 (node1), 2 tasks: 0 1\n"
                            "  Node 1 (node2), 1 task: 2\n");
    free (t);
    t = layout_text (STEP_ID_INTERACTIVE, "node2", 1, &nodes[1], 1);
    assert_string_equal (t, "Job step 5.interactive layout:\n"
                            "  1 task, 1 node (node2)\n"
                            "\n"
                            "  Node 0 (node2), 1 task: 2\n");
    free (t);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_parse_step),
        cmocka_unit_test (test_parse_rank),
        cmocka_unit_test (test_filters),
        cmocka_unit_test (test_layout),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
