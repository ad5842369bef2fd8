/* faults_test.c - unit tests for the controller under faults: a noded
 * that stops answering is DOWN within seconds (liveness.c), jobs a node
 * reports that the controller does not expect there are ended and keep
 * the node out of service until their epilog (orphan.c, through the
 * NODE_REGISTER and EPILOG_COMPLETE handlers), and job ids never repeat
 * across a restart (jobid.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf.h"
#include "conn.h"
#include "ctld.h"
#include "error.h"
#include "fixture.h"
#include "job/job.h"
#include "job/jobid.h"
#include "nodes/heard.h"
#include "nodes/liveness.h"
#include "nodes/node.h"
#include "nodes/orphan.h"
#include "proto.h"
#include "sched/sched.h"
#include "states.h"
#include "job/term.h"

static const char conf_text[] = FIXTURE_CONF_N4;

static struct outbox outbox;

static struct fixture_spec spec = {
    .conf_text = conf_text,
    .out = &outbox,
};

static struct job *run_on (struct ctld *ctx, const char *node)
{
    struct msg_job_alloc r = { .nnodes = 1, .nodelist = (char *)node };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, getuid (), &err);

    assert_non_null (j);
    return j;
}

/* Probes of job 0 sent to node index 'node' so far. */
static size_t probes (size_t node)
{
    size_t n = 0;
    const struct sent *s;

    for (size_t i = 0; (s = outbox_nth (&outbox, MSG_STEP_KILL, i)); i++)
        if (s->node == node && s->msg.step_kill.job_id == 0
            && s->msg.step_kill.signal == 0)
            n++;
    return n;
}

/* ---- liveness ----------------------------------------------------------- */

static void test_unreachable_node_goes_down (void **state)
{
    struct ctld *ctx = *state;
    struct node *n2 = &ctx->nodes[1];
    struct job *j = run_on (ctx, "n2"), *w;
    time_t t0 = time (NULL);

    assert_int_equal (j->state, JOB_RUNNING);
    /* A JOB_TERMINATE or STEP_KILL to n2 was refused. */
    heard_result (ctx, 1, false, false, "connect: Connection refused", t0);
    assert_false (node_usable (n2));
    assert_non_null (w = run_on (ctx, "n2"));
    assert_int_equal (w->state, JOB_PENDING); /* not placed there */
    assert_false (liveness_tick (ctx, t0 + 1));
    assert_int_equal (probes (1), 0);
    assert_false (liveness_tick (ctx, t0 + 2));
    assert_int_equal (probes (1), 1);
    heard_result (ctx, 1, false, true, "connect: Connection refused", t0 + 2);
    assert_false (liveness_tick (ctx, t0 + 4));
    assert_int_equal (probes (1), 2);
    heard_result (ctx, 1, false, true, "connect: Connection refused", t0 + 4);
    assert_false (liveness_tick (ctx, t0 + 4)); /* 3 failures, only 4 s */
    assert_false (liveness_tick (ctx, t0 + CTLD_PROBE_SPAN - 1));
    assert_true (liveness_tick (ctx, t0 + CTLD_PROBE_SPAN));
    assert_string_equal (node_state_str (n2), "DOWN");
    assert_string_equal (n2->reason, "Not responding");
    assert_int_equal (j->state, JOB_NODE_FAIL);
    assert_false (j->completing); /* a dead node counts as done */
    /* It registers again: back in service, the waiting job runs. */
    node_register (ctx, 1, 4, 1000, NULL, t0 + 20);
    heard_node (ctx, 1, t0 + 20);
    assert_true (node_usable (n2));
    sched_flush (ctx);
    assert_int_equal (w->state, JOB_RUNNING);
}

static void test_answer_clears_failures (void **state)
{
    struct ctld *ctx = *state;
    struct node *n3 = &ctx->nodes[2];
    time_t t0 = time (NULL);

    heard_result (ctx, 2, false, false, "no answer within 10 s", t0);
    assert_false (node_usable (n3));
    assert_false (liveness_tick (ctx, t0 + 2));
    assert_int_equal (probes (2), 1);
    heard_result (ctx, 2, true, true, NULL, t0 + 2); /* it answered */
    assert_true (node_usable (n3));
    for (time_t t = t0 + 3; t < t0 + 20; t++)
        assert_false (liveness_tick (ctx, t));
    assert_string_equal (node_state_str (n3), "IDLE");
    assert_int_equal (probes (2), 1);
}

