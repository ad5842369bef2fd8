/* gres_test.c - generic resources and features as the controller counts
 * them (nodes/node_gres.c, sched/gres_sched.c, sched/constraint.c): jobs
 * hold distinct device indices, wait for busy ones, take them per node,
 * per task, per job and all of them with --exclusive; a node registering
 * fewer than configured is drained with Slurm's reason; requests that can
 * never be met are refused; constraints choose nodes by their features,
 * [a|b] all alike and a*N by count. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctld.h"
#include "fixture.h"
#include "job/job.h"
#include "job/cores.h"
#include "job/jobstate.h"
#include "job/step.h"
#include "nodes/node.h"
#include "nodes/node_gres.h"
#include "proto.h"
#include "sched/sched.h"
#include "states.h"

static struct outbox outbox;

/* n1, n2: 4 CPUs, 2 GPUs; n1 a100, n2 v100, both ib. */
static struct ctld *cluster (void)
{
    struct ctld *ctx = fixture_ctld (
        "ClusterName=t\nNodedPort=1\nGresTypes=gpu\n"
        "NodeName=n1 NodeAddr=127.0.0.1 CPUs=4 RealMemory=1000 Gres=gpu:2 "
        "Features=a100,ib\n"
        "NodeName=n2 NodeAddr=127.0.0.2 CPUs=4 RealMemory=1000 Gres=gpu:2 "
        "Features=v100,ib\n"
        "PartitionName=p Nodes=n[1-2] Default=YES\n",
        &outbox);

    assert_non_null (ctx);
    return ctx;
}

/* Submit r; NULL (with err filled) when refused. */
static struct job *submit (struct ctld *ctx, struct msg_job_alloc *r,
                           arbor_error_t *err)
{
    if (!r->time_limit)
        r->time_limit = 10;
    return fixture_submit (ctx, r, getuid (), err);
}

static struct job *must (struct ctld *ctx, struct msg_job_alloc r)
{
    arbor_error_t err = { "" };
    struct job *j = submit (ctx, &r, &err);

    if (!j)
        fail_msg ("refused: %s", err.text);
    return j;
}

/* What j holds on its k-th node, as text. */
static const char *held (const struct job *j, size_t k)
{
    static char buf[GRESALLOC_TEXT_MAX];

    buf[0] = '\0';
    if (k < j->nnodes && j->nodes[k].gres)
        gresalloc_text (j->nodes[k].gres, buf, sizeof (buf));
    return buf;
}

static void finish (struct ctld *ctx, struct job *j)
{
    job_end (ctx, j, JOB_COMPLETED, NULL);
    fixture_epilogs (ctx, j);
    sched_flush (ctx);
}

static void test_distinct_devices (void **state)
{
    struct ctld *ctx = cluster ();
    struct job *a =
        must (ctx, (struct msg_job_alloc){
                       .nnodes = 1, .nodelist = "n1", .gpus_per_node = "1" });
    struct job *b =
        must (ctx, (struct msg_job_alloc){
                       .nnodes = 1, .nodelist = "n1", .gres = "gpu:1" });
    struct job *c = must (
        ctx,
        (struct msg_job_alloc){ .nnodes = 1, .nodelist = "n1", .gpus = "1" });

    (void)state;
    assert_int_equal (a->state, JOB_RUNNING);
    assert_int_equal (b->state, JOB_RUNNING);
    assert_string_equal (held (a, 0), "gpu=0");
    assert_string_equal (held (b, 0), "gpu=1");
    assert_int_equal (c->state, JOB_PENDING); /* cores free, GPUs not */
    assert_int_equal (node_gres_avail (&ctx->nodes[0].gres, "gpu", NULL, false),
                      0);
    outbox_clear (&outbox);
    finish (ctx, a);
    assert_int_equal (c->state, JOB_RUNNING);
    assert_string_equal (held (c, 0), "gpu=0");
    /* the Epilog learns each node's GPUs (noded/epilog.c keeps its own) */
    const struct sent *t = outbox_nth (&outbox, MSG_JOB_TERMINATE, 0);
    bool found = false;
    assert_non_null (t);
    for (uint32_t i = 0; i < t->msg.job_terminate.env_count; i++)
        found |= !strcmp (t->msg.job_terminate.env[i], "SLURM_JOB_GPUS@n1=0");
    assert_true (found);
    fixture_free (ctx);
}

