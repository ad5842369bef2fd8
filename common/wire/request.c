/* request.c - one request to a daemon: connect, send, match, time out.
 *
 * A request is a small chain on the loop:
 *     dial (TCP: non-blocking connect, an ev_io waits for writability;
 *           unix: an immediate connect) -> conn + send -> wait the answer
 * with one ev_timer for the whole budget. Every end goes through
 * request_finish(), which stops everything, calls the callback once and
 * frees the request. A failure found inside request_tcp/request_unix is
 * kept in r->res and reported by a zero-delay timer (defer_w), so the
 * callback never runs inside the starting call.
 *
 * The conn is destroyed from inside its own callbacks when the answer
 * arrives; conn.c defers that free until its callback unwinds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "net.h"
#include "peers.h"
#include "proto.h"
#include "request.h"

struct request {
    struct ev_loop *loop;
    struct request_opts opts;
    char peer[128]; /* host:port or path */
    char host[128]; /* TCP: the peer, on opts.peers' kept connection */
    uint16_t port;
    struct peer_user pu;
    bool sent;    /* TCP: the frame went out on the kept conn */
    bool retried; /* TCP: resent once on a fresh conn */
    int type;
    union msg_any msg; /* the copy sent */
    int fd;            /* unix: the socket, then the conn's */
    struct conn *conn; /* unix: the request's own conn */
    ev_timer timeout_w;
    ev_timer defer_w;          /* reports a failure found at start */
    struct request_result res; /* the outcome, once known */
    int ans_type;              /* REQUEST_F_UNTIL_CLOSE: the kept answer */
    union msg_any ans;
    bool have_ans;
    bool in_cb;
    request_f cb;
    void *arg;
};

static void request_frame_cb (struct conn *c, const struct frame *f, void *arg);
static void request_closed_cb (struct conn *c, const arbor_error_t *err,
                               void *arg);

static const struct conn_ops request_conn_ops = {
    .frame = request_frame_cb,
    .closed = request_closed_cb,
};

static void request_free (struct request *r)
{
    peers_leave (&r->pu);
    ev_timer_stop (r->loop, &r->timeout_w);
    ev_timer_stop (r->loop, &r->defer_w);
    if (r->conn)
        conn_destroy (r->conn);
    else if (r->fd >= 0)
        close (r->fd);
    if (r->have_ans)
        proto_clear (r->ans_type, &r->ans);
    proto_clear (r->type, &r->msg);
    free (r);
}

/* The end: the callback sees r->res, then r is freed. */
static void request_finish (struct request *r)
{
    r->in_cb = true;
    r->cb (&r->res, r->arg);
    request_free (r);
}

/* strerror (errnum), starting lower case ("connection refused"). */
static void request_errtext (struct request *r, const char *prefix, int errnum)
{
    char *t = r->res.err.text;
    int n = snprintf (t, sizeof (r->res.err.text), "%s", prefix);

    if (n >= 0 && (size_t)n < sizeof (r->res.err.text))
        errno_text (errnum, t + n, sizeof (r->res.err.text) - n);
}

/* Record a failure without an answer. */
static void request_fail (struct request *r, enum request_outcome outcome,
                          int errnum)
{
    r->res.outcome = outcome;
    r->res.errnum = errnum ? errnum : EIO;
    r->res.type = 0;
    r->res.msg = NULL;
}

/* ---- the answer --------------------------------------------------------- */

/* Decode the answer into r->ans and fill r->res. 0 if it completes the
 * request now, 1 if it is kept until the peer closes (UNTIL_CLOSE). */