static void test_silent_node_is_probed (void **state)
{
    struct ctld *ctx = *state;
    struct node *n4 = &ctx->nodes[3];
    time_t t0 = time (NULL);

    n4->last_heard = t0 - CTLD_PROBE_SILENT; /* missed a registration */
    assert_false (liveness_tick (ctx, t0));
    assert_int_equal (probes (3), 1);
    assert_false (liveness_tick (ctx, t0 + 1)); /* one in flight */
    assert_int_equal (probes (3), 1);
    heard_result (ctx, 3, false, true, "no answer within 5 s", t0 + 5);
    assert_false (liveness_tick (ctx, t0 + 7));
    heard_result (ctx, 3, false, true, "refused", t0 + 7);
    assert_false (liveness_tick (ctx, t0 + 9));
    heard_result (ctx, 3, false, true, "refused", t0 + 9);
    assert_true (liveness_tick (ctx, t0 + 5 + CTLD_PROBE_SPAN));
    assert_string_equal (node_state_str (n4), "DOWN");
}

/* ---- orphans, through the handlers ------------------------------------- */

static void reg (struct ctld *ctx, struct conn *c, int peer, const char *node,
                 uint32_t *ids, uint32_t n)
{
    struct msg_node_register m = { .name = (char *)node,
                                   .cpus = 4,
                                   .real_memory = 1000,
                                   .version = "t",
                                   .job_ids = ids,
                                   .job_ids_count = n };
    union msg_any a;
    int type;

    fixture_request (ctx, c, MSG_NODE_REGISTER, &m, 0);
    assert_int_equal (fixture_answer (ctx, peer, &type, &a, NULL), 0);
    assert_int_equal (type, MSG_RC);
    assert_int_equal (a.rc.errnum, 0);
    proto_clear (type, &a);
}

static void epilog (struct ctld *ctx, struct conn *c, int peer,
                    const char *node, uint32_t job)
{
    struct msg_epilog_complete m = { .job_id = job,
                                     .node = (char *)node,
                                     .drain_reason = "" };
    union msg_any a;
    int type;

    fixture_request (ctx, c, MSG_EPILOG_COMPLETE, &m, 0);
    assert_int_equal (fixture_answer (ctx, peer, &type, &a, NULL), 0);
    assert_int_equal (type, MSG_RC);
    assert_int_equal (a.rc.errnum, 0);
    proto_clear (type, &a);
}

/* The JOB_TERMINATE sent for 'job' to node index 'node', or NULL. */
static const struct msg_job_terminate *terminate_sent (size_t node,
                                                       uint32_t job)
{
    const struct sent *s;

    for (size_t i = 0; (s = outbox_nth (&outbox, MSG_JOB_TERMINATE, i)); i++)
        if (s->node == node && s->msg.job_terminate.job_id == job)
            return &s->msg.job_terminate;
    return NULL;
}

static void test_unknown_job_holds_node (void **state)
{
    struct ctld *ctx = *state;
    struct node *n1 = &ctx->nodes[0];
    const struct msg_job_terminate *t;
    uint32_t ids[] = { 77 };
    struct job *w;
    int peer;
    struct conn *c = fixture_conn (ctx, &peer);

    assert_non_null (c);
    /* After a controller restart, n1 still runs job 77. */
    reg (ctx, c, peer, "n1", ids, 1);
    assert_non_null (t = terminate_sent (0, 77));
    assert_int_equal (t->uid, UINT32_MAX); /* whose it was is unknown */
    assert_string_equal (node_state_str (n1), "COMPLETING");
    assert_false (node_usable (n1));
    assert_non_null (w = run_on (ctx, "n1"));
    assert_int_equal (w->state, JOB_PENDING);
    /* Unanswered: resent; answered: not again. */
    orphan_answer (ctx, 77, 0, ECONNRESET);
    outbox_clear (&outbox);
    assert_false (orphans_tick (ctx, time (NULL) + CTLD_TERM_RESEND));
    assert_non_null (terminate_sent (0, 77));
    orphan_answer (ctx, 77, 0, 0);
    outbox_clear (&outbox);
    (void)orphans_tick (ctx, time (NULL) + 2 * CTLD_TERM_RESEND);
    assert_null (terminate_sent (0, 77));
    /* The next registration still lists it: no second orphan. */
    reg (ctx, c, peer, "n1", ids, 1);
    assert_null (terminate_sent (0, 77));
    /* Its epilog is done: the node is back and the waiting job runs. */
    epilog (ctx, c, peer, "n1", 77);
    assert_string_equal (node_state_str (n1), "MIXED");
    assert_int_equal (w->state, JOB_RUNNING);
    conn_destroy (c);
    close (peer);
}