/* What scontrol show job -d prints of a job's units on a node: each
 * kind (name and type) it holds with its indices; kinds it holds none of
 * left out. */
static void test_held_text (void **state)
{
    struct ctld *ctx =
        fixture_ctld ("ClusterName=t\nNodedPort=1\nGresTypes=gpu,nic\n"
                      "NodeName=n1 NodeAddr=127.0.0.1 CPUs=8 RealMemory=1000 "
                      "Gres=gpu:a100:2,gpu:v100:2,nic:1\n"
                      "PartitionName=p Nodes=n1 Default=YES\n",
                      &outbox);
    const struct node_gres *g;
    struct job *a, *b;
    char buf[256];

    (void)state;
    assert_non_null (ctx);
    g = &ctx->nodes[0].gres;
    a = must (ctx, (struct msg_job_alloc){ .gres = "gpu:a100:1,nic:1" });
    b = must (ctx, (struct msg_job_alloc){ .gpus = "2" });
    assert_int_equal (b->state, JOB_RUNNING);
    assert_string_equal (
        node_gres_held_text (g, a->nodes[0].gres, buf, sizeof (buf)),
        "gpu:a100:1(IDX:0),nic:1(IDX:0)");
    assert_string_equal (
        node_gres_held_text (g, b->nodes[0].gres, buf, sizeof (buf)),
        "gpu:a100:1(IDX:1),gpu:v100:1(IDX:2)");
    assert_string_equal (node_gres_text (g, true, buf, sizeof (buf)),
                         "gpu:a100:2(IDX:0-1),gpu:v100:1(IDX:2),nic:1(IDX:0)");
    fixture_free (ctx);
}

static void test_per_task_job_exclusive (void **state)
{
    struct ctld *ctx = cluster ();
    struct job *t =
        must (ctx, (struct msg_job_alloc){ .ntasks = 2, .gpus_per_task = "1" });
    struct job *x;
    struct job *g;

    (void)state;
    assert_int_equal (t->nnodes, 1); /* two tasks, two GPUs, one node */
    assert_string_equal (held (t, 0), "gpu=0-1");
    finish (ctx, t);
    /* --gpus=3 over two nodes: as many on each as it has, in node order */
    g = must (ctx, (struct msg_job_alloc){ .nnodes = 2, .gpus = "3" });
    assert_string_equal (held (g, 0), "gpu=0-1");
    assert_string_equal (held (g, 1), "gpu=0");
    finish (ctx, g);
    /* --exclusive without asking takes every GPU of its node */
    x = must (ctx, (struct msg_job_alloc){ .nnodes = 1, .exclusive = true });
    assert_string_equal (held (x, 0), "gpu=0-1");
    fixture_free (ctx);
}

static void test_never_fits (void **state)
{
    struct ctld *ctx = cluster ();
    arbor_error_t err = { "" };

    (void)state;
    assert_null (
        submit (ctx, &(struct msg_job_alloc){ .gpus_per_node = "3" }, &err));
    assert_non_null (
        strstr (err.text, "Requested node configuration is not available"));
    assert_null (
        submit (ctx, &(struct msg_job_alloc){ .gres = "nic:1" }, &err));
    assert_string_equal (err.text, "Invalid generic resource (gres) "
                                   "specification: 'nic' is not in "
                                   "GresTypes");
    assert_null (
        submit (ctx, &(struct msg_job_alloc){ .gpus = "a:b:c" }, &err));
    assert_non_null (strstr (err.text, "Invalid generic resource"));
    fixture_free (ctx);
}

