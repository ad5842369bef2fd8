/* term_test.c - unit tests for the controller's side of job termination
 * (term.c, cancel.c) and the pieces it relies on: COMPLETING until every
 * node's EPILOG_COMPLETE, resources freed only then, drains, JOB_TERMINATE
 * resends, time limits with OverTimeLimit, the --signal warning, cancel
 * permissions and errors, OOM end states, --mem-per-cpu, and the cores a
 * step is given (checked in the sealed credential). */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "job/cancel.h"
#include "conf.h"
#include "ctld.h"
#include "job/cores.h"
#include "error.h"
#include "job/job.h"
#include "nodes/node.h"
#include "proto.h"
#include "sched/sched.h"
#include "skip.h"
#include "states.h"
#include "job/step.h"
#include "job/term.h"

#include "cred.h"
#include "credkey.h"
#include "ctld.h"
#include "fixture.h"
#include "job/jobs.h"
#include "job/submit.h"

static const char conf_text[] = FIXTURE_CONF_N4;

#define OTHER_UID 4242

static struct outbox outbox;

static struct fixture_spec spec = {
    .conf_text = conf_text,
    .out = &outbox,
    .priv_uid = 999, /* "ArborUser" for the permission tests */
};

static struct job *run_job (struct ctld *ctx, uint32_t nnodes,
                            uint32_t time_limit)
{
    struct msg_job_alloc r = { .nnodes = nnodes, .time_limit = time_limit };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, getuid (), &err);

    assert_non_null (j);
    assert_int_equal (j->state, JOB_RUNNING);
    return j;
}

static bool env_has (const struct msg_job_terminate *m, const char *kv)
{
    for (uint32_t i = 0; i < m->env_count; i++)
        if (strcmp (m->env[i], kv) == 0)
            return true;
    return false;
}

static int cancel (struct ctld *ctx, uint32_t job, uint32_t step, int sig,
                   uid_t uid, arbor_error_t *err)
{
    struct msg_job_cancel m = { .job_id = job, .step_id = step, .signal = sig };

    return job_cancel (ctx, &m, uid, err);
}

static void test_cancel_pending (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc big = { .nnodes = 4, .exclusive = true };
    struct job *a = run_job (ctx, 1, 0), *b;
    arbor_error_t err;

    assert_non_null (b = fixture_submit (ctx, &big, getuid (), &err));
    assert_int_equal (b->state, JOB_PENDING);
    /* A pending job takes only SIGKILL. */
    assert_int_equal (
        cancel (ctx, b->id, STEP_ID_ALL, SIGUSR1, getuid (), &err), -1);
    assert_string_equal (err.text, "Job 2 is pending execution");
    assert_int_equal (cancel (ctx, b->id, STEP_ID_ALL, 0, getuid (), &err), 0);
    assert_int_equal (b->state, JOB_CANCELLED);
    assert_false (b->completing);
    assert_int_not_equal (b->end_time, 0);
    assert_int_equal (outbox_count (&outbox, 0), 0); /* no nodes */
    assert_int_equal (cancel (ctx, b->id, STEP_ID_ALL, 0, getuid (), &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "Job 2 has already finished");
    (void)a;
}

/* The JOB_TERMINATEs sent for a cancelled job on n[1-2]. */
static void check_terminate_msgs (const struct job *j)
{
    const struct sent *s;
    char kv[64];

    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 2);
    s = outbox_nth (&outbox, MSG_JOB_TERMINATE, 1);
    assert_int_equal (s->node, 1);
    assert_int_equal (s->msg.job_terminate.job_id, j->id);
    assert_string_equal (s->msg.job_terminate.state, "CANCELLED");
    assert_int_equal (s->msg.job_terminate.uid, getuid ());
    snprintf (kv, sizeof (kv), "SLURM_JOB_ID=%u", j->id);
    assert_true (env_has (&s->msg.job_terminate, kv));
    snprintf (kv, sizeof (kv), "SLURM_JOB_USER=%s", j->user);
    assert_true (env_has (&s->msg.job_terminate, kv));
    assert_true (env_has (&s->msg.job_terminate, "SLURM_JOB_NODELIST=n[1-2]"));
    assert_true (env_has (&s->msg.job_terminate, "SLURM_JOB_PARTITION=debug"));
    assert_true (env_has (&s->msg.job_terminate, "SLURM_CLUSTER_NAME=t"));
}

