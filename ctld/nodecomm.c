/* nodecomm.c - messages from arbor-ctld to the nodeds, without blocking.
 *
 * Each message is one short-lived connection: a non-blocking connect to
 * NodeAddr:NodedPort, the request on a munge-authenticated conn, the RC
 * answer logged, then close. Failures (refused, no answer within
 * CTLD_KILL_TIMEOUT seconds, an error RC) are logged and otherwise
 * ignored: a noded that missed a STEP_KILL still refuses late launches
 * once the credential expires, and a node that stays silent is marked
 * DOWN by the controller's housekeeping. Outstanding requests live on
 * ctx->kills so shutdown can free them.
 */
#include <errno.h>
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
    struct msg_step_kill msg;
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
    else
        ctx->kills = r->next;
    if (r->next)
        r->next->prev = r->prev;
    free (r->node);
    free (r);
}

static void nodecomm_frame_cb (struct conn *c, const struct frame *f,
                               void *arg)
{
    struct nodecomm_req *r = arg;
    struct msg_rc rc = { 0 };
    arbor_error_t err;

    if (f->type != MSG_RC
        || proto_decode (MSG_RC, f->body, f->body_len, &rc, &err) < 0)
        log_warn ("STEP_KILL %u to %s: unexpected answer %s", r->msg.job_id,
                  r->node, proto_msg_name (f->type) ? proto_msg_name (f->type)
                                                    : "?");
    else if (rc.errnum != 0)
        log_warn ("STEP_KILL %u to %s: %s", r->msg.job_id, r->node,
                  rc.text ? rc.text : strerror (rc.errnum));
    else
        log_debug ("STEP_KILL %u to %s: done", r->msg.job_id, r->node);
    proto_clear (MSG_RC, &rc);
    (void)c;
    req_free (r, false);
}

static void nodecomm_closed_cb (struct conn *c, const arbor_error_t *err,
                                void *arg)
{
    struct nodecomm_req *r = arg;

    log_warn ("STEP_KILL %u to %s: connection closed before an answer%s%s",
              r->msg.job_id, r->node, err && err->text[0] ? ": " : "",
              err && err->text[0] ? err->text : "");
    (void)c;
    req_free (r, true);
}

static void nodecomm_timeout_cb (struct ev_loop *loop, ev_timer *w,
                                 int revents)
{
    struct nodecomm_req *r = w->data;

    log_warn ("STEP_KILL %u to %s: no answer within %d s", r->msg.job_id,
              r->node, CTLD_KILL_TIMEOUT);
    req_free (r, false);
}

static void nodecomm_connect_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct nodecomm_req *r = w->data;

    ev_io_stop (loop, w);
    if (net_connect_finish (r->fd) < 0) {
        log_warn ("STEP_KILL %u to %s: connect: %s", r->msg.job_id, r->node,
                  strerror (errno));
        req_free (r, false);
        return;
    }
    if (!(r->conn = conn_create (loop, r->fd, CONN_AUTH_MUNGE, r->ctx->auth,
                                 &nodecomm_ops, r))) {
        log_err ("STEP_KILL %u to %s: %s", r->msg.job_id, r->node,
                 strerror (errno));
        req_free (r, false);
        return;
    }
    r->fd = -1;
    if (conn_send (r->conn, MSG_STEP_KILL, 1, 0, &r->msg) < 0) {
        log_warn ("STEP_KILL %u to %s: send: %s", r->msg.job_id, r->node,
                  strerror (errno));
        req_free (r, false);
    }
}

void nodecomm_step_kill (struct ctld *ctx, size_t node, uint32_t job,
                         uint32_t step, int sig, bool revoke)
{
    const struct node *n = &ctx->nodes[node];
    struct nodecomm_req *r = calloc (1, sizeof (*r));
    arbor_error_t err;

    if (!r || !(r->node = strdup (n->name))) {
        log_err ("STEP_KILL %u to %s: out of memory", job, n->name);
        free (r);
        return;
    }
    r->ctx = ctx;
    r->msg = (struct msg_step_kill){ .job_id = job, .step_id = step,
                                     .signal = sig, .revoke = revoke };
    r->fd = net_connect_tcp_start (n->addr, ctx->conf->noded_port, &err);
    if (r->fd < 0) {
        log_warn ("STEP_KILL %u to %s: %s", job, n->name, err.text);
        free (r->node);
        free (r);
        return;
    }
    ev_io_init (&r->connect_w, nodecomm_connect_cb, r->fd, EV_WRITE);
    r->connect_w.data = r;
    ev_timer_init (&r->timeout_w, nodecomm_timeout_cb, CTLD_KILL_TIMEOUT, 0);
    r->timeout_w.data = r;
    ev_io_start (ctx->loop, &r->connect_w);
    ev_timer_start (ctx->loop, &r->timeout_w);
    r->next = ctx->kills;
    if (r->next)
        r->next->prev = r;
    ctx->kills = r;
    log_debug ("STEP_KILL %u.%s signal %d to %s", job,
               step == STEP_ID_ALL ? "all" : "step", sig, n->name);
}

void nodecomm_fini (struct ctld *ctx)
{
    while (ctx->kills)
        req_free (ctx->kills, false);
}
