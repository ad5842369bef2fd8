/* sched_test.c - unit tests for ctld job validation and FCFS scheduling
 * (job.c, sched.c, node.c, part.c) on a controller context built from a
 * configuration text, with no clients and no running loop. Ended jobs
 * hold their nodes until every node's epilog completes (term.c), which
 * the tests play with fixture_epilogs(). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf.h"
#include "ctld.h"
#include "error.h"
#include "fixture.h"
#include "job/job.h"
#include "nodes/node.h"
#include "proto.h"
#include "sched/sched.h"
#include "states.h"
#include "job/term.h"
#include "job/submit.h"

static const char conf_text[] =
    FIXTURE_CONF_N4 "PartitionName=small Nodes=n1 MaxTime=INFINITE\n";

static struct outbox outbox;

static struct fixture_spec spec = {
    .conf_text = conf_text,
    .out = &outbox,
};

static struct job *submit (struct ctld *ctx, struct msg_job_alloc *req,
                           arbor_error_t *err)
{
    return fixture_submit (ctx, req, getuid (), err);
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
    assert_string_equal (node_state_str (&ctx->nodes[0]), "COMPLETING");
    assert_int_equal (ctx->nodes[0].alloc_cpus, 1);
    sched_flush (ctx);
    assert_int_equal (b->state, JOB_PENDING); /* n1 not free yet */
    assert_int_equal (fixture_epilogs (ctx, a), 1);
    assert_int_equal (ctx->nodes[0].alloc_cpus, 0);
    sched_flush (ctx);
    assert_int_equal (b->state, JOB_RUNNING);
    assert_string_equal (b->nodelist, "n[1-4]");
    assert_string_equal (node_state_str (&ctx->nodes[3]), "ALLOCATED");
    assert_int_equal (c->state, JOB_PENDING);

    job_end (ctx, b, JOB_COMPLETED, NULL);
    fixture_epilogs (ctx, b);
    sched_flush (ctx);
    assert_int_equal (c->state, JOB_RUNNING);
    job_end (ctx, c, JOB_FAILED, NULL);
    fixture_epilogs (ctx, c);
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
    node_register (ctx, 3, 2, 1000, NULL, time (NULL));
    assert_string_equal (node_state_str (&ctx->nodes[3]), "DRAIN");
    assert_string_equal (ctx->nodes[3].reason, "Low CPUs (2 < 4)");
    sched_flush (ctx);
    assert_int_equal (j->state, JOB_PENDING);
    node_register (ctx, 3, 4, 1000, NULL, time (NULL));
    sched_flush (ctx);
    assert_int_equal (j->state, JOB_RUNNING);
    assert_string_equal (j->nodelist, "n[1,4]");
    assert_int_equal (j->time_limit, 60);
    job_end (ctx, j, JOB_COMPLETED, NULL);
    jobs_purge (ctx, time (NULL) + (time_t)ctx->conf->min_job_age, false);
    assert_non_null (ctx->jobs); /* still completing: kept */
    fixture_epilogs (ctx, j);
    jobs_purge (ctx, time (NULL) + (time_t)ctx->conf->min_job_age, false);
    assert_null (ctx->jobs);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST (test_fifo, &spec),
        FIXTURE_TEST (test_rejections, &spec),
        FIXTURE_TEST (test_down_nodes_pend, &spec),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
