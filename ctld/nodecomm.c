/* nodecomm.c - messages from arbor-ctld to the nodeds, without blocking.
 *
 * Each message (STEP_KILL, STEP_TERMINATE, JOB_TERMINATE) is one
 * short-lived connection: a non-blocking connect to NodeAddr:NodedPort,
 * the request on a munge-authenticated conn, the RC answer, then close.
 * The answer of a JOB_TERMINATE, or its failure (refused, no answer within
 * CTLD_KILL_TIMEOUT seconds), goes to term_answer(), which resends it
 * later; for the others it is only logged: a noded that missed a
 * STEP_KILL still refuses late launches once the credential expires.
 * Every outcome also goes to liveness_result(): an answer (any RC) proves
 * the noded alive; a failure without one (refused, closed, no answer)
 * starts the probes that make an unreachable node DOWN within seconds
 * (liveness.c). A probe is a STEP_KILL of job 0 with signal 0, which a
 * noded answers without touching anything, with a shorter timeout
 * (CTLD_PROBE_TIMEOUT). Outstanding requests live on ctx->kills so
 * shutdown can free them. With ctx->node_send set (unit tests), messages go there
 * instead and nothing touches the network.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctld.h"
#include "log.h"
#include "net.h"

struct nodecomm_req {
    struct nodecomm_req *next, *prev;
    struct ctld *ctx;
    char *node;
    int fd;                   /* until the conn owns it */
    struct conn *conn;
    ev_io connect_w;
    ev_timer timeout_w;
    int type;
    uint32_t job_id;
    size_t node_idx;
    bool probe;               /* a liveness probe (nodecomm_probe) */
    union msg_any msg;        /* a copy, cleared with the request */
};

static void nodecomm_frame_cb (struct conn *c, const struct frame *f,
                               void *arg);
static void nodecomm_closed_cb (struct conn *c, const arbor_error_t *err,
                                void *arg);

static const struct conn_ops nodecomm_ops = {
    .frame = nodecomm_frame_cb,
    .closed = nodecomm_closed_cb,
};

/* Unlink and free 'r'; close its conn or fd unless 'conn_gone'. */
static void req_free (struct nodecomm_req *r, bool conn_gone)
{
    struct ctld *ctx = r->ctx;

    ev_io_stop (ctx->loop, &r->connect_w);
    ev_timer_stop (ctx->loop, &r->timeout_w);
    if (r->conn && !conn_gone)
        conn_destroy (r->conn);
    else if (!r->conn && r->fd >= 0)
        close (r->fd);
    if (r->prev)
        r->prev->next = r->next;
    else if (ctx->kills == r)   /* not linked yet when connect failed */
        ctx->kills = r->next;
    if (r->next)
        r->next->prev = r->prev;
    proto_clear (r->type, &r->msg);
    free (r->node);
    free (r);
}

static const char *req_name (const struct nodecomm_req *r)
{
    const char *name = proto_msg_name (r->type);

    return name ? name : "?";
}

/* The request is over: errnum 0 (answered RC 0) or why not; 'answered'
 * when the noded answered at all. */
static void req_done (struct nodecomm_req *r, int errnum, const char *text,
                      bool answered)
{
    liveness_result (r->ctx, r->node_idx, answered, r->probe,
                     text && text[0] ? text : strerror (errnum),
                     time (NULL));
    if (r->probe)
        return;
    if (r->type == MSG_JOB_TERMINATE) {
        orphan_answer (r->ctx, r->job_id, r->node_idx, errnum);
        term_answer (r->ctx, r->job_id, r->node_idx, errnum, text);
        return;
    }
    if (errnum != 0)
        log_warn ("%s %u to %s: %s", req_name (r), r->job_id, r->node,
                  text && text[0] ? text : strerror (errnum));
    else
        log_debug ("%s %u to %s: done", req_name (r), r->job_id, r->node);
}

static void nodecomm_frame_cb (struct conn *c, const struct frame *f,
                               void *arg)
{
    struct nodecomm_req *r = arg;
    struct msg_rc rc = { 0 };
    arbor_error_t err;

    if (f->type != MSG_RC
        || proto_decode (MSG_RC, f->body, f->body_len, &rc, &err) < 0)
        req_done (r, EPROTO, "unexpected answer", true);
    else
        req_done (r, rc.errnum, rc.text, true);
    proto_clear (MSG_RC, &rc);
    (void)c;
    req_free (r, false);
}

static void nodecomm_closed_cb (struct conn *c, const arbor_error_t *err,
                                void *arg)
{
    struct nodecomm_req *r = arg;
    char why[200];

    snprintf (why, sizeof (why), "connection closed before an answer%s%s",
              err && err->text[0] ? ": " : "",
              err && err->text[0] ? err->text : "");
    req_done (r, ECONNRESET, why, false);
    (void)c;
    req_free (r, true);
}

