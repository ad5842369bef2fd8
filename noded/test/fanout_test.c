/* fanout_test.c - slice splitting and budget arithmetic of the fan-out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fanout.h"

/* Checks the invariants of a split of n nodes over width: k chunks,
 * contiguous, covering 0..n-1 in order, sizes differing by at most one,
 * larger first. Returns k. */
static size_t check_split (size_t n, uint32_t width)
{
    size_t start[64], size[64];
    size_t k = fanout_split (n, width, start, size);
    size_t expect_k = n == 0 ? 0 : (n < (width ? width : 1) ? n : width);
    size_t pos = 0;

    if (width == 0 && n > 0)
        expect_k = 1;
    assert_int_equal (k, expect_k);
    for (size_t i = 0; i < k; i++) {
        assert_int_equal (start[i], pos);
        assert_true (size[i] >= 1);
        if (i > 0) {
            assert_true (size[i] <= size[i - 1]);
            assert_true (size[0] - size[i] <= 1);
        }
        pos += size[i];
    }
    assert_int_equal (pos, n);
    return k;
}

static void test_split_exact (void **state)
{
    size_t start[16], size[16];

    /* 63 children of node zero, tree width 16: 15 chunks of 4, one of 3. */
    assert_int_equal (fanout_split (63, 16, start, size), 16);
    for (int i = 0; i < 15; i++)
        assert_int_equal (size[i], 4);
    assert_int_equal (size[15], 3);
    assert_int_equal (start[15], 60);

    /* 10 over 3: 4 3 3 */
    assert_int_equal (fanout_split (10, 3, start, size), 3);
    assert_int_equal (size[0], 4);
    assert_int_equal (size[1], 3);
    assert_int_equal (size[2], 3);
    assert_int_equal (start[1], 4);
    assert_int_equal (start[2], 7);
}

static void test_split_width_one (void **state)
{
    size_t start[1], size[1];

    assert_int_equal (fanout_split (7, 1, start, size), 1);
    assert_int_equal (start[0], 0);
    assert_int_equal (size[0], 7);
    /* width 0 behaves as 1 */
    assert_int_equal (fanout_split (7, 0, start, size), 1);
    assert_int_equal (size[0], 7);
}

static void test_split_width_two (void **state)
{
    size_t start[2], size[2];

    assert_int_equal (fanout_split (3, 2, start, size), 2);
    assert_int_equal (size[0], 2);
    assert_int_equal (size[1], 1);
    assert_int_equal (start[1], 2);
}

static void test_split_tiny (void **state)
{
    size_t start[16], size[16];

    assert_int_equal (fanout_split (0, 16, start, size), 0);
    assert_int_equal (fanout_split (1, 16, start, size), 1);
    assert_int_equal (size[0], 1);
    /* fewer nodes than the width: one node per chunk */
    assert_int_equal (fanout_split (3, 16, start, size), 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal (start[i], i);
        assert_int_equal (size[i], 1);
    }
}

static void test_split_invariants (void **state)
{
    static const uint32_t widths[] = { 0, 1, 2, 3, 5, 16, 50 };

    for (size_t w = 0; w < sizeof (widths) / sizeof (widths[0]); w++)
        for (size_t n = 0; n <= 64; n++)
            check_split (n, widths[w]);
}

static void test_margin (void **state)
{
    assert_int_equal (fanout_margin (10000), 200);
    assert_int_equal (fanout_margin (5000), 200);
    assert_int_equal (fanout_margin (2000), 200);
    assert_int_equal (fanout_margin (1500), 150);
    assert_int_equal (fanout_margin (9), 0);
    assert_int_equal (fanout_margin (0), 0);
}

