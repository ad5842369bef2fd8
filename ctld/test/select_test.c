/* select_test.c - unit tests for ctld/sched/select.c: layouts, exclusive,
 * -w/-x, memory, busy versus impossible requests and request normalization. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "sched/select.h"

#define NNODES 4

static const char *const names[NNODES] = { "n1", "n2", "n3", "n4" };

/* Four idle, usable nodes of 4 cores and 4000 MB. */
static void idle_nodes (struct select_node *v)
{
    for (size_t i = 0; i < NNODES; i++) {
        v[i] = (struct select_node){
            .name = names[i],
            .cpus = 4,
            .free_cpus = 4,
            .memory = 4000,
            .free_memory = 4000,
            .usable = true,
        };
    }
}

/* Normalize and select; returns select_nodes' result. */
static int pick (struct select_node *v, struct select_req *r,
                 struct select_result *res, arbor_error_t *err)
{
    size_t nreq = 0;

    for (size_t i = 0; i < NNODES; i++)
        nreq += v[i].required;
    if (select_normalize (r, nreq, err) < 0)
        return -1;
    return select_nodes (v, NNODES, r, res, err);
}

static void test_default_one_task (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { 0 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (r.ntasks, 1);
    assert_int_equal (r.cpus_per_task, 1);
    assert_int_equal (res.nnodes, 1);
    assert_int_equal (res.idx[0], 0);
    assert_int_equal (res.tasks[0], 1);
    assert_int_equal (res.cpus[0], 1);
    select_result_clear (&res);
}

static void test_ntasks_fills_nodes (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .ntasks = 6 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    v[0].free_cpus = 3; /* one core taken on n1 */
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 2);
    assert_int_equal (res.idx[0], 0);
    assert_int_equal (res.tasks[0], 3);
    assert_int_equal (res.idx[1], 1);
    assert_int_equal (res.tasks[1], 3);
    assert_int_equal (res.ntasks, 6);
    select_result_clear (&res);
}

static void test_block_layout (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .nnodes = 3, .ntasks = 8 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 3);
    assert_int_equal (res.tasks[0], 3);
    assert_int_equal (res.tasks[1], 3);
    assert_int_equal (res.tasks[2], 2);
    assert_int_equal (res.cpus[2], 2);
    select_result_clear (&res);
}

static void test_block_layout_small_first_node (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .nnodes = 2, .ntasks = 5 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    v[0].free_cpus = 2; /* n1 can take the small share only */
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 2);
    assert_int_equal (res.idx[0], 0);
    assert_int_equal (res.tasks[0], 2);
    assert_int_equal (res.idx[1], 1);
    assert_int_equal (res.tasks[1], 3);
    select_result_clear (&res);
}

/* A step's -N 2 -n 5 where its job holds 4 and 1 cores (alloc -n 5 on
 * 4-core nodes): 4+1, as Slurm counts a step; the job's even spread (3+2)
 * cannot fit there. Where the job holds 4 and 4: 3+2 still. */
static void test_step_layout_unequal_holdings (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .nnodes = 2, .ntasks = 5, .step_layout = true };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    v[1].cpus = v[1].free_cpus = 1;
    v[2].usable = v[3].usable = false;
    v[2].cpus = v[3].cpus = v[2].free_cpus = v[3].free_cpus = 0;
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 2);
    assert_int_equal (res.tasks[0], 4);
    assert_int_equal (res.tasks[1], 1);
    select_result_clear (&res);

    r = (struct select_req){ .nnodes = 2, .ntasks = 5 }; /* a job: even */
    assert_int_equal (pick (v, &r, &res, &err), -1);

    idle_nodes (v);
    r = (struct select_req){ .nnodes = 2, .ntasks = 5, .step_layout = true };
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.tasks[0], 3);
    assert_int_equal (res.tasks[1], 2);
    select_result_clear (&res);
}

/* Rounds: room 1, 4, 2 and 4 for 9 tasks on 4 nodes: 1, 3, 2, 3. When
 * the first N nodes have too little room, the N with the most are taken;
 * more tasks than the room fails. */