static void test_cancel_running (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc next = { .nnodes = 4, .exclusive = true };
    struct job *j = run_job (ctx, 2, 0), *w;
    arbor_error_t err;

    assert_non_null (w = fixture_submit (ctx, &next, getuid (), &err));
    assert_int_equal (cancel (ctx, j->id, STEP_ID_ALL, 0, getuid (), &err), 0);
    assert_int_equal (j->state, JOB_CANCELLED);
    assert_true (j->completing);
    assert_string_equal (job_state_shown (j), "COMPLETING");
    assert_string_equal (node_state_str (&ctx->nodes[0]), "COMPLETING");
    assert_string_equal (node_state_str (&ctx->nodes[1]), "COMPLETING");
    assert_int_equal (ctx->nodes[0].alloc_cpus, 1); /* still held */

    check_terminate_msgs (j);

    /* Completing: not cancellable again, not purged, next job waits. */
    assert_int_equal (cancel (ctx, j->id, STEP_ID_ALL, 0, getuid (), &err), -1);
    assert_string_equal (err.text, "Job 1 is already completing");
    jobs_purge (ctx, time (NULL) + 2 * (time_t)ctx->conf->min_job_age, false);
    assert_ptr_equal (job_find (ctx, j->id), j);
    sched_flush (ctx);
    assert_int_equal (w->state, JOB_PENDING);

    /* n1's epilog: n1 is free, the job still completes on n2. */
    struct msg_epilog_complete e1 = { .job_id = j->id, .node = "n1" };
    assert_int_equal (term_epilog_complete (ctx, &e1, &err), 0);
    assert_int_equal (ctx->nodes[0].alloc_cpus, 0);
    assert_string_equal (node_state_str (&ctx->nodes[0]), "IDLE");
    assert_true (j->completing);
    assert_int_equal (term_epilog_complete (ctx, &e1, &err), 0); /* repeat */
    assert_int_equal (ctx->nodes[0].alloc_cpus, 0);

    /* n2's epilog asks for a drain: the job is done, n2 is DRAIN. */
    struct msg_epilog_complete e2 = { .job_id = j->id,
                                      .node = "n2",
                                      .rc = 0,
                                      .drain_reason = "Kill task failed" };
    assert_int_equal (term_epilog_complete (ctx, &e2, &err), 0);
    assert_false (j->completing);
    assert_string_equal (job_state_shown (j), "CANCELLED");
    assert_int_equal (ctx->nodes[1].alloc_cpus, 0);
    assert_string_equal (node_state_str (&ctx->nodes[1]), "DRAIN");
    assert_string_equal (ctx->nodes[1].reason, "Kill task failed");
    /* A registration does not lift that drain; the next job cannot use
     * n2, so the 4-node job keeps waiting. */
    node_register (ctx, 1, 4, 1000, NULL, time (NULL));
    sched_flush (ctx);
    assert_int_equal (w->state, JOB_PENDING);

    struct msg_epilog_complete bad = { .job_id = j->id, .node = "n3" };
    assert_int_equal (term_epilog_complete (ctx, &bad, &err), -1);
    assert_int_equal (errno, ENOENT);
}

static void test_terminate_resend (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = run_job (ctx, 2, 0);
    time_t t0;

    job_end (ctx, j, JOB_COMPLETED, NULL);
    t0 = j->term[0].sent;
    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 2);
    /* Unanswered requests are not resent while in flight. */
    term_tick (ctx, t0 + 60);
    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 2);
    /* n1 acknowledges, n2 refuses (an old noded). */
    term_answer (ctx, j->id, j->nodes[0].node, 0, NULL);
    term_answer (ctx, j->id, j->nodes[1].node, EPROTO,
                 "unknown message type 202");
    t0 = j->term[1].sent;
    term_tick (ctx, t0 + CTLD_TERM_RESEND - 1);
    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 2);
    term_tick (ctx, t0 + CTLD_TERM_RESEND);
    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 3);
    assert_int_equal (outbox_nth (&outbox, MSG_JOB_TERMINATE, 2)->node,
                      j->nodes[1].node);
    assert_true (j->term[1].logged);
    /* A registration long after the answer asks n1 again. */
    term_node_registered (ctx, j->nodes[0].node,
                          j->term[0].sent + CTLD_TERM_REPEAT);
    term_tick (ctx, j->term[0].sent + CTLD_TERM_REPEAT);
    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 4);
    /* n2 goes DOWN: it counts as done; n1's epilog ends the job. */
    ctx->nodes[j->nodes[1].node].base = NODE_DOWN;
    term_node_down (ctx, j->nodes[1].node, "node n2 not responding");
    assert_true (j->nodes[1].released);
    assert_true (j->completing);
    assert_int_equal (fixture_epilogs (ctx, j), 2);
    assert_false (j->completing);
    assert_int_equal (j->state, JOB_COMPLETED);
}

