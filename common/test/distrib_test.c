/* distrib_test.c - srun -m parsing and task numbering per node. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "distrib.h"

static void check_parse (const char *s, enum distrib want, uint32_t plane)
{
    arbor_error_t err = { "" };
    enum distrib d = DISTRIB_ARBITRARY + 1;
    uint32_t p = 777;

    if (distrib_parse (s, &d, &p, &err) < 0)
        fail_msg ("'%s': %s", s, err.text);
    if (d != want || p != plane)
        fail_msg ("'%s': got %d plane %u, want %d plane %u", s, d, p, want,
                  plane);
}

static void check_parse_bad (const char *s, const char *why)
{
    arbor_error_t err = { "" };
    enum distrib d = DISTRIB_CYCLIC;
    uint32_t p = 777;

    errno = 0;
    if (distrib_parse (s, &d, &p, &err) == 0)
        fail_msg ("'%s' parsed as %d", s, d);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (d, DISTRIB_CYCLIC); /* untouched on failure */
    assert_int_equal (p, 777);
    if (!strstr (err.text, why))
        fail_msg ("'%s': error '%s', want '%s'", s, err.text, why);
}

static void test_parse (void **state)
{
    check_parse ("block", DISTRIB_BLOCK, 0);
    check_parse ("cyclic", DISTRIB_CYCLIC, 0);
    check_parse ("arbitrary", DISTRIB_ARBITRARY, 0);
    check_parse ("plane=4", DISTRIB_PLANE, 4);
    check_parse ("plane=1", DISTRIB_PLANE, 1);
    check_parse ("plane=4294967295", DISTRIB_PLANE, UINT32_MAX);
    check_parse ("*", DISTRIB_BLOCK, 0);
    check_parse ("Cyclic", DISTRIB_CYCLIC, 0);
    check_parse ("BLOCK", DISTRIB_BLOCK, 0);
    check_parse ("PLANE=2", DISTRIB_PLANE, 2);
}

/* Slurm's second and third levels and ,Pack are accepted and ignored. */
static void test_parse_levels (void **state)
{
    check_parse ("block:cyclic", DISTRIB_BLOCK, 0);
    check_parse ("cyclic:block", DISTRIB_CYCLIC, 0);
    check_parse ("cyclic:fcyclic", DISTRIB_CYCLIC, 0);
    check_parse ("block:block:cyclic", DISTRIB_BLOCK, 0);
    check_parse ("*:*:*", DISTRIB_BLOCK, 0);
    check_parse ("*:cyclic", DISTRIB_BLOCK, 0);
    check_parse ("cyclic,Pack", DISTRIB_CYCLIC, 0);
    check_parse ("block:cyclic,NoPack", DISTRIB_BLOCK, 0);
    check_parse ("plane=3,pack", DISTRIB_PLANE, 3);
    check_parse ("plane=3:block", DISTRIB_PLANE, 3);
}

static void test_parse_bad (void **state)
{
    const char *bad[] = { "blocks",
                          "cycl",
                          "random",
                          "block:",
                          ":block",
                          "block:foo",
                          "block:a:b",
                          "block:cyclic:cyclic:cyclic",
                          "block,",
                          "block,Packed",
                          "block,Pack,NoPack",
                          "block cyclic",
                          " block",
                          "arbitrary:x" };

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++)
        check_parse_bad (bad[i], "invalid distribution");
    check_parse_bad ("", "empty");
    check_parse_bad (NULL, "empty");
    check_parse_bad ("plane", "plane needs a size");
    check_parse_bad ("plane=", "plane needs a size");
    check_parse_bad ("plane=0", "plane needs a size");
    check_parse_bad ("plane=x", "plane needs a size");
    check_parse_bad ("plane=-1", "plane needs a size");
    check_parse_bad ("plane=+1", "plane needs a size");
    check_parse_bad ("plane=4294967296", "plane needs a size");
    check_parse_bad ("plane=99999999999", "plane needs a size");
}

static void test_name (void **state)
{
    assert_string_equal (distrib_name (DISTRIB_BLOCK), "block");
    assert_string_equal (distrib_name (DISTRIB_CYCLIC), "cyclic");
    assert_string_equal (distrib_name (DISTRIB_PLANE), "plane");
    assert_string_equal (distrib_name (DISTRIB_ARBITRARY), "arbitrary");
    assert_string_equal (distrib_name ((enum distrib)42), "unknown");
}

/* distrib_ranks gives exactly 'want' (node 0's ranks, then node 1's...). */
static void check_ranks (enum distrib d, uint32_t plane, const uint32_t *counts,
                         size_t n, const uint32_t *want)
{
    size_t total = 0;
    uint32_t *ranks;

    for (size_t i = 0; i < n; i++)
        total += counts[i];
    assert_non_null (ranks = calloc (total + 1, sizeof (*ranks)));
    assert_int_equal (distrib_ranks (d, plane, counts, n, ranks), 0);
    for (size_t i = 0; i < total; i++)
        if (ranks[i] != want[i])
            fail_msg ("%s plane %u: ranks[%zu] is %u, want %u",
                      distrib_name (d), plane, i, ranks[i], want[i]);
    free (ranks);
}

#define U32(...) ((const uint32_t[]){ __VA_ARGS__ })
#define NODES(...) U32 (__VA_ARGS__), sizeof (U32 (__VA_ARGS__)) / 4

