/* sched_test.c - unit tests for ctld job validation and FCFS scheduling
 * (job.c, sched.c, node.c, part.c) on a controller context built from a
 * configuration text, with no clients and no running loop. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctld.h"
#include "log.h"

static const char conf_text[] =
    "ClusterName=t\n"
    "NodedPort=1\n"
    "NodeName=n[1-4] NodeAddr=127.0.0.[1-4] CPUs=4 RealMemory=1000\n"
    "PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=60\n"
    "PartitionName=small Nodes=n1 MaxTime=INFINITE\n";

static int setup (void **state)
{
    struct ctld *ctx = calloc (1, sizeof (*ctx));
    arbor_error_t err;

    if (!ctx || !(ctx->conf = conf_parse (conf_text, "test.conf", &err)))
        return -1;
    log_open ("sched_test", LOG_LVL_WARN, NULL);
    ctx->loop = ev_loop_new (EVFLAG_AUTO);
    ctx->next_job_id = 1;
    if (nodes_init (ctx, &err) < 0 || parts_init (ctx, &err) < 0)
        return -1;
    for (size_t i = 0; i < ctx->nnodes; i++)
        node_register (&ctx->nodes[i], 4, 1000, time (NULL));
    *state = ctx;
    return 0;
}

static int teardown (void **state)
{
    struct ctld *ctx = *state;

    nodecomm_fini (ctx);
    jobs_purge (ctx, 0, true);
    parts_fini (ctx);
    nodes_fini (ctx);
    conf_destroy (ctx->conf);
    ev_loop_destroy (ctx->loop);
    free (ctx);
    return 0;
}

static struct job *submit (struct ctld *ctx, struct msg_job_alloc *req,
                           arbor_error_t *err)
{
    struct job *j = job_create (ctx, req, getuid (), getgid (), err);

    if (!j)
        return NULL;
    if (sched_submit (ctx, j, err) < 0) {
        int e = errno;
        job_destroy (j);
        errno = e;
        return NULL;
    }
    return j;
}

static void test_fifo (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc big = { .nnodes = 4, .exclusive = true };
    struct msg_job_alloc one = { .ntasks = 1 };
    struct job *a, *b, *c;
    arbor_error_t err;

    assert_non_null (a = submit (ctx, &one, &err));
    assert_int_equal (a->state, JOB_RUNNING);
    assert_string_equal (a->nodelist, "n1");
    assert_string_equal (node_state_str (&ctx->nodes[0]), "MIXED");

    assert_non_null (b = submit (ctx, &big, &err));
    assert_int_equal (b->state, JOB_PENDING);
    assert_string_equal (b->reason, "Resources");

    /* Fits now, but strict FIFO keeps it behind b. */
    assert_non_null (c = submit (ctx, &one, &err));
    assert_int_equal (c->state, JOB_PENDING);
    assert_string_equal (c->reason, "Priority");

    job_end (ctx, a, JOB_COMPLETED, NULL);
    assert_int_equal (ctx->nodes[0].alloc_cpus, 0);
    sched_run (ctx);
    assert_int_equal (b->state, JOB_RUNNING);
    assert_string_equal (b->nodelist, "n[1-4]");
    assert_string_equal (node_state_str (&ctx->nodes[3]), "ALLOCATED");
    assert_int_equal (c->state, JOB_PENDING);

    job_end (ctx, b, JOB_COMPLETED, NULL);
    sched_run (ctx);
    assert_int_equal (c->state, JOB_RUNNING);
    job_end (ctx, c, JOB_FAILED, NULL);
    for (size_t i = 0; i < ctx->nnodes; i++)
        assert_int_equal (ctx->nodes[i].alloc_cpus, 0);
    assert_int_equal (c->id, 3);
}

static void test_rejections (void **state)
{
    struct ctld *ctx = *state;
    arbor_error_t err;
    struct msg_job_alloc r;

    r = (struct msg_job_alloc){ .nnodes = 5 };
    assert_null (submit (ctx, &r, &err));
    assert_int_equal (errno, EINVAL);

    r = (struct msg_job_alloc){ .ntasks = 5, .partition = "small" };
    assert_null (submit (ctx, &r, &err));
    assert_int_equal (errno, EINVAL);

    r = (struct msg_job_alloc){ .partition = "nope" };
    assert_null (submit (ctx, &r, &err));
    assert_string_equal (err.text, "invalid partition name nope");

    r = (struct msg_job_alloc){ .nodelist = "n9" };
    assert_null (submit (ctx, &r, &err));
    assert_string_equal (err.text, "invalid node name n9");

    r = (struct msg_job_alloc){ .nodelist = "n2", .partition = "small" };
    assert_null (submit (ctx, &r, &err));
    assert_string_equal (err.text, "node n2 is not in partition small");

    r = (struct msg_job_alloc){ .nodelist = "n[", .exclude = "n1" };
    assert_null (submit (ctx, &r, &err));
    assert_int_equal (errno, EINVAL);

    r = (struct msg_job_alloc){ .nodelist = "n2", .exclude = "n2" };
    assert_null (submit (ctx, &r, &err));

    r = (struct msg_job_alloc){ .time_limit = 120 };
    assert_null (submit (ctx, &r, &err));
    assert_string_equal (err.text, "time limit 120 exceeds partition debug "
                         "MaxTime 60");

    r = (struct msg_job_alloc){ .mem_mb = 2000 };
    assert_null (submit (ctx, &r, &err));
    assert_int_equal (ctx->njobs, 0);
}

static void test_down_nodes_pend (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc r = { .nnodes = 2, .nodelist = "n4" };
    arbor_error_t err;
    struct job *j;

    ctx->nodes[3].base = NODE_DOWN;
    assert_non_null (j = submit (ctx, &r, &err));
    assert_int_equal (j->state, JOB_PENDING);
    node_register (&ctx->nodes[3], 2, 1000, time (NULL));
    assert_string_equal (node_state_str (&ctx->nodes[3]), "DRAIN");
    assert_string_equal (ctx->nodes[3].reason, "Low CPUs (2 < 4)");
    sched_run (ctx);
    assert_int_equal (j->state, JOB_PENDING);
    node_register (&ctx->nodes[3], 4, 1000, time (NULL));
    sched_run (ctx);
    assert_int_equal (j->state, JOB_RUNNING);
    assert_string_equal (j->nodelist, "n[1,4]");
    assert_int_equal (j->time_limit, 60);
    job_end (ctx, j, JOB_COMPLETED, NULL);
    jobs_purge (ctx, time (NULL) + CTLD_JOB_KEEP, false);
    assert_null (ctx->jobs);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_fifo, setup, teardown),
        cmocka_unit_test_setup_teardown (test_rejections, setup, teardown),
        cmocka_unit_test_setup_teardown (test_down_nodes_pend, setup,
                                         teardown),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