static void test_node_fail (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = run_job (ctx, 2, 0);

    ctx->nodes[1].base = NODE_DOWN;
    term_node_down (ctx, 1, "node n2 not responding");
    assert_int_equal (j->state, JOB_NODE_FAIL);
    assert_true (j->completing);
    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 1);
    assert_int_equal (outbox_nth (&outbox, MSG_JOB_TERMINATE, 0)->node, 0);
    assert_int_equal (ctx->nodes[1].alloc_cpus, 0);
    assert_int_equal (ctx->nodes[0].alloc_cpus, 1);
    fixture_epilogs (ctx, j);
    assert_false (j->completing);
}

static void test_time_limit (void **state)
{
    struct ctld *ctx = *state;
    struct job *a = run_job (ctx, 1, 1), *b;
    time_t t = a->start_time;

    term_tick (ctx, t + 59);
    assert_int_equal (a->state, JOB_RUNNING);
    assert_true (term_tick (ctx, t + 60));
    assert_int_equal (a->state, JOB_TIMEOUT);
    assert_string_equal (job_state_shown (a), "COMPLETING");
    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 1);
    assert_string_equal (
        outbox_nth (&outbox, MSG_JOB_TERMINATE, 0)->msg.job_terminate.state,
        "TIMEOUT");

    /* OverTimeLimit=2: the job may run 2 minutes past its limit. */
    ctx->conf->over_time_limit = 2;
    b = run_job (ctx, 1, 1);
    t = b->start_time;
    term_tick (ctx, t + 60 + 119);
    assert_int_equal (b->state, JOB_RUNNING);
    term_tick (ctx, t + 60 + 120);
    assert_int_equal (b->state, JOB_TIMEOUT);

    /* Partition DefaultTime (= MaxTime 60 here) when none is asked. */
    assert_int_equal (run_job (ctx, 1, 0)->time_limit, 60);
}

static struct step *fake_step (struct job *j, uint32_t id)
{
    struct step *s = calloc (1, sizeof (*s));

    assert_non_null (s);
    s->id = id;
    s->nnodes = 1;
    s->jnodes = calloc (1, sizeof (*s->jnodes));
    s->tasks = calloc (1, sizeof (*s->tasks));
    s->cpus = calloc (1, sizeof (*s->cpus));
    s->done = calloc (1, sizeof (*s->done));
    s->cores = calloc (1, sizeof (*s->cores));
    s->jnodes[0] = j->nnodes - 1;
    s->next = j->steps;
    j->steps = s;
    return s;
}

static void test_warn_signal (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc r = {
        .nnodes = 2, .time_limit = 2, .warn_signal = SIGUSR1, .warn_time = 30
    };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, getuid (), &err);
    const struct sent *s;
    time_t t;

    assert_non_null (j);
    t = j->start_time;
    fake_step (j, 0);             /* on n2 */
    fake_step (j, STEP_ID_BATCH); /* its shell: not warned (sbatch) */
    term_tick (ctx, t + 120 - 31);
    assert_int_equal (outbox_count (&outbox, MSG_STEP_KILL), 0);
    term_tick (ctx, t + 120 - 30);
    assert_int_equal (outbox_count (&outbox, MSG_STEP_KILL), 1);
    s = outbox_nth (&outbox, MSG_STEP_KILL, 0);
    assert_int_equal (s->msg.step_kill.signal, SIGUSR1);
    assert_int_equal (s->msg.step_kill.step_id, 0);
    assert_false (s->msg.step_kill.revoke);
    term_tick (ctx, t + 120 - 10); /* once only */
    assert_int_equal (outbox_count (&outbox, MSG_STEP_KILL), 1);
    assert_int_equal (j->state, JOB_RUNNING);

    /* --signal=B:USR1@30: the batch shell's own process alone */
    r.warn_signal = SIGUSR1 | WARN_SIGNAL_BATCH;
    assert_non_null (j = fixture_submit (ctx, &r, getuid (), &err));
    fake_step (j, 0);
    fake_step (j, STEP_ID_BATCH);
    term_tick (ctx, j->start_time + 120 - 30);
    assert_int_equal (outbox_count (&outbox, MSG_STEP_KILL), 2);
    s = outbox_nth (&outbox, MSG_STEP_KILL, 1);
    assert_int_equal (s->msg.step_kill.step_id, STEP_ID_BATCH);
    assert_int_equal (s->msg.step_kill.signal, SIGUSR1 | SIGNAL_LEADER_ONLY);
    r.warn_signal = SIGUSR1;

    r.warn_time = 0; /* --signal=USR1: 60 s */
    assert_non_null (j = fixture_submit (ctx, &r, getuid (), &err));
    assert_int_equal (j->warn_time, CTLD_WARN_DEFAULT);
    r.warn_signal = 99;
    assert_null (fixture_submit (ctx, &r, getuid (), &err));
    assert_int_equal (errno, EINVAL);
}

