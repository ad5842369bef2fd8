/* update_test.c - unit tests for NODE_UPDATE (update.c) and the node
 * state rules it relies on (node.c, term.c): validation with nothing
 * changed on error, DOWN ending running jobs NODE_FAIL with JOB_TERMINATE
 * to every node (the downed one included, whose epilog is then awaited
 * unless it falls silent), DRAIN/DRAINING, RESUME, registrations
 * that must not undo an administrator's DOWN or DRAIN, and who set each
 * reason and when (NODE_INFO's reason_uids and reason_times). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "conn.h"
#include "ctld.h"
#include "error.h"
#include "fixture.h"
#include "serve/info.h"
#include "serve/job_info.h"
#include "job/job.h"
#include "nodes/node.h"
#include "proto.h"
#include "sched/sched.h"
#include "states.h"
#include "job/term.h"
#include "serve/update.h"

static const char conf_text[] = FIXTURE_CONF_N4;

static struct outbox outbox;

static struct fixture_spec spec = {
    .conf_text = conf_text,
    .out = &outbox,
};

#define ADMIN_UID 1234 /* who calls update() */
#define ARBOR_UID 4321 /* ArborUser in test_reason_who_when */

static int update (struct ctld *ctx, const char *nodes, const char *st,
                   const char *reason, arbor_error_t *err)
{
    struct msg_node_update m = {
        .nodelist = (char *)nodes,
        .state = (char *)st,
        .reason = (char *)reason,
    };

    errno = 0;
    return node_update (ctx, &m, ADMIN_UID, err);
}

static struct job *submit (struct ctld *ctx, uint32_t nnodes,
                           const char *nodelist)
{
    struct msg_job_alloc r = { .nnodes = nnodes, .nodelist = (char *)nodelist };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, getuid (), &err);

    assert_non_null (j);
    return j;
}

static int epilog (struct ctld *ctx, struct job *j, const char *node,
                   const char *drain)
{
    struct msg_epilog_complete m = { .job_id = j->id,
                                     .node = (char *)node,
                                     .drain_reason = (char *)drain };
    arbor_error_t err;

    return term_epilog_complete (ctx, &m, &err);
}

static const char *nstate (const struct ctld *ctx, size_t i)
{
    return node_state_str (&ctx->nodes[i]);
}