static void test_expected_and_ended_jobs (void **state)
{
    struct ctld *ctx = *state;
    struct node *n2 = &ctx->nodes[1];
    struct job *j = run_on (ctx, "n2");
    uint32_t ids[] = { j->id };
    int peer;
    struct conn *c = fixture_conn (ctx, &peer);

    assert_non_null (c);
    reg (ctx, c, peer, "n2", ids, 1); /* running there: expected */
    assert_null (terminate_sent (1, j->id));
    assert_int_equal (n2->norphans, 0);
    /* n2 stops responding: the job fails and n2 counts as done at once,
     * but its stepds survived; when n2 is back they must go. */
    n2->base = NODE_DOWN;
    (void)node_set_reason (n2, "Not responding", 0, time (NULL));
    term_node_down (ctx, 1, "node n2 not responding");
    assert_int_equal (j->state, JOB_NODE_FAIL);
    assert_false (j->completing);
    reg (ctx, c, peer, "n2", ids, 1);
    assert_non_null (terminate_sent (1, j->id));
    assert_int_equal (terminate_sent (1, j->id)->uid, (uint32_t)getuid ());
    assert_string_equal (node_state_str (n2), "COMPLETING");
    epilog (ctx, c, peer, "n2", j->id);
    assert_string_equal (node_state_str (n2), "IDLE");
    conn_destroy (c);
    close (peer);
}

/* ---- job ids ------------------------------------------------------------ */

static char *state_dir (void)
{
    char *d = strdup ("/tmp/arbor-jobid-XXXXXX");

    assert_non_null (d);
    assert_non_null (mkdtemp (d));
    return d;
}

static void rm_state_dir (const char *d)
{
    char path[256];

    snprintf (path, sizeof (path), "%s/job_id_next", d);
    unlink (path);
    rmdir (d);
}

/* A controller on state dir 'd' (StateSaveLocation). */
static struct ctld *ctld_on (const char *d)
{
    char text[1024];
    struct ctld *ctx;
    arbor_error_t err;

    snprintf (text, sizeof (text), "%sStateSaveLocation=%s\n", conf_text, d);
    assert_non_null (ctx = fixture_ctld (text, &outbox));
    jobid_destroy (ctx->jobid); /* the fixture's saves nothing */
    assert_non_null (ctx->jobid = jobid_create (ctx->conf, &err));
    return ctx;
}

static void test_job_ids_survive_restart (void **state)
{
    char *d = state_dir ();
    struct ctld *a = ctld_on (d), *b;
    uint32_t last = 0;

    (void)state;
    for (int i = 0; i < 3; i++) {
        struct job *j = run_on (a, "n1");
        assert_true (j->id > last);
        last = j->id;
    }
    fixture_free (a); /* as kill -9: nothing saved at exit */
    b = ctld_on (d);
    struct job *j = run_on (b, "n1");
    assert_true (j->id > last);
    fixture_free (b);
    rm_state_dir (d);
    free (d);
}

static void test_job_id_not_saved_refuses (void **state)
{
    char *d = state_dir ();
    struct ctld *a = ctld_on (d);
    struct msg_job_alloc r = { .nnodes = 1 };
    arbor_error_t err;

    (void)state;
    if (geteuid () == 0) /* root writes anyway: take the dir away */
        rmdir (d);
    else
        chmod (d, 0500);
    assert_null (fixture_submit (a, &r, getuid (), &err));
    assert_non_null (strstr (err.text, "cannot save the next job id"));
    fixture_free (a);
    chmod (d, 0700);
    rm_state_dir (d);
    free (d);
}

static void test_job_id_file_malformed (void **state)
{
    char *d = state_dir (), path[256];
    char text[1024];
    struct ctld *a;
    arbor_error_t err;
    FILE *f;

    (void)state;
    snprintf (path, sizeof (path), "%s/job_id_next", d);
    assert_non_null (f = fopen (path, "w"));
    fputs ("12x\n", f);
    fclose (f);
    snprintf (text, sizeof (text), "%sStateSaveLocation=%s\n", conf_text, d);
    assert_non_null (a = fixture_ctld (text, &outbox));
    jobid_destroy (a->jobid);
    assert_null (a->jobid = jobid_create (a->conf, &err));
    assert_non_null (strstr (err.text, "not a job id"));
    fixture_free (a);
    rm_state_dir (d);
    free (d);
}

#define T(f) FIXTURE_TEST (f, &spec)

int main (void)
{
    const struct CMUnitTest tests[] = {
        T (test_unreachable_node_goes_down),
        T (test_answer_clears_failures),
        T (test_silent_node_is_probed),
        T (test_unknown_job_holds_node),
        T (test_expected_and_ended_jobs),
        cmocka_unit_test (test_job_ids_survive_restart),
        cmocka_unit_test (test_job_id_not_saved_refuses),
        cmocka_unit_test (test_job_id_file_malformed),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