static void test_permissions (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = run_job (ctx, 1, 0);
    arbor_error_t err;

    assert_int_equal (cancel (ctx, 99, STEP_ID_ALL, 0, getuid (), &err), -1);
    assert_int_equal (errno, ENOENT);
    assert_string_equal (err.text, "Invalid job id 99");
    assert_int_equal (cancel (ctx, j->id, STEP_ID_ALL, 0, OTHER_UID, &err), -1);
    assert_int_equal (errno, EPERM);
    assert_string_equal (err.text, "Access/permission denied for job 1");
    assert_int_equal (j->state, JOB_RUNNING);
    assert_int_equal (outbox_count (&outbox, 0), 0);
    /* ArborUser may signal, root may cancel. */
    assert_int_equal (cancel (ctx, j->id, STEP_ID_ALL, SIGUSR2, 999, &err), 0);
    assert_int_equal (cancel (ctx, j->id, STEP_ID_ALL, 0, 0, &err), 0);
    assert_int_equal (j->state, JOB_CANCELLED);
    assert_int_equal (cancel (ctx, j->id, STEP_ID_ALL, 70, 0, &err), -1);
}

/* A step made by hand (steps need a sealed credential otherwise). */
static void test_signal_and_steps (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = run_job (ctx, 2, 0);
    arbor_error_t err;
    const struct sent *s;

    /* A job's signal reaches its steps (none yet); with 'full' (scancel
     * -f) every process of the job, on each node. */
    assert_int_equal (
        cancel (ctx, j->id, STEP_ID_ALL, SIGUSR1, getuid (), &err), 0);
    assert_int_equal (outbox_count (&outbox, MSG_STEP_KILL), 0);
    struct msg_job_cancel f = {
        .job_id = j->id, .step_id = STEP_ID_ALL, .signal = SIGUSR1, .full = true
    };
    assert_int_equal (job_cancel (ctx, &f, getuid (), &err), 0);
    assert_int_equal (outbox_count (&outbox, MSG_STEP_KILL), 2);
    s = outbox_nth (&outbox, MSG_STEP_KILL, 0);
    assert_int_equal (s->msg.step_kill.signal, SIGUSR1);
    assert_int_equal (s->msg.step_kill.step_id, STEP_ID_ALL);
    assert_false (s->msg.step_kill.revoke);
    assert_int_equal (j->state, JOB_RUNNING);

    assert_int_equal (cancel (ctx, j->id, 3, 0, getuid (), &err), -1);
    assert_int_equal (errno, ENOENT);
    assert_string_equal (err.text, "Invalid job step id 1.3");
    fake_step (j, 3); /* on the job's last node, n2 */
    assert_int_equal (cancel (ctx, j->id, 3, 0, getuid (), &err), 0);
    assert_int_equal (outbox_count (&outbox, MSG_STEP_TERMINATE), 1);
    s = outbox_nth (&outbox, MSG_STEP_TERMINATE, 0);
    assert_int_equal (s->node, 1);
    assert_int_equal (s->msg.step_terminate.step_id, 3);
    assert_string_equal (s->msg.step_terminate.reason, "CANCELLED");
    assert_int_equal (j->state, JOB_RUNNING);
    assert_int_equal (cancel (ctx, j->id, 3, SIGTERM, getuid (), &err), 0);
    assert_int_equal (outbox_count (&outbox, MSG_STEP_KILL), 3);

    struct msg_job_cancel b = { .job_id = j->id,
                                .step_id = STEP_ID_ALL,
                                .batch_only = true };
    assert_int_equal (job_cancel (ctx, &b, getuid (), &err), -1);
    assert_string_equal (err.text, "Job 1 has no batch step");
    fake_step (j, STEP_ID_BATCH);
    assert_int_equal (job_cancel (ctx, &b, getuid (), &err), 0);
    s = outbox_nth (&outbox, MSG_STEP_KILL, 3);
    assert_int_equal (s->msg.step_kill.step_id, STEP_ID_BATCH);
    assert_int_equal (s->msg.step_kill.signal, SIGKILL);
    b.signal = SIGUSR1; /* scancel -b -s USR1: the shell's own process */
    assert_int_equal (job_cancel (ctx, &b, getuid (), &err), 0);
    s = outbox_nth (&outbox, MSG_STEP_KILL, 4);
    assert_int_equal (s->msg.step_kill.signal, SIGUSR1 | SIGNAL_LEADER_ONLY);

    /* Without -b or -f: step 3, not the batch shell */
    assert_int_equal (
        cancel (ctx, j->id, STEP_ID_ALL, SIGUSR2, getuid (), &err), 0);
    assert_int_equal (outbox_count (&outbox, MSG_STEP_KILL), 6);
    s = outbox_nth (&outbox, MSG_STEP_KILL, 5);
    assert_int_equal (s->msg.step_kill.step_id, 3);
    assert_int_equal (s->msg.step_kill.signal, SIGUSR2);
}

