/* gres_count_test.c - requests against counts of units (sched/
 * gres_count.c): typed and untyped items, per node, per task and per job
 * requests, --exclusive, and what a take gives from each item. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sched/gres_count.h"
#include "sched/gres_sched.h"

/* A node with 2 a100 (one free), 2 v100 (both free), 1 nic (free). */
static void node (struct gres_count c[3])
{
    c[0] = (struct gres_count){ "gpu", "a100", 2, 1 };
    c[1] = (struct gres_count){ "gpu", "v100", 2, 2 };
    c[2] = (struct gres_count){ "nic", NULL, 1, 1 };
}

static struct job_gres req (const char *gres, const char *gpus,
                            const char *per_task)
{
    struct job_gres g;
    arbor_error_t err = { "" };

    assert_int_equal (gres_req_parse (gres, gpus, NULL, per_task, &g, &err), 0);
    return g;
}

static void test_avail (void **state)
{
    struct gres_count c[3];

    (void)state;
    node (c);
    assert_int_equal (gres_count_avail (c, 3, "gpu", NULL), 3);
    assert_int_equal (gres_count_avail (c, 3, "gpu", ""), 3);
    assert_int_equal (gres_count_avail (c, 3, "gpu", "a100"), 1);
    assert_int_equal (gres_count_avail (c, 3, "gpu", "h100"), 0);
    assert_int_equal (gres_count_avail (c, 3, "nic", NULL), 1);
}

static void test_tasks (void **state)
{
    struct gres_count c[3];
    struct job_gres g;

    (void)state;
    node (c);
    g = req ("gpu:3", NULL, NULL); /* per node: all three free */
    assert_int_equal (gres_count_tasks (c, 3, &g, false), UINT32_MAX);
    g = req ("gpu:a100:2", NULL, NULL); /* only one a100 free */
    assert_int_equal (gres_count_tasks (c, 3, &g, false), 0);
    g = req (NULL, NULL, "v100:1"); /* per task: two v100 */
    assert_int_equal (gres_count_tasks (c, 3, &g, false), 2);
    g = req ("nic:1", NULL, "2"); /* both: the tightest */
    assert_int_equal (gres_count_tasks (c, 3, &g, false), 1);
    g = req ("nic:1", NULL, NULL); /* --exclusive: one a100 is busy */
    assert_int_equal (gres_count_tasks (c, 3, &g, true), 0);
    g = req (NULL, "a100:4", NULL); /* per job: what the node can give */
    assert_int_equal (gres_count_units (c, 3, &g), 1);
    g = req ("nic:1", NULL, NULL);
    assert_int_equal (gres_count_units (c, 3, &g), 0);
}

static void test_take (void **state)
{
    struct gres_count c[3];
    uint32_t taken[3] = { 0 };
    struct job_gres g;

    (void)state;
    node (c);
    g = req ("gpu:2,nic:1", NULL, NULL); /* items in order: a100, then v100 */
    assert_int_equal (gres_count_take (c, 3, &g, false, 1, 0, taken), 0);
    assert_int_equal (taken[0], 1);
    assert_int_equal (taken[1], 1);
    assert_int_equal (taken[2], 1);
    assert_int_equal (c[1].free, 1);
    g = req (NULL, "v100:2", NULL); /* one v100 left: not enough */
    assert_int_equal (gres_count_take (c, 3, &g, false, 1, 2, taken), -1);
    node (c);
    memset (taken, 0, sizeof (taken));
    g = req (NULL, NULL, "1"); /* --exclusive takes every free unit */
    assert_int_equal (gres_count_take (c, 3, &g, true, 1, 0, taken), 0);
    assert_int_equal (taken[0] + taken[1] + taken[2], 4);
    assert_int_equal (gres_count_avail (c, 3, "gpu", NULL), 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_avail),
        cmocka_unit_test (test_tasks),
        cmocka_unit_test (test_take),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