/* srun's man page, 2 nodes and 4 tasks. */
static void test_even (void **state)
{
    check_ranks (DISTRIB_BLOCK, 0, NODES (2, 2), U32 (0, 1, 2, 3));
    check_ranks (DISTRIB_ARBITRARY, 0, NODES (2, 2), U32 (0, 1, 2, 3));
    check_ranks (DISTRIB_CYCLIC, 0, NODES (2, 2), U32 (0, 2, 1, 3));
    check_ranks (DISTRIB_PLANE, 2, NODES (4, 4), U32 (0, 1, 4, 5, 2, 3, 6, 7));
    check_ranks (DISTRIB_CYCLIC, 0, NODES (3, 3, 3),
                 U32 (0, 3, 6, 1, 4, 7, 2, 5, 8));
}

/* The man page's uneven case: three nodes, two CPUs each, four tasks,
 * hence counts 2,1,1. */
static void test_uneven (void **state)
{
    check_ranks (DISTRIB_BLOCK, 0, NODES (2, 1, 1), U32 (0, 1, 2, 3));
    check_ranks (DISTRIB_CYCLIC, 0, NODES (2, 1, 1), U32 (0, 3, 1, 2));
    /* A full node leaves the rotation. */
    check_ranks (DISTRIB_CYCLIC, 0, NODES (1, 4, 2), U32 (0, 1, 3, 5, 6, 2, 4));
    /* Nodes with no task are skipped. */
    check_ranks (DISTRIB_CYCLIC, 0, NODES (0, 2, 0, 2), U32 (0, 2, 1, 3));
    check_ranks (DISTRIB_BLOCK, 0, NODES (0, 2, 0, 2), U32 (0, 1, 2, 3));
    check_ranks (DISTRIB_PLANE, 2, NODES (0, 3, 0, 1), U32 (0, 1, 3, 2));
}

/* dist_plane.html: 21 tasks on 4 nodes, plane=4 (counts 8,5,4,4) and
 * plane=2 (6,6,5,4); one node takes everything whatever the plane. */
static void test_plane (void **state)
{
    check_ranks (DISTRIB_PLANE, 4, NODES (8, 5, 4, 4),
                 U32 (0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 8, 9, 10, 11,
                      12, 13, 14, 15));
    check_ranks (DISTRIB_PLANE, 2, NODES (6, 6, 5, 4),
                 U32 (0, 1, 8, 9, 16, 17, 2, 3, 10, 11, 18, 19, 4, 5, 12, 13,
                      20, 6, 7, 14, 15));
    check_ranks (DISTRIB_PLANE, 4, NODES (21),
                 U32 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                      17, 18, 19, 20));
    /* slurm_step_layout.c's example: plane=2, 6 tasks, CPUs 4,1,1. */
    check_ranks (DISTRIB_PLANE, 2, NODES (4, 1, 1), U32 (0, 1, 4, 5, 2, 3));
    /* A node short of a block takes what fits and the next node starts a
     * block of its own (Slurm's _task_layout_plane). */
    check_ranks (DISTRIB_PLANE, 2, NODES (1, 4, 3),
                 U32 (0, 1, 2, 5, 6, 3, 4, 7));
    /* plane=1 is cyclic; a plane at least as big as every count is
     * block. */
    check_ranks (DISTRIB_PLANE, 1, NODES (2, 1, 1), U32 (0, 3, 1, 2));
    check_ranks (DISTRIB_PLANE, 100, NODES (2, 1, 1), U32 (0, 1, 2, 3));
}

/* Each rank appears once and every node's ranks ascend, for many
 * shapes. */
static void test_permutation (void **state)
{
    enum distrib ds[] = { DISTRIB_BLOCK, DISTRIB_CYCLIC, DISTRIB_PLANE };
    uint32_t counts[17], ranks[17 * 9];

    for (unsigned shape = 0; shape < 200; shape++) {
        size_t n = 1 + shape % 17, total = 0;
        for (size_t i = 0; i < n; i++)
            total += counts[i] = (shape * 7 + i * 13) % 9;
        for (size_t k = 0; k < 3; k++) {
            bool seen[17 * 9] = { false };
            size_t at = 0;
            assert_int_equal (
                distrib_ranks (ds[k], 1 + shape % 5, counts, n, ranks), 0);
            for (size_t i = 0; i < n; i++) {
                for (size_t j = 0; j < counts[i]; j++) {
                    uint32_t r = ranks[at + j];
                    assert_true (r < total && !seen[r]);
                    seen[r] = true;
                    assert_true (j == 0 || ranks[at + j - 1] < r);
                }
                at += counts[i];
            }
        }
    }
}

static void test_ranks_bad (void **state)
{
    uint32_t counts[] = { 2, 2 }, big[] = { UINT32_MAX, 1 }, ranks[4];

    errno = 0;
    assert_int_equal (distrib_ranks (DISTRIB_PLANE, 0, counts, 2, ranks), -1);
    assert_int_equal (errno, EINVAL);
    errno = 0;
    assert_int_equal (distrib_ranks ((enum distrib)9, 0, counts, 2, ranks), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (distrib_ranks (DISTRIB_BLOCK, 0, big, 2, ranks), -1);
    assert_int_equal (distrib_ranks (DISTRIB_BLOCK, 0, NULL, 2, ranks), -1);
    assert_int_equal (distrib_ranks (DISTRIB_BLOCK, 0, counts, 2, NULL), -1);
    /* Nothing to number: fine, ranks untouched. */
    assert_int_equal (distrib_ranks (DISTRIB_CYCLIC, 0, NULL, 0, NULL), 0);
    assert_int_equal (distrib_ranks (DISTRIB_PLANE, 3, U32 (0, 0), 2, NULL), 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_parse),     cmocka_unit_test (test_parse_levels),
        cmocka_unit_test (test_parse_bad), cmocka_unit_test (test_name),
        cmocka_unit_test (test_even),      cmocka_unit_test (test_uneven),
        cmocka_unit_test (test_plane),     cmocka_unit_test (test_permutation),
        cmocka_unit_test (test_ranks_bad),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