static void nodecomm_timeout_cb (struct ev_loop *loop, ev_timer *w,
                                 int revents)
{
    struct nodecomm_req *r = w->data;
    char why[64];

    snprintf (why, sizeof (why), "no answer within %d s",
              r->probe ? CTLD_PROBE_TIMEOUT : CTLD_KILL_TIMEOUT);
    req_done (r, ETIMEDOUT, why, false);
    req_free (r, false);
}

static void nodecomm_connect_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct nodecomm_req *r = w->data;

    char why[128];

    ev_io_stop (loop, w);
    if (net_connect_finish (r->fd) < 0) {
        snprintf (why, sizeof (why), "connect: %s", strerror (errno));
        goto fail;
    }
    if (!(r->conn = conn_create (loop, r->fd, CONN_AUTH_MUNGE, r->ctx->auth,
                                 &nodecomm_ops, r))) {
        snprintf (why, sizeof (why), "%s", strerror (errno));
        goto fail;
    }
    r->fd = -1;
    if (conn_send (r->conn, r->type, 1, 0, &r->msg) < 0) {
        snprintf (why, sizeof (why), "send: %s", strerror (errno));
        goto fail;
    }
    return;
fail:
    req_done (r, errno ? errno : EIO, why, false);
    req_free (r, false);
}

/* Job id of a message we send (all of them carry one). */
static uint32_t msg_job_id (int type, const void *msg)
{
    switch (type) {
    case MSG_STEP_KILL:
        return ((const struct msg_step_kill *)msg)->job_id;
    case MSG_STEP_TERMINATE:
        return ((const struct msg_step_terminate *)msg)->job_id;
    case MSG_JOB_TERMINATE:
        return ((const struct msg_job_terminate *)msg)->job_id;
    default:
        return 0;
    }
}

static struct nodecomm_req *req_create (struct ctld *ctx, size_t node,
                                        int type, const void *msg)
{
    struct nodecomm_req *r = calloc (1, sizeof (*r));

    if (!r)
        return NULL;
    r->ctx = ctx;
    r->fd = -1;
    r->type = type;
    r->node_idx = node;
    r->job_id = msg_job_id (type, msg);
    if (!(r->node = strdup (ctx->nodes[node].name))
        || proto_copy (type, msg, &r->msg) < 0) {
        free (r->node);
        free (r);
        errno = ENOMEM;
        return NULL;
    }
    return r;
}

static void nodecomm_start (struct ctld *ctx, size_t node, int type,
                            const void *msg, bool probe)
{
    const struct node *n = &ctx->nodes[node];
    struct nodecomm_req *r;
    arbor_error_t err;

    if (ctx->node_send) {
        ctx->node_send (ctx, node, type, msg, ctx->node_send_arg);
        return;
    }
    if (!(r = req_create (ctx, node, type, msg))) {
        log_err ("%s %u to %s: out of memory", proto_msg_name (type),
                 msg_job_id (type, msg), n->name);
        return;
    }
    r->probe = probe;
    r->fd = net_connect_tcp_start (n->addr, ctx->conf->noded_port, &err);
    if (r->fd < 0) {
        req_done (r, errno ? errno : EIO, err.text, false);
        req_free (r, false);
        return;
    }
    ev_io_init (&r->connect_w, nodecomm_connect_cb, r->fd, EV_WRITE);
    r->connect_w.data = r;
    ev_timer_init (&r->timeout_w, nodecomm_timeout_cb,
                   probe ? CTLD_PROBE_TIMEOUT : CTLD_KILL_TIMEOUT, 0);
    r->timeout_w.data = r;
    ev_io_start (ctx->loop, &r->connect_w);
    ev_timer_start (ctx->loop, &r->timeout_w);
    r->next = ctx->kills;
    if (r->next)
        r->next->prev = r;
    ctx->kills = r;
    log_debug ("%s%s %u to %s", probe ? "probe: " : "", req_name (r),
               r->job_id, n->name);
}

void nodecomm_send (struct ctld *ctx, size_t node, int type,
                    const void *msg)
{
    nodecomm_start (ctx, node, type, msg, false);
}

void nodecomm_probe (struct ctld *ctx, size_t node)
{
    struct msg_step_kill m = { .job_id = 0, .step_id = STEP_ID_ALL,
                               .signal = 0, .revoke = false };

    nodecomm_start (ctx, node, MSG_STEP_KILL, &m, true);
}

void nodecomm_step_kill (struct ctld *ctx, size_t node, uint32_t job,
                         uint32_t step, int sig, bool revoke)
{
    struct msg_step_kill m = { .job_id = job, .step_id = step,
                               .signal = sig, .revoke = revoke };

    nodecomm_send (ctx, node, MSG_STEP_KILL, &m);
}

void nodecomm_fini (struct ctld *ctx)
{
    while (ctx->kills)
        req_free (ctx->kills, false);
}