static int request_answer (struct request *r, const struct frame *f)
{
    int want = r->opts.resp_type > 0 ? r->opts.resp_type : MSG_RC;
    arbor_error_t err;

    if (f->type != MSG_RC && f->type != want) {
        request_fail (r, REQUEST_BAD_ANSWER, EPROTO);
        snprintf (
            r->res.err.text, sizeof (r->res.err.text), "unexpected %s answer",
            proto_msg_name (f->type) ? proto_msg_name (f->type) : "unknown");
        return 0;
    }
    if (proto_decode (f->type, f->body, f->body_len, &r->ans, &err) < 0) {
        request_fail (r, REQUEST_BAD_ANSWER, EPROTO);
        snprintf (r->res.err.text, sizeof (r->res.err.text),
                  "bad answer: %.140s", err.text);
        return 0;
    }
    r->have_ans = true;
    r->ans_type = f->type;
    r->res.type = f->type;
    r->res.msg = &r->ans;
    r->res.uid = f->uid;
    r->res.outcome = REQUEST_ANSWERED;
    r->res.errnum = 0;
    if (f->type == MSG_RC && (r->ans.rc.errnum != 0 || want != MSG_RC)) {
        r->res.outcome = REQUEST_REFUSED;
        r->res.errnum = r->ans.rc.errnum ? r->ans.rc.errnum : EPROTO;
        if (r->ans.rc.text && r->ans.rc.text[0])
            snprintf (r->res.err.text, sizeof (r->res.err.text), "%s",
                      r->ans.rc.text);
        else
            request_errtext (r, "", r->res.errnum);
        return 0;
    }
    return (r->opts.flags & REQUEST_F_UNTIL_CLOSE) ? 1 : 0;
}

static void request_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct request *r = arg;

    (void)c;
    if (!(f->flags & FRAME_F_RESPONSE) || f->matchtag != REQUEST_MATCHTAG
        || r->have_ans)
        return; /* not the answer to our request */
    if (request_answer (r, f) == 0)
        request_finish (r);
}

static void request_closed_cb (struct conn *c, const arbor_error_t *err,
                               void *arg)
{
    struct request *r = arg;

    (void)c;
    r->conn = NULL; /* conn.c frees it after this returns */
    r->fd = -1;
    if (r->have_ans) { /* UNTIL_CLOSE: the close completes the answer */
        request_finish (r);
        return;
    }
    request_fail (r, REQUEST_CLOSED, ECONNRESET);
    snprintf (r->res.err.text, sizeof (r->res.err.text),
              "connection closed before answering%s%.100s",
              err && err->text[0] ? ": " : "", err ? err->text : "");
    request_finish (r);
}

static void request_timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct request *r = w->data;

    (void)loop;
    (void)revents;
    if (r->have_ans) { /* UNTIL_CLOSE: answered, but still open */
        proto_clear (r->ans_type, &r->ans);
        r->have_ans = false;
    }
    request_fail (r, REQUEST_TIMEDOUT, ETIMEDOUT);
    snprintf (r->res.err.text, sizeof (r->res.err.text),
              "no answer within %g s", r->opts.timeout);
    request_finish (r);
}

static void request_defer_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    request_finish (w->data);
}

/* ---- connect and send -----------------------------------------------------
 */

/* unix: wrap the fd and send. 0, or -1 with r->res filled. */
static int request_send (struct request *r)
{
    if (!(r->conn = conn_create_unix (r->loop, r->fd, &request_conn_ops, r))) {
        request_fail (r, REQUEST_UNREACHED, errno);
        request_errtext (r, "", r->res.errnum);
        return -1;
    }
    if (conn_send (r->conn, r->type, REQUEST_MATCHTAG, 0, &r->msg) < 0) {
        request_fail (r, REQUEST_UNREACHED, errno);
        request_errtext (r, "cannot send: ", r->res.errnum);
        return -1;
    }
    return 0;
}

/* Report r->res from the loop, not from the starting call. */
static struct request *request_defer (struct request *r)
{
    ev_timer_stop (r->loop, &r->timeout_w);
    ev_timer_start (r->loop, &r->defer_w);
    return r;
}

static struct request *request_create (struct ev_loop *loop, int type,
                                       const void *msg,
                                       const struct request_opts *opts,
                                       request_f cb, void *arg)
{
    struct request *r;

    if (!loop || !msg || !opts || !cb) {
        errno = EINVAL;
        return NULL;
    }
    if (!(r = calloc (1, sizeof (*r))))
        return NULL;
    if (proto_copy (type, msg, &r->msg) < 0) {
        int e = errno;
        free (r);
        errno = e;
        return NULL;
    }
    r->loop = loop;
    r->opts = *opts;
    r->type = type;
    r->fd = -1;
    r->cb = cb;
    r->arg = arg;
    ev_timer_init (&r->timeout_w, request_timeout_cb, opts->timeout, 0.);
    r->timeout_w.data = r;
    ev_timer_init (&r->defer_w, request_defer_cb, 0., 0.);
    r->defer_w.data = r;
    if (opts->timeout > 0)
        ev_timer_start (loop, &r->timeout_w);
    return r;
}