static void test_register_fewer (void **state)
{
    struct ctld *ctx = cluster ();
    char *names[] = { "gpu" }, *types[] = { "" }, *files[] = { "/dev/x0" },
         *cores[] = { "0-1" };
    uint32_t counts[] = { 1 };
    struct msg_node_register m = {
        .name = "n1",
        .cpus = 4,
        .real_memory = 1000,
        .gres_names = names,
        .gres_names_count = 1,
        .gres_types = types,
        .gres_types_count = 1,
        .gres_counts = counts,
        .gres_counts_count = 1,
        .gres_files = files,
        .gres_files_count = 1,
        .gres_cores = cores,
        .gres_cores_count = 1,
    };
    char why[160];
    arbor_error_t err;
    struct node *n = &ctx->nodes[0];

    (void)state;
    assert_int_equal (
        node_gres_register (&n->gres, &m, why, sizeof (why), &err), 0);
    assert_string_equal (why, "gres/gpu count reported lower than configured "
                              "(1 < 2)");
    node_register (ctx, 0, 4, 1000, why, time (NULL));
    assert_string_equal (node_state_str (n), "DRAIN");
    assert_string_equal (n->reason, why);
    /* two again: the drain lifts */
    counts[0] = 2;
    files[0] = "/dev/x0,/dev/x1";
    assert_int_equal (
        node_gres_register (&n->gres, &m, why, sizeof (why), &err), 0);
    assert_string_equal (why, "");
    node_register (ctx, 0, 4, 1000, NULL, time (NULL));
    assert_string_equal (node_state_str (n), "IDLE");
    /* a damaged message is refused */
    files[0] = "/dev/x0";
    assert_int_equal (
        node_gres_register (&n->gres, &m, why, sizeof (why), &err), -1);
    assert_int_equal (errno, EINVAL);
    fixture_free (ctx);
}

static void test_constraints (void **state)
{
    struct ctld *ctx = cluster ();
    arbor_error_t err = { "" };
    struct job *j;

    (void)state;
    j = must (ctx, (struct msg_job_alloc){ .constraint = "v100" });
    assert_string_equal (j->nodelist, "n2");
    finish (ctx, j);
    j = must (ctx,
              (struct msg_job_alloc){ .nnodes = 2, .constraint = "a100|v100" });
    assert_string_equal (j->nodelist, "n[1-2]");
    finish (ctx, j);
    /* [a|b]: all alike, so two nodes cannot be had */
    assert_null (submit (
        ctx,
        &(struct msg_job_alloc){ .nnodes = 2, .constraint = "[a100|v100]" },
        &err));
    assert_non_null (strstr (err.text, "not available"));
    /* the first alternative that fits */
    j = must (ctx, (struct msg_job_alloc){ .constraint = "[v100|a100]" });
    assert_string_equal (j->nodelist, "n2");
    finish (ctx, j);
    /* counts: one of the two nodes has v100; n1 busy, it waits for it */
    j = must (ctx, (struct msg_job_alloc){
                       .nnodes = 1, .ntasks = 4, .nodelist = "n2" });
    struct job *k =
        must (ctx, (struct msg_job_alloc){ .constraint = "v100*1" });
    assert_int_equal (k->state, JOB_PENDING);
    finish (ctx, j);
    assert_int_equal (k->state, JOB_RUNNING);
    assert_string_equal (k->nodelist, "n2");
    /* a feature nobody has */
    assert_null (
        submit (ctx, &(struct msg_job_alloc){ .constraint = "x1" }, &err));
    assert_string_equal (err.text, "Invalid feature specification: no node of "
                                   "partition p has feature 'x1'");
    fixture_free (ctx);
}

/* One node of 8 CPUs and 2 GPUs, under backfill. */
static struct ctld *one_gpu_node (void)
{
    return fixture_ctld (
        "ClusterName=t\nNodedPort=1\nGresTypes=gpu\n"
        "SchedulerType=sched/backfill\n"
        "NodeName=n1 NodeAddr=127.0.0.1 CPUs=8 RealMemory=1000 Gres=gpu:2\n"
        "PartitionName=p Nodes=n1 Default=YES\n",
        &outbox);
}

/* Backfill with GPUs: A holds both GPUs of the one node for 10 min; B,
 * the head, wants one; C wants only a core for 5 min and is backfilled;
 * D wants a GPU for 5 min: it would end in time, but no GPU is free now,
 * so backfill does not start it. */