static void test_oom (void **state)
{
    struct ctld *ctx = *state;
    struct job *a = run_job (ctx, 1, 0), *b = run_job (ctx, 1, 0);
    struct job *c = run_job (ctx, 1, 0);
    arbor_error_t err;

    job_note_exit (a, 0, 0, true);
    job_end (ctx, a, JOB_COMPLETED, NULL);
    assert_int_equal (a->state, JOB_OUT_OF_MEMORY);
    assert_string_equal (job_state_str (a->state), "OUT_OF_MEMORY");

    job_note_exit (b, 137, 9, true);
    job_note_exit (b, 2, 0, false);
    assert_int_equal (b->exit_rc, 137);
    assert_int_equal (cancel (ctx, b->id, STEP_ID_ALL, 0, getuid (), &err), 0);
    assert_int_equal (b->state, JOB_CANCELLED);

    /* Reported late, while completing. */
    job_end (ctx, c, JOB_FAILED, NULL);
    job_note_exit (c, 1, 0, true);
    assert_int_equal (c->state, JOB_OUT_OF_MEMORY);
}

static void test_mem_per_cpu (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc r = { .ntasks = 3, .mem_per_cpu_mb = 300 };
    struct msg_job_allocated m;
    arbor_error_t err;
    struct job *j;

    /* 1000 MB nodes hold 3 cores of 300 MB: 3 tasks fit on n1. */
    assert_non_null (j = fixture_submit (ctx, &r, getuid (), &err));
    assert_int_equal (j->state, JOB_RUNNING);
    assert_int_equal (j->nnodes, 1);
    assert_int_equal (j->nodes[0].mem_mb, 900);
    assert_int_equal (ctx->nodes[0].alloc_memory, 900);

    /* Memory, not cores, limits n1 now: 2 tasks go elsewhere. */
    r.ntasks = 2;
    assert_non_null (j = fixture_submit (ctx, &r, getuid (), &err));
    assert_string_equal (j->nodelist, "n2");
    assert_int_equal (job_allocated_msg (ctx, j, &m), 0);
    assert_int_equal (m.mem_mb, 600);
    proto_clear (MSG_JOB_ALLOCATED, &m);

    r.ntasks = 4; /* 4 x 300 MB > 1000 MB: never fits one node... */
    r.nnodes = 1;
    assert_null (fixture_submit (ctx, &r, getuid (), &err));
    assert_int_equal (errno, EINVAL);
    r = (struct msg_job_alloc){ .mem_mb = 10, .mem_per_cpu_mb = 10 };
    assert_null (fixture_submit (ctx, &r, getuid (), &err));

    /* The end gives the memory back only with the epilog. */
    job_end (ctx, j, JOB_COMPLETED, NULL);
    assert_int_equal (ctx->nodes[1].alloc_memory, 600);
    fixture_epilogs (ctx, j);
    assert_int_equal (ctx->nodes[1].alloc_memory, 0);
}

static void test_cores_ranged (void **state)
{
    static const uint8_t a[] = { 1, 1, 0, 0, 1 };
    static const uint8_t b[] = { 0, 1, 0, 1, 1, 1, 0, 1 };
    static const uint8_t none[] = { 0, 0 };
    char *s;

    assert_string_equal (s = cores_ranged (a, 5), "0-1,4");
    free (s);
    assert_string_equal (s = cores_ranged (b, 8), "1,3-5,7");
    free (s);
    assert_string_equal (s = cores_ranged (none, 2), "");
    free (s);
    (void)state;
}

