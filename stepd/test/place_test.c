/* place_test.c - a step's ranks per node under each srun -m distribution,
 * as Slurm's man page places them, and the arbitrary layout's checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "place.h"

static void check (const char *dist, const uint32_t *tasks, uint32_t nnodes,
                   const uint32_t *task_nodes, uint32_t ntn,
                   const uint32_t *want, uint32_t total)
{
    arbor_error_t err = { "" };
    uint32_t *r;

    if (place_ranks (dist, tasks, nnodes, task_nodes, ntn, &r, &err) < 0)
        fail_msg ("%s: %s", dist ? dist : "(null)", err.text);
    assert_memory_equal (r, want, total * sizeof (uint32_t));
    free (r);
}

static void test_block_cyclic_plane (void **state)
{
    const uint32_t two[] = { 2, 2 };
    const uint32_t four[] = { 4, 4 };
    const uint32_t uneven[] = { 3, 1, 2 };
    const uint32_t block[] = { 0, 1, 2, 3 };
    const uint32_t cyclic[] = { 0, 2, 1, 3 };
    const uint32_t plane2[] = { 0, 1, 4, 5, 2, 3, 6, 7 };
    const uint32_t cyc_uneven[] = { 0, 3, 5, 1, 2, 4 };

    check (NULL, two, 2, NULL, 0, block, 4);
    check ("", two, 2, NULL, 0, block, 4);
    check ("block", two, 2, NULL, 0, block, 4);
    check ("cyclic", two, 2, NULL, 0, cyclic, 4);
    check ("plane=2", four, 2, NULL, 0, plane2, 8);
    check ("cyclic:block,Pack", uneven, 3, NULL, 0, cyc_uneven, 6);
}

static void test_arbitrary (void **state)
{
    /* hostfile b a b c -> step nodes (ranged by the ctld) a, b, c */
    const uint32_t tasks[] = { 1, 2, 1 };
    const uint32_t tn[] = { 1, 0, 1, 2 };
    const uint32_t want[] = { 1, 0, 2, 3 };
    const uint32_t too_many[] = { 1, 1, 1, 2 };
    const uint32_t outside[] = { 1, 0, 1, 3 };
    arbor_error_t err = { "" };
    uint32_t *r = (uint32_t *)1;

    check ("arbitrary", tasks, 3, tn, 4, want, 4);
    assert_int_equal (place_ranks ("arbitrary", tasks, 3, tn, 3, &r, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_null (r);
    assert_int_equal (
        place_ranks ("arbitrary", tasks, 3, too_many, 4, &r, &err), -1);
    assert_non_null (strstr (err.text, "more ranks on node 1"));
    assert_int_equal (place_ranks ("arbitrary", tasks, 3, outside, 4, &r, &err),
                      -1);
    assert_non_null (strstr (err.text, "rank 3 on node 3"));
}

static void test_bad (void **state)
{
    const uint32_t two[] = { 2, 2 };
    arbor_error_t err = { "" };
    uint32_t *r;

    assert_int_equal (place_ranks ("plane", two, 2, NULL, 0, &r, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (place_ranks ("diagonal", two, 2, NULL, 0, &r, &err), -1);
    assert_non_null (strstr (err.text, "invalid distribution"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_block_cyclic_plane),
        cmocka_unit_test (test_arbitrary),
        cmocka_unit_test (test_bad),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