static void test_backfill (void **state)
{
    struct ctld *ctx = one_gpu_node ();
    struct job *a, *b, *c, *d;

    (void)state;
    assert_non_null (ctx);
    a = must (ctx, (struct msg_job_alloc){ .gpus = "2", .time_limit = 10 });
    b = must (ctx, (struct msg_job_alloc){ .gpus = "1", .time_limit = 10 });
    c = must (ctx, (struct msg_job_alloc){ .time_limit = 5 });
    d = must (ctx, (struct msg_job_alloc){ .gpus = "1", .time_limit = 5 });
    assert_int_equal (a->state, JOB_RUNNING);
    sched_backfill (ctx);
    assert_int_equal (b->state, JOB_PENDING);
    assert_true (b->expected_start >= a->start_time + 600);
    assert_int_equal (c->state, JOB_RUNNING);
    assert_int_equal (d->state, JOB_PENDING);
    finish (ctx, a);
    assert_int_equal (b->state, JOB_RUNNING);
    fixture_free (ctx);
}

/* Backfill follows the GPUs through time. On a node of 8 cores and 2
 * GPUs, A holds both GPUs (and a core) for 10 min, X the other 7 cores
 * for 5 min. B wants one GPU: its cores come back at 5 min, its GPU only
 * at 10. C, behind it, wants both: not beside B, whose reservation holds
 * one of them until 20 min. */
static void test_backfill_over_time (void **state)
{
    struct ctld *ctx = one_gpu_node ();
    struct job *a, *x, *b, *c;

    (void)state;
    assert_non_null (ctx);
    a = must (ctx, (struct msg_job_alloc){ .gpus = "2", .time_limit = 10 });
    x = must (ctx, (struct msg_job_alloc){ .ntasks = 7, .time_limit = 5 });
    b = must (ctx, (struct msg_job_alloc){ .gpus = "1", .time_limit = 10 });
    c = must (ctx, (struct msg_job_alloc){ .gpus = "2", .time_limit = 10 });
    assert_int_equal (a->state, JOB_RUNNING);
    assert_int_equal (x->state, JOB_RUNNING);
    sched_backfill (ctx);
    assert_int_equal (b->state, JOB_PENDING);
    assert_int_equal (c->state, JOB_PENDING);
    /* not at 5 min, when X's cores come back: A's GPUs are still held */
    assert_true (b->expected_start >= a->start_time + 600);
    assert_true (b->expected_start < a->start_time + 660);
    /* not beside B: B holds one of the two GPUs until 20 min */
    assert_true (c->expected_start >= b->expected_start + 600);
    fixture_free (ctx);
}

/* Steps divide their job's GPUs: two --gpus=1 steps hold different
 * ones, a third waits (EBUSY) until one ends, --overlap shares, a step
 * asking more than the job holds is refused; one asking nothing sees all
 * of them. */
static void test_steps (void **state)
{
    struct ctld *ctx = cluster ();
    struct job *j = must (
        ctx, (struct msg_job_alloc){
                 .nodelist = "n1", .nnodes = 1, .ntasks = 4, .gpus = "2" });
    struct msg_step_create one = { .job_id = j->id,
                                   .nnodes = 1,
                                   .ntasks = 1,
                                   .cpus_per_task = 1,
                                   .exact = true,
                                   .gpus = "1" };
    struct msg_step_created out[4];
    arbor_error_t err = { "" };
    struct step *a, *b;

    (void)state;
    if (step_create (ctx, j, &one, getuid (), getgid (), &out[0], &err) < 0
        || step_create (ctx, j, &one, getuid (), getgid (), &out[1], &err) < 0)
        fail_msg ("step: %s", err.text);
    a = j->steps->id == 0 ? j->steps : j->steps->next;
    b = a == j->steps ? j->steps->next : j->steps;
    assert_non_null (a);
    assert_non_null (b);
    assert_non_null (a->gres);
    assert_true (gresalloc_has (gresalloc_find (a->gres[0], "gpu"), 0));
    assert_true (gresalloc_has (gresalloc_find (b->gres[0], "gpu"), 1));
    assert_int_equal (
        step_create (ctx, j, &one, getuid (), getgid (), &out[2], &err), -1);
    assert_int_equal (errno, EBUSY);
    one.overlap = true;
    assert_int_equal (
        step_create (ctx, j, &one, getuid (), getgid (), &out[2], &err), 0);
    one.overlap = false;
    one.gpus = "3";
    assert_int_equal (
        step_create (ctx, j, &one, getuid (), getgid (), &out[3], &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "the job holds 2 gpu"));
    for (int i = 0; i < 3; i++)
        proto_clear (MSG_STEP_CREATED, &out[i]);
    fixture_free (ctx);
}