/* ---- steps, with a real credential ------------------------------------- */

/* Create a step of j and return its verified claims. */
static int make_step (struct ctld *ctx, struct job *j,
                      const struct msg_step_create *req,
                      struct msg_cred_claims *cl, uint32_t *id)
{
    struct msg_step_created out;
    arbor_error_t err;

    if (step_create (ctx, j, req, getuid (), getgid (), &out, &err) < 0)
        return -1;
    assert_int_equal (cred_open (credkey_key (ctx->credkey), out.cred, "t",
                                 NULL, time (NULL), cl, &err),
                      0);
    *id = out.step_id;
    proto_clear (MSG_STEP_CREATED, &out);
    return 0;
}

static void test_step_cores (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc r = { .ntasks = 6, .mem_per_cpu_mb = 100 };
    struct msg_step_create two = { .ntasks = 2, .exact = true };
    struct msg_step_create one = { .ntasks = 1 }; /* all of a node's cores */
    struct msg_step_create over = { .ntasks = 6, .overlap = true };
    struct msg_step_create all = { 0 };
    struct msg_cred_claims cl;
    arbor_error_t err;
    uint32_t s0, s1, s2;
    struct job *j;

    ctx->nodes[0].cores[1] = 1; /* n1 core 1 belongs to someone else */
    ctx->nodes[0].alloc_cpus = 1;
    assert_non_null (j = fixture_submit (ctx, &r, getuid (), &err));
    assert_string_equal (j->nodelist, "n[1-2]"); /* 3 + 3 cores */

    two.job_id = all.job_id = one.job_id = over.job_id = j->id;
    assert_int_equal (make_step (ctx, j, &two, &cl, &s0), 0);
    assert_int_equal (cl.cores_count, 1);
    assert_string_equal (cl.cores[0], "0,2");
    assert_int_equal (cl.mem_mb, 300); /* the job's memory on n1 */
    proto_clear (MSG_CRED_CLAIMS, &cl);

    assert_int_equal (make_step (ctx, j, &two, &cl, &s1), 0);
    assert_string_equal (cl.nodelist, "n[1-2]");
    assert_string_equal (cl.cores[0], "3");
    assert_string_equal (cl.cores[1], "0");
    proto_clear (MSG_CRED_CLAIMS, &cl);

    /* The whole-job step waits for the others to end, and so does a step
     * that (without --exact) takes every core of a node; an --overlap
     * step shares the cores others hold, and holds none. */
    assert_int_equal (make_step (ctx, j, &all, &cl, &s2), -1);
    assert_int_equal (errno, EBUSY);
    assert_int_equal (make_step (ctx, j, &one, &cl, &s2), -1);
    assert_int_equal (errno, EBUSY);
    assert_int_equal (make_step (ctx, j, &over, &cl, &s2), 0);
    assert_string_equal (cl.cores[0], "0,2-3");
    proto_clear (MSG_CRED_CLAIMS, &cl);
    assert_int_equal (step_complete (j, step_find (j, s2), "", ctx), 0);
    assert_int_equal (step_complete (j, step_find (j, s0), "", ctx), 0);
    assert_int_equal (step_complete (j, step_find (j, s1), "n1", ctx), 0);
    assert_int_equal (step_complete (j, step_find (j, s1), "n2", ctx), 0);
    assert_null (step_find (j, s1));
    assert_int_equal (make_step (ctx, j, &all, &cl, &s2), 0);
    assert_int_equal (cl.cores_count, 2);
    assert_string_equal (cl.cores[0], "0,2-3");
    assert_string_equal (cl.cores[1], "0-2");
    assert_int_equal (cl.mem_mb, 300);
    proto_clear (MSG_CRED_CLAIMS, &cl);
}

int main (void)
{
#define T(f) FIXTURE_TEST (f, &spec)
    const struct CMUnitTest tests[] = {
        T (test_cancel_pending),
        T (test_cancel_running),
        T (test_terminate_resend),
        T (test_node_fail),
        T (test_time_limit),
        T (test_warn_signal),
        T (test_permissions),
        T (test_signal_and_steps),
        T (test_oom),
        T (test_mem_per_cpu),
        T (test_cores_ranged),
        T (test_step_cores),
    };
#undef T

    int failed = cmocka_run_group_tests (tests, NULL, NULL);

    return arbor_test_exit (failed);
}