static void test_child_budget (void **state)
{
    /* A leaf (depth 0) gets three quarters. LaunchTimeout=5: node zero's
     * children get 3600 ms */
    assert_int_equal (fanout_child_budget (5000, fanout_margin (5000), 0),
                      3600);
    /* LaunchTimeout=10 */
    assert_int_equal (fanout_child_budget (10000, 200, 0), 7350);
    /* the next level, with its own margin */
    assert_int_equal (fanout_child_budget (4900, fanout_margin (4900), 0),
                      3525);
    /* a retry later in the budget gets three quarters of what is left */
    assert_int_equal (fanout_child_budget (2600, 200, 0), 1800);
    /* nothing left */
    assert_int_equal (fanout_child_budget (200, 200, 0), 0);
    assert_int_equal (fanout_child_budget (100, 200, 3), 0);
    assert_int_equal (fanout_child_budget (-5, 0, 0), 0);
    assert_int_equal (fanout_child_budget (1, 0, 0), 0);
    assert_int_equal (fanout_child_budget (3, 0, 0), 2);
    /* deeper subtrees keep more: 7/8, 11/12, 39/40 */
    assert_int_equal (fanout_child_budget (10000, 200, 1), 8575);
    assert_int_equal (fanout_child_budget (10000, 200, 2), 8983);
    assert_int_equal (fanout_child_budget (10000, 200, 9), 9555);
}

static void test_depth (void **state)
{
    assert_int_equal (fanout_depth (1, 16), 0);
    assert_int_equal (fanout_depth (2, 16), 1);
    assert_int_equal (fanout_depth (17, 16), 1);
    assert_int_equal (fanout_depth (18, 16), 2);
    assert_int_equal (fanout_depth (273, 16), 2); /* 1 + 16 * 17 */
    assert_int_equal (fanout_depth (274, 16), 3);
    assert_int_equal (fanout_depth (3, 2), 1);
    assert_int_equal (fanout_depth (4, 2), 2);
    assert_int_equal (fanout_depth (1023, 2), 9);
    assert_int_equal (fanout_depth (1024, 2), 10);
    assert_int_equal (fanout_depth (5, 0), 4); /* width 0 counts as 1 */
}

/* The leaves of a 1,024-node tree at TreeWidth 2 (ten levels) get a
 * share of LaunchTimeout that can start a stepd: over a third, where one
 * fraction (3/4) at every level left them 6%. */
static void test_deep_tree_leaves (void **state)
{
    int64_t rem = 16000; /* arbor local's LaunchTimeout at 1,024 nodes */
    size_t n = 1024;

    while (n > 1) {
        size_t part = (n - 1 + 1) / 2; /* the larger half of the others */
        rem = fanout_child_budget (rem, fanout_margin ((uint32_t)rem),
                                   fanout_depth (part, 2));
        n = part;
    }
    assert_true (rem > 16000 / 3);
}

static void test_child_fits_parent (void **state)
{
    /* A child's budget plus its parent's margin and a reserve of a
     * 1/(4 depth + 3) of it always fit in what is left, so the parent can
     * still retry the chunk after a timeout. */
    for (uint32_t d = 0; d <= 12; d++) {
        for (int64_t rem = 0; rem <= 20000; rem += 7) {
            uint32_t m = fanout_margin ((uint32_t)rem);
            uint32_t b = fanout_child_budget (rem, m, d);
            if (b > 0)
                assert_true ((int64_t)b + b / (4 * d + 3) + m <= rem);
        }
    }
}

static void test_ranged (void **state)
{
    char *names[] = { "node2", "node3", "node4", "login", "node9" };
    char *s = fanout_ranged (names, 5);

    assert_non_null (s);
    assert_string_equal (s, "node[2-4],login,node9");
    free (s);
    s = fanout_ranged (names, 0);
    assert_non_null (s);
    assert_string_equal (s, "");
    free (s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_split_exact),
        cmocka_unit_test (test_split_width_one),
        cmocka_unit_test (test_split_width_two),
        cmocka_unit_test (test_split_tiny),
        cmocka_unit_test (test_split_invariants),
        cmocka_unit_test (test_margin),
        cmocka_unit_test (test_child_budget),
        cmocka_unit_test (test_depth),
        cmocka_unit_test (test_deep_tree_leaves),
        cmocka_unit_test (test_child_fits_parent),
        cmocka_unit_test (test_ranged),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