/* n1 registers two GPUs, /dev/x0 local to CPUs cores0 and /dev/x1 to
 * cores1 ("": any). */
static void register_two_gpus (struct ctld *ctx, char *cores0, char *cores1)
{
    char *names[] = { "gpu", "gpu" }, *types[] = { "", "" },
         *files[] = { "/dev/x0", "/dev/x1" }, *cores[] = { cores0, cores1 };
    uint32_t counts[] = { 1, 1 };
    struct msg_node_register m = {
        .name = "n1",
        .cpus = 4,
        .real_memory = 1000,
        .gres_names = names,
        .gres_names_count = 2,
        .gres_types = types,
        .gres_types_count = 2,
        .gres_counts = counts,
        .gres_counts_count = 2,
        .gres_files = files,
        .gres_files_count = 2,
        .gres_cores = cores,
        .gres_cores_count = 2,
    };
    char why[160];
    arbor_error_t err;

    assert_int_equal (
        node_gres_register (&ctx->nodes[0].gres, &m, why, sizeof (why), &err),
        0);
}

/* n1 registers GPU 0 local to CPUs 0-1 and GPU 1 to 2-3: a job's cores
 * go near its GPU, and only there with enforce-binding. */
static void test_binding (void **state)
{
    struct ctld *ctx = cluster ();
    char *mask;
    arbor_error_t err;
    struct job *a, *b;

    (void)state;
    register_two_gpus (ctx, "0-1", "2-3");
    a = must (ctx, (struct msg_job_alloc){
                       .nodelist = "n1", .nnodes = 1, .gpus = "1" });
    b = must (ctx,
              (struct msg_job_alloc){
                  .nodelist = "n1", .nnodes = 1, .ntasks = 2, .gpus = "1" });
    assert_string_equal (held (a, 0), "gpu=0");
    assert_string_equal (held (b, 0), "gpu=1");
    mask = cores_ranged (b->nodes[0].cores, 4);
    assert_string_equal (mask, "2-3"); /* not 1-2: near GPU 1 */
    free (mask);
    finish (ctx, a);
    finish (ctx, b);
    /* enforce-binding: 3 cores, but a GPU has 2 near it: never */
    assert_null (
        submit (ctx,
                &(struct msg_job_alloc){ .nodelist = "n1",
                                         .nnodes = 1,
                                         .ntasks = 3,
                                         .gpus = "1",
                                         .gres_flags = "enforce-binding" },
                &err));
    fixture_free (ctx);
}

/* Units held stay held, by index, when the node registers items other
 * than the configuration's (a restored job took them before). */
static void test_register_keeps_held (void **state)
{
    struct ctld *ctx = cluster ();
    char text[256];
    struct job *a, *b, *c;

    (void)state;
    a = must (ctx, (struct msg_job_alloc){
                       .nodelist = "n1", .nnodes = 1, .gpus = "1" });
    b = must (ctx, (struct msg_job_alloc){
                       .nodelist = "n1", .nnodes = 1, .gpus = "1" });
    assert_string_equal (held (b, 0), "gpu=1");
    finish (ctx, a);
    register_two_gpus (ctx, "", "");
    assert_string_equal (
        node_gres_text (&ctx->nodes[0].gres, true, text, sizeof (text)),
        "gpu:1(IDX:1)");
    c = must (ctx, (struct msg_job_alloc){
                       .nodelist = "n1", .nnodes = 1, .gpus = "1" });
    assert_string_equal (held (c, 0), "gpu=0");
    fixture_free (ctx);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_distinct_devices),
        cmocka_unit_test (test_per_task_job_exclusive),
        cmocka_unit_test (test_never_fits),
        cmocka_unit_test (test_register_fewer),
        cmocka_unit_test (test_constraints),
        cmocka_unit_test (test_backfill),
        cmocka_unit_test (test_backfill_over_time),
        cmocka_unit_test (test_held_text),
        cmocka_unit_test (test_steps),
        cmocka_unit_test (test_binding),
        cmocka_unit_test (test_register_keeps_held),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
