/* loadsel_test.c - load-aware selection (loadsel.c): the parameters, a
 * node's score from its speed, load and free memory against the
 * minimums, and a job placed on the least loaded node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctld.h"
#include "fixture.h"
#include "job/job.h"
#include "sched/loadsel.h"
#include "nodes/node.h"
#include "proto.h"
#include "states.h"

static struct outbox outbox;

static void test_parse (void **state)
{
    struct loadsel ls;
    arbor_error_t err;

    assert_int_equal (loadsel_parse (NULL, &ls, &err), 0);
    assert_false (ls.on);
    assert_int_equal (
        loadsel_parse ("cpu_weight=7,min_free_mem=512", &ls, &err), 0);
    assert_true (ls.on);
    assert_int_equal (ls.cpu_weight, 7);
    assert_int_equal (ls.ram_weight, 4); /* the default */
    assert_int_equal (ls.min_free_mem, 512);
    assert_int_equal (loadsel_parse ("cpu_weight=6,bogus=1", &ls, &err), -1);
    assert_non_null (strstr (err.text, "unknown parameter 'bogus'"));
    assert_int_equal (loadsel_parse ("ram_weight=-1", &ls, &err), -1);
    assert_non_null (strstr (err.text, "ram_weight=-1"));
    assert_int_equal (loadsel_parse ("min_idle_cpus", &ls, &err), -1);
    assert_int_equal (loadsel_parse ("cpu_weight=0,ram_weight=0", &ls, &err),
                      -1);
    assert_non_null (strstr (err.text, "both 0"));
}

static struct node node_of (uint32_t speed, uint32_t load, uint32_t free_mem)
{
    return (struct node){ .cpus = 4,
                          .real_memory = 1000,
                          .cpu_speed = speed,
                          .cpu_load = load,
                          .free_mem = free_mem };
}

static void test_score (void **state)
{
    struct loadsel ls;
    arbor_error_t err;
    struct node n;

    assert_int_equal (loadsel_parse ("cpu_weight=6,ram_weight=4", &ls, &err),
                      0);
    ls.fastest = 2;
    /* speed 2 of 2, 3 of 4 CPUs idle: 0.75; half the memory free: 0.5;
     * (6 x 0.75 + 4 x 0.5) / 10 = 0.65 */
    n = node_of (2, 100, 500);
    assert_int_equal (loadsel_pref (&ls, &n), 1 + 6500);
    n = node_of (1, 100, 500); /* half as fast: cpu 0.375 */
    assert_int_equal (loadsel_pref (&ls, &n), 1 + 4250);
    n = node_of (2, 800, 1000); /* overloaded: cpu 0, all memory free */
    assert_int_equal (loadsel_pref (&ls, &n), 1 + 4000);
    n = node_of (2, UINT32_MAX, UINT32_MAX); /* not reported: idle */
    assert_int_equal (loadsel_pref (&ls, &n), 1 + 10000);
    /* below the minimums, a part counts 0 */
    assert_int_equal (
        loadsel_parse ("min_free_mem=600,min_idle_cpus=4", &ls, &err), 0);
    ls.fastest = 2;
    n = node_of (2, 100, 500);
    assert_int_equal (loadsel_pref (&ls, &n), 1);
    n = node_of (2, 0, 600);
    assert_int_equal (loadsel_pref (&ls, &n), 1 + 6000 + 2400);
    ls.on = false;
    assert_int_equal (loadsel_pref (&ls, &n), 0);
}

static struct job *submit_one (struct ctld *ctx)
{
    struct msg_job_alloc one = { .ntasks = 1 };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &one, getuid (), &err);

    assert_non_null (j);
    assert_int_equal (j->state, JOB_RUNNING);
    assert_int_equal (j->nnodes, 1);
    return j;
}

/* n1 and n2 report a load, n3 little memory: a job goes to n4; without
 * SelectLoadParameters it goes to n1, as Slurm places it. */
static void test_placement (void **state)
{
    const char *base = "ClusterName=t\nNodedPort=1\n%s"
                       "NodeName=n[1-4] NodeAddr=127.0.0.[1-4] CPUs=4 "
                       "RealMemory=1000\n"
                       "PartitionName=p Nodes=n[1-4] Default=YES\n";
    char text[512];
    struct ctld *ctx;

    for (int on = 0; on <= 1; on++) {
        snprintf (text, sizeof (text), base,
                  on ? "SelectLoadParameters=cpu_weight=6,ram_weight=4,"
                       "min_free_mem=100\n"
                     : "");
        ctx = fixture_ctld (text, &outbox);
        assert_non_null (ctx);
        for (size_t i = 0; i < 4; i++)
            ctx->nodes[i].cpu_load = 0, ctx->nodes[i].free_mem = 1000;
        ctx->nodes[0].cpu_load = 350;
        ctx->nodes[1].cpu_load = 120;
        ctx->nodes[2].free_mem = 50;
        assert_int_equal (submit_one (ctx)->nodes[0].node, on ? 3 : 0);
        fixture_free (ctx);
        outbox_clear (&outbox);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_parse),
        cmocka_unit_test (test_score),
        cmocka_unit_test (test_placement),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