static void test_step_layout_rounds (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .nnodes = 4, .ntasks = 9, .step_layout = true };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    v[0].free_cpus = 1;
    v[2].free_cpus = 2;
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.tasks[0], 1);
    assert_int_equal (res.tasks[1], 3);
    assert_int_equal (res.tasks[2], 2);
    assert_int_equal (res.tasks[3], 3);
    select_result_clear (&res);

    r = (struct select_req){ .nnodes = 2, .ntasks = 6, .step_layout = true };
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 2);
    assert_int_equal (res.idx[0], 1);
    assert_int_equal (res.idx[1], 3);
    assert_int_equal (res.tasks[0], 3);
    assert_int_equal (res.tasks[1], 3);
    select_result_clear (&res);

    r = (struct select_req){ .nnodes = 2, .ntasks = 9, .step_layout = true };
    assert_int_equal (pick (v, &r, &res, &err), -1);
}

static void test_nnodes_only (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .nnodes = 3, .ntasks_per_node = 2 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (r.ntasks, 6);
    assert_int_equal (res.nnodes, 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal (res.tasks[i], 2);
    select_result_clear (&res);
}

static void test_cpus_per_task (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .ntasks = 3, .cpus_per_task = 2 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 2);
    assert_int_equal (res.tasks[0], 2);
    assert_int_equal (res.cpus[0], 4);
    assert_int_equal (res.tasks[1], 1);
    assert_int_equal (res.cpus[1], 2);
    select_result_clear (&res);
}

static void test_ntasks_per_node_cap (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .ntasks = 4, .ntasks_per_node = 1 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 4);
    select_result_clear (&res);
}

static void test_exclusive (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .nnodes = 1, .exclusive = true };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    v[0].free_cpus = 3;
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 1);
    assert_int_equal (res.idx[0], 1);
    assert_int_equal (res.tasks[0], 1);
    assert_int_equal (res.cpus[0], 4);
    select_result_clear (&res);

    /* No node is fully idle: busy, not impossible. */
    for (size_t i = 0; i < NNODES; i++)
        v[i].free_cpus = 3;
    r = (struct select_req){ .nnodes = 1, .exclusive = true };
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EBUSY);
}

static void test_required_nodes (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .ntasks = 2 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    v[1].required = true;
    v[3].required = true;
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 2);
    assert_int_equal (res.idx[0], 1);
    assert_int_equal (res.tasks[0], 1);
    assert_int_equal (res.idx[1], 3);
    assert_int_equal (res.tasks[1], 1);
    select_result_clear (&res);

    /* -w alone: one task per named node. */
    r = (struct select_req){ 0 };
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (r.nnodes, 2);
    assert_int_equal (res.nnodes, 2);
    select_result_clear (&res);

    /* A required node that is busy makes the job wait. */
    v[3].free_cpus = 0;
    r = (struct select_req){ .ntasks = 2 };
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EBUSY);
}

static void test_required_then_fill (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .ntasks = 6 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    v[2].required = true;
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 2);
    assert_int_equal (res.idx[0], 0);
    assert_int_equal (res.tasks[0], 2);
    assert_int_equal (res.idx[1], 2);
    assert_int_equal (res.tasks[1], 4);
    select_result_clear (&res);
}

static void test_excluded (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .nnodes = 2 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    v[0].excluded = true;
    v[2].excluded = true;
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.idx[0], 1);
    assert_int_equal (res.idx[1], 3);
    select_result_clear (&res);

    r = (struct select_req){ .nnodes = 3 };
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EINVAL);
}

static void test_memory (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .ntasks = 1, .mem_mb = 3000 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    v[0].free_memory = 1000;
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.idx[0], 1);
    select_result_clear (&res);

    r = (struct select_req){ .ntasks = 1, .mem_mb = 5000 };
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "not available"));
}

static void test_impossible_and_busy (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .ntasks = 17 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EINVAL);

    r = (struct select_req){ .nnodes = 5 };
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EINVAL);

    r = (struct select_req){ .ntasks = 5, .cpus_per_task = 5 };
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EINVAL);

    /* Fits on the hardware, but nodes are down or busy now. */
    v[0].usable = false;
    v[1].usable = false;
    v[2].free_cpus = 1;
    r = (struct select_req){ .ntasks = 12 };
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EBUSY);
    assert_string_equal (err.text, "Resources");
}

static void test_hostile_numbers (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .ntasks = UINT32_MAX, .cpus_per_task = UINT32_MAX };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EINVAL);

    r = (struct select_req){ .nnodes = UINT32_MAX, .ntasks_per_node = 4 };
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EINVAL);

    /* No nodes at all. */
    r = (struct select_req){ .ntasks = 1 };
    assert_int_equal (select_normalize (&r, 0, &err), 0);
    assert_int_equal (select_nodes (v, 0, &r, &res, &err), -1);
    assert_int_equal (errno, EINVAL);
}