/* ---- TCP: on a kept connection (peers.h) ------------------------------- */

static void request_peer_ready (struct conn *c, uint32_t tag, void *arg)
{
    struct request *r = arg;

    if (conn_send (c, r->type, tag, 0, &r->msg) < 0) {
        peers_leave (&r->pu);
        request_fail (r, REQUEST_UNREACHED, errno);
        request_errtext (r, "cannot send: ", r->res.errnum);
        request_defer (r); /* ready may run inside request_tcp */
        return;
    }
    r->sent = true;
}

static void request_peer_frame (const struct frame *f, void *arg)
{
    struct request *r = arg;

    if (request_answer (r, f) == 0)
        request_finish (r);
}

static int request_join (struct request *r);

/* The kept conn failed under the request. A conn that had served earlier
 * exchanges may just have been closed by a peer that restarted since:
 * try once more on a fresh connection. */
static void request_peer_lost (int errnum, const char *why, bool reused,
                               void *arg)
{
    struct request *r = arg;

    if (reused && !r->retried) {
        r->retried = true;
        r->sent = false;
        if (request_join (r) == 0)
            return;
    } else {
        request_fail (r, r->sent ? REQUEST_CLOSED : REQUEST_UNREACHED, errnum);
        snprintf (r->res.err.text, sizeof (r->res.err.text), "%s", why);
    }
    request_finish (r);
}

static const struct peer_user_ops request_peer_ops = {
    .ready = request_peer_ready,
    .frame = request_peer_frame,
    .lost = request_peer_lost,
};

/* 0, or -1 with r->res filled. */
static int request_join (struct request *r)
{
    r->pu.ops = &request_peer_ops;
    r->pu.arg = r;
    if (peers_join (r->opts.peers, r->host, r->port, r->opts.peer_uid, &r->pu,
                    &r->res.err)
        < 0) {
        int e = errno;
        request_fail (r, REQUEST_UNREACHED, e);
        if (e != EHOSTUNREACH) /* a refused connect reads as any other */
            request_errtext (r, "", r->res.errnum);
        return -1;
    }
    return 0;
}

struct request *request_tcp (struct ev_loop *loop, const char *host,
                             uint16_t port, int type, const void *msg,
                             const struct request_opts *opts, request_f cb,
                             void *arg)
{
    struct request *r;

    if (!host || !opts || !opts->peers || strlen (host) >= sizeof (r->host)
        || (opts->flags & REQUEST_F_UNTIL_CLOSE)) {
        errno = EINVAL;
        return NULL;
    }
    if (!(r = request_create (loop, type, msg, opts, cb, arg)))
        return NULL;
    snprintf (r->peer, sizeof (r->peer), "%s:%u", host, port);
    snprintf (r->host, sizeof (r->host), "%s", host);
    r->port = port;
    if (request_join (r) < 0)
        return request_defer (r);
    return r;
}

struct request *request_unix (struct ev_loop *loop, const char *path, int type,
                              const void *msg, const struct request_opts *opts,
                              request_f cb, void *arg)
{
    struct request *r;

    if (!path) {
        errno = EINVAL;
        return NULL;
    }
    if (!(r = request_create (loop, type, msg, opts, cb, arg)))
        return NULL;
    snprintf (r->peer, sizeof (r->peer), "%s", path);
    if ((r->fd = net_connect_unix (path, NULL)) < 0
        && (opts->flags & REQUEST_F_CONNECT_NOW)) {
        request_cancel (r);
        return NULL;
    }
    if (r->fd < 0) {
        request_fail (r, REQUEST_UNREACHED, errno);
        request_errtext (r, "", r->res.errnum);
        return request_defer (r);
    }
    if (request_send (r) < 0)
        return request_defer (r);
    return r;
}

void request_cancel (struct request *r)
{
    int saved = errno;

    if (r && !r->in_cb)
        request_free (r);
    errno = saved;
}

const char *request_peer (const struct request *r)
{
    return r->peer;
}