static void test_validation (void **state)
{
    struct ctld *ctx = *state;
    arbor_error_t err;

    assert_int_equal (update (ctx, "n1,n9", "DOWN", "x", &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "invalid node name n9");
    assert_string_equal (nstate (ctx, 0), "IDLE"); /* n1 untouched */

    assert_int_equal (update (ctx, "n1", "sleepy", "x", &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text,
                         "invalid node state 'sleepy'; valid "
                         "states: DOWN, DRAIN, RESUME (or IDLE, UNDRAIN)");
    assert_int_equal (update (ctx, "n1", "", "x", &err), -1);
    assert_int_equal (errno, EINVAL);

    assert_int_equal (update (ctx, "n1", "DOWN", "", &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "a Reason is required to set DOWN or "
                                   "DRAIN");
    assert_int_equal (update (ctx, "n1", "drain", NULL, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (update (ctx, "", "DOWN", "x", &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (update (ctx, "n[", "DOWN", "x", &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (nstate (ctx, 0), "IDLE");
    assert_null (ctx->nodes[0].reason);

    /* RESUME needs no reason; case does not matter. */
    assert_int_equal (update (ctx, "n[1-2]", "Resume", NULL, &err), 0);
    assert_int_equal (update (ctx, "n1", "dRaIn", "why", &err), 0);
    assert_string_equal (nstate (ctx, 0), "DRAIN");
    assert_int_equal (update (ctx, "n1", "undrain", NULL, &err), 0);
    assert_string_equal (nstate (ctx, 0), "IDLE");
    assert_int_equal (update (ctx, "n1", "down", "why", &err), 0);
    assert_string_equal (nstate (ctx, 0), "DOWN");
    assert_int_equal (update (ctx, "n1", "IDLE", NULL, &err), 0);
    assert_string_equal (nstate (ctx, 0), "IDLE");
    assert_int_equal (outbox_count (&outbox, 0), 0);
}

static void test_down_ends_jobs (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = submit (ctx, 3, NULL), *other = submit (ctx, 1, "n4");
    arbor_error_t err;
    time_t now = time (NULL);

    assert_string_equal (j->nodelist, "n[1-3]");
    assert_int_equal (update (ctx, "n2", "DOWN", "maint", &err), 0);
    assert_string_equal (nstate (ctx, 1), "DOWN");
    assert_string_equal (ctx->nodes[1].reason, "maint");
    assert_false (node_usable (&ctx->nodes[1]));
    assert_int_equal (j->state, JOB_NODE_FAIL);
    assert_string_equal (j->reason, "node n2 set DOWN: maint");
    assert_true (j->completing);
    assert_int_equal (other->state, JOB_RUNNING); /* not on n2 */

    /* JOB_TERMINATE to all three nodes, the downed one too. */
    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 3);
    for (size_t i = 0; i < 3; i++) {
        const struct sent *s = outbox_nth (&outbox, MSG_JOB_TERMINATE, i);
        assert_int_equal (s->node, i);
        assert_string_equal (s->msg.job_terminate.state, "NODE_FAIL");
    }
    /* n2 still holds the job's share until its own epilog. */
    assert_int_equal (epilog (ctx, j, "n1", ""), 0);
    assert_int_equal (epilog (ctx, j, "n3", ""), 0);
    assert_true (j->completing);
    assert_int_equal (ctx->nodes[1].alloc_cpus, 1);
    term_tick (ctx, now + CTLD_TERM_RESEND + 1);
    assert_true (j->completing);
    assert_int_equal (epilog (ctx, j, "n2", ""), 0);
    assert_false (j->completing);
    assert_int_equal (ctx->nodes[1].alloc_cpus, 0);
    assert_string_equal (nstate (ctx, 1), "DOWN");

    /* A registration does not undo it; a new job avoids n2. */
    node_register (ctx, 1, 4, 1000, NULL, now);
    assert_string_equal (nstate (ctx, 1), "DOWN");
    assert_string_equal (ctx->nodes[1].reason, "maint");
    struct job *w = submit (ctx, 1, "n2");
    assert_int_equal (w->state, JOB_PENDING);

    /* RESUME: back to IDLE, reason gone; the waiting job starts. */
    assert_int_equal (update (ctx, "n2", "RESUME", NULL, &err), 0);
    assert_string_equal (nstate (ctx, 1), "IDLE");
    assert_null (ctx->nodes[1].reason);
    sched_flush (ctx);
    assert_int_equal (w->state, JOB_RUNNING);
}

/* A downed node whose noded never answers does not hold the job for
 * ever: it counts as done once silent for CTLD_NODE_TIMEOUT. */
static void test_down_silent_node (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = submit (ctx, 2, NULL);
    arbor_error_t err;
    time_t heard = ctx->nodes[1].last_heard;

    assert_int_equal (update (ctx, "n2", "DOWN", "dead", &err), 0);
    assert_int_equal (epilog (ctx, j, "n1", ""), 0);
    term_answer (ctx, j->id, 1, ECONNREFUSED, "connection refused");
    term_tick (ctx, heard + CTLD_NODE_TIMEOUT - 1);
    assert_true (j->completing);
    assert_false (j->nodes[1].released);
    term_tick (ctx, heard + CTLD_NODE_TIMEOUT);
    assert_false (j->completing);
    assert_int_equal (ctx->nodes[1].alloc_cpus, 0);
    /* RESUME cannot make it respond: DOWN "Not responding" until it
     * registers again. */
    ctx->nodes[1].last_heard = heard - CTLD_NODE_TIMEOUT;
    assert_int_equal (update (ctx, "n2", "RESUME", NULL, &err), 0);
    assert_string_equal (nstate (ctx, 1), "DOWN");
    assert_string_equal (ctx->nodes[1].reason, "Not responding");
    node_register (ctx, 1, 4, 1000, NULL, time (NULL));
    assert_string_equal (nstate (ctx, 1), "IDLE");
}

/* A node DOWN because not responding: its jobs' share is given back at
 * once, and RESUME does not bring it back; its registration does. */
static void test_not_responding (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = submit (ctx, 2, NULL);
    arbor_error_t err;

    ctx->nodes[1].base = NODE_DOWN;
    (void)node_set_reason (&ctx->nodes[1], "Not responding", 0, time (NULL));
    ctx->nodes[1].last_heard -= CTLD_NODE_TIMEOUT;
    term_node_down (ctx, 1, "node n2 not responding");
    assert_int_equal (j->state, JOB_NODE_FAIL);
    assert_true (j->nodes[1].released);
    assert_int_equal (outbox_count (&outbox, MSG_JOB_TERMINATE), 1);
    /* Drained meanwhile: it comes back drained, with that reason. */
    assert_int_equal (update (ctx, "n2", "DRAIN", "disk", &err), 0);
    assert_string_equal (nstate (ctx, 1), "DOWN");
    node_register (ctx, 1, 4, 1000, NULL, time (NULL));
    assert_string_equal (nstate (ctx, 1), "DRAIN");
    assert_string_equal (ctx->nodes[1].reason, "disk");
    assert_int_equal (update (ctx, "n2", "RESUME", NULL, &err), 0);
    assert_string_equal (nstate (ctx, 1), "IDLE");
}

static void test_drain (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = submit (ctx, 1, "n1"), *w;
    arbor_error_t err;

    assert_int_equal (update (ctx, "n[1-2]", "DRAIN", "swap disk", &err), 0);
    assert_string_equal (nstate (ctx, 0), "DRAINING"); /* j runs there */
    assert_string_equal (nstate (ctx, 1), "DRAIN");
    assert_string_equal (ctx->nodes[0].reason, "swap disk");
    assert_int_equal (j->state, JOB_RUNNING);
    assert_int_equal (outbox_count (&outbox, 0), 0);

    /* New work avoids drained nodes: a job goes to n3, -w n2 waits. */
    struct job *any = submit (ctx, 1, NULL);
    assert_int_equal (any->state, JOB_RUNNING);
    assert_string_equal (any->nodelist, "n3");
    w = submit (ctx, 1, "n2");
    assert_int_equal (w->state, JOB_PENDING);
    assert_string_equal (w->reason, "ReqNodeNotAvail, UnavailableNodes:n2");

    /* Registrations keep the drain. */
    node_register (ctx, 1, 4, 1000, NULL, time (NULL));
    assert_string_equal (nstate (ctx, 1), "DRAIN");
    job_end (ctx, j, JOB_COMPLETED, NULL);
    assert_string_equal (nstate (ctx, 0), "DRAINING"); /* completing */
    assert_int_equal (epilog (ctx, j, "n1", ""), 0);
    assert_string_equal (nstate (ctx, 0), "DRAIN");

    assert_int_equal (update (ctx, "n2", "RESUME", NULL, &err), 0);
    assert_string_equal (nstate (ctx, 1), "IDLE");
    assert_null (ctx->nodes[1].reason);
    sched_flush (ctx);
    assert_int_equal (w->state, JOB_RUNNING);
    assert_string_equal (nstate (ctx, 0), "DRAIN");
}

/* An epilog's drain ("Kill task failed") is kept across registrations
 * and lifted by RESUME. */
static void test_epilog_drain_resume (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = submit (ctx, 1, "n3");
    arbor_error_t err;

    job_end (ctx, j, JOB_CANCELLED, NULL);
    assert_int_equal (epilog (ctx, j, "n3", "Kill task failed"), 0);
    assert_string_equal (nstate (ctx, 2), "DRAIN");
    node_register (ctx, 2, 4, 1000, NULL, time (NULL));
    assert_string_equal (nstate (ctx, 2), "DRAIN");
    assert_string_equal (ctx->nodes[2].reason, "Kill task failed");
    assert_int_equal (update (ctx, "n3", "RESUME", NULL, &err), 0);
    assert_string_equal (nstate (ctx, 2), "IDLE");
    /* A registration short of CPUs still drains by itself, and lifts it. */
    node_register (ctx, 2, 2, 1000, NULL, time (NULL));
    assert_string_equal (nstate (ctx, 2), "DRAIN");
    node_register (ctx, 2, 4, 1000, NULL, time (NULL));
    assert_string_equal (nstate (ctx, 2), "IDLE");
}

/* NODE_INFO's reason, uid and time of node index i. */
static void info_of (struct ctld *ctx, size_t i, const char *reason,
                     uint32_t uid, time_t t0, time_t t1)
{
    struct msg_node_info q = { .nodelist = ctx->nodes[i].name };
    struct msg_node_info_reply r;
    arbor_error_t err;

    assert_int_equal (node_info_build (ctx, &q, &r, &err), 0);
    assert_int_equal (r.reason_uids_count, 1);
    assert_int_equal (r.reason_times_count, 1);
    assert_string_equal (r.reasons[0], reason ? reason : "");
    assert_int_equal (r.reason_uids[0], uid);
    if (!reason)
        assert_int_equal (r.reason_times[0], 0);
    else {
        assert_true (r.reason_times[0] >= (uint32_t)t0);
        assert_true (r.reason_times[0] <= (uint32_t)t1);
    }
    proto_clear (MSG_NODE_INFO_REPLY, &r);
}

/* NODE_UPDATE as 'uid' through the controller's dispatcher: the uid the
 * reason is recorded with is the connection's. */
static int update_as (struct ctld *ctx, const char *nodes, const char *st,
                      const char *reason, uid_t uid)
{
    struct msg_node_update m = { .nodelist = (char *)nodes,
                                 .state = (char *)st,
                                 .reason = (char *)reason };
    union msg_any a;
    int peer, type = -1, rc = -1;
    struct conn *c = fixture_conn (ctx, &peer);

    assert_non_null (c);
    fixture_request (ctx, c, MSG_NODE_UPDATE, &m, uid);
    if (fixture_answer (ctx, peer, &type, &a, NULL) == 0 && type == MSG_RC) {
        rc = a.rc.errnum;
        proto_clear (type, &a);
    }
    conn_destroy (c);
    close (peer);
    return rc;
}

/* Who set a node's reason, and when: an administrator's DOWN or DRAIN
 * records the requester's uid; reasons the controller sets (an epilog's
 * drain, "Not responding", too few CPUs) record ArborUser's; RESUME
 * clears both, and a reason kept across registrations keeps them. */
static void test_reason_who_when (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = submit (ctx, 1, "n3");
    time_t t0 = time (NULL), t1;
    arbor_error_t err;

    ctx->priv_uid = ARBOR_UID;
    info_of (ctx, 0, NULL, 0, 0, 0);
    assert_int_equal (update_as (ctx, "n1", "DRAIN", "maint", 0), 0);
    assert_int_equal (update (ctx, "n2", "DOWN", "disk", &err), 0);
    t1 = time (NULL);
    assert_int_equal (ctx->nodes[0].reason_uid, 0);
    assert_true (ctx->nodes[0].reason_time >= t0);
    info_of (ctx, 0, "maint", 0, t0, t1);
    info_of (ctx, 1, "disk", ADMIN_UID, t0, t1);

    /* A registration keeps the drain, and who set it. */
    ctx->nodes[0].reason_time = t0 - 100;
    node_register (ctx, 0, 4, 1000, NULL, time (NULL));
    info_of (ctx, 0, "maint", 0, t0 - 100, t0 - 100);

    /* The controller's own reasons are ArborUser's. */
    job_end (ctx, j, JOB_CANCELLED, NULL);
    assert_int_equal (epilog (ctx, j, "n3", "Kill task failed"), 0);
    info_of (ctx, 2, "Kill task failed", ARBOR_UID, t0, time (NULL));
    node_register (ctx, 3, 2, 1000, NULL, time (NULL)); /* too few CPUs */
    info_of (ctx, 3, "Low CPUs (2 < 4)", ARBOR_UID, t0, time (NULL));
    ctx->nodes[3].reason_time = t0 - 100; /* a repeat keeps the first */
    node_register (ctx, 3, 2, 1000, NULL, time (NULL));
    info_of (ctx, 3, "Low CPUs (2 < 4)", ARBOR_UID, t0 - 100, t0 - 100);

    /* RESUME clears them; a silent node's "Not responding" is the
     * controller's. */
    assert_int_equal (update (ctx, "n[1,3-4]", "RESUME", NULL, &err), 0);
    info_of (ctx, 0, NULL, 0, 0, 0);
    info_of (ctx, 2, NULL, 0, 0, 0);
    ctx->nodes[1].last_heard = t0 - CTLD_NODE_TIMEOUT;
    assert_int_equal (update (ctx, "n2", "RESUME", NULL, &err), 0);
    info_of (ctx, 1, "Not responding", ARBOR_UID, t0, time (NULL));

    /* Only the reason's owner may be recorded: an unprivileged NODE_UPDATE
     * is refused and changes nothing. */
    assert_int_not_equal (update_as (ctx, "n1", "DRAIN", "x", 4242), 0);
    info_of (ctx, 0, NULL, 0, 0, 0);
}

int main (void)
{
#define T(f) FIXTURE_TEST (f, &spec)
    const struct CMUnitTest tests[] = {
        T (test_validation),
        T (test_down_ends_jobs),
        T (test_down_silent_node),
        T (test_not_responding),
        T (test_drain),
        T (test_epilog_drain_resume),
        T (test_reason_who_when),
    };
#undef T

    return cmocka_run_group_tests (tests, NULL, NULL);
}