static void test_normalize_errors (void **state)
{
    struct select_req r = { .nnodes = 4, .ntasks = 2 };
    arbor_error_t err;

    assert_int_equal (select_normalize (&r, 0, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "2 task(s) on 4 nodes"));

    r = (struct select_req){ .nnodes = 1 };
    assert_int_equal (select_normalize (&r, 2, &err), -1);

    r = (struct select_req){ .ntasks = 1 };
    assert_int_equal (select_normalize (&r, 2, &err), -1);

    r = (struct select_req){ .nnodes = 2, .ntasks = 8, .ntasks_per_node = 3 };
    assert_int_equal (select_normalize (&r, 0, &err), -1);

    r = (struct select_req){ .ntasks_per_node = 3 };
    assert_int_equal (select_normalize (&r, 0, &err), 0);
    assert_int_equal (r.nnodes, 1);
    assert_int_equal (r.ntasks, 3);
}

static void test_mem_per_cpu (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .ntasks = 6, .mem_per_cpu_mb = 1500 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v); /* 4000 MB: two cores of 1500 MB per node */
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 3);
    assert_int_equal (res.tasks[0], 2);
    assert_int_equal (res.cpus[2], 2);
    select_result_clear (&res);

    /* Exclusive pays for every core: 4 x 1500 MB never fits. */
    r = (struct select_req){ .nnodes = 1,
                             .exclusive = true,
                             .mem_per_cpu_mb = 1500 };
    assert_int_equal (pick (v, &r, &res, &err), -1);
    assert_int_equal (errno, EINVAL);
    r = (struct select_req){ .nnodes = 1,
                             .exclusive = true,
                             .mem_per_cpu_mb = 1000 };
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.cpus[0], 4);
    select_result_clear (&res);
    (void)state;
}

/* With prefs, the others go best first (ties in array order); -w nodes
 * still come first; without any pref the array order stays. */
static void test_pref_order (void **state)
{
    struct select_node v[NNODES];
    struct select_req r = { .ntasks = 6 };
    struct select_req one = { 0 };
    struct select_result res;
    arbor_error_t err;

    idle_nodes (v);
    v[0].pref = 10;
    v[1].pref = 50;
    v[2].pref = 50;
    v[3].pref = 90;
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.nnodes, 2); /* n4 full, then n2 */
    assert_int_equal (res.idx[0], 1);
    assert_int_equal (res.tasks[0], 2);
    assert_int_equal (res.idx[1], 3);
    assert_int_equal (res.tasks[1], 4);
    select_result_clear (&res);
    v[0].required = true; /* -w n1: first, whatever its pref */
    r = (struct select_req){ .nnodes = 2, .ntasks = 2 };
    assert_int_equal (pick (v, &r, &res, &err), 0);
    assert_int_equal (res.idx[0], 0);
    assert_int_equal (res.idx[1], 3);
    select_result_clear (&res);
    v[3].free_cpus = 0; /* the best is full: the next best */
    v[0].required = false;
    assert_int_equal (pick (v, &one, &res, &err), 0);
    assert_int_equal (res.idx[0], 1);
    select_result_clear (&res);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_default_one_task),
        cmocka_unit_test (test_ntasks_fills_nodes),
        cmocka_unit_test (test_block_layout),
        cmocka_unit_test (test_block_layout_small_first_node),
        cmocka_unit_test (test_step_layout_unequal_holdings),
        cmocka_unit_test (test_step_layout_rounds),
        cmocka_unit_test (test_nnodes_only),
        cmocka_unit_test (test_cpus_per_task),
        cmocka_unit_test (test_ntasks_per_node_cap),
        cmocka_unit_test (test_exclusive),
        cmocka_unit_test (test_required_nodes),
        cmocka_unit_test (test_required_then_fill),
        cmocka_unit_test (test_excluded),
        cmocka_unit_test (test_memory),
        cmocka_unit_test (test_impossible_and_busy),
        cmocka_unit_test (test_hostile_numbers),
        cmocka_unit_test (test_normalize_errors),
        cmocka_unit_test (test_mem_per_cpu),
        cmocka_unit_test (test_pref_order),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
