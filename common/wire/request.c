/* request.c - one request to a daemon: connect, send, match, time out,
 * retry.
 *
 * A request is a small chain on the loop, one attempt at a time:
 *     dial (TCP: the kept connection, peers.h; unix: an immediate
 *           connect; a held conn: request_conn.c) -> send -> wait the
 *           answer
 * with one ev_timer for the attempt's budget. Every end of an attempt
 * goes through request_finish(), which either starts the retry pause
 * (opts.retry: the attempt's transport dropped, the next one started by
 * retry_w) or stops everything, calls the callback once and frees the
 * request. A failure found inside a starting call is kept in r->res and
 * reported by a zero-delay timer (defer_w), so the callback never runs
 * inside the starting call.
 *
 * The conn is destroyed from inside its own callbacks when the answer
 * arrives; conn.c defers that free until its callback unwinds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "net.h"
#include "request_private.h"

static void request_frame_cb (struct conn *c, const struct frame *f, void *arg);
static void request_closed_cb (struct conn *c, const arbor_error_t *err,
                               void *arg);

static const struct conn_ops request_conn_ops = {
    .frame = request_frame_cb,
    .closed = request_closed_cb,
};

/* End the attempt's transport and forget its answer. */
static void request_drop (struct request *r)
{
    peers_leave (&r->pu);
    conn_unwait (&r->cw);
    ev_timer_stop (r->loop, &r->timeout_w);
    ev_timer_stop (r->loop, &r->defer_w);
    if (r->conn)
        conn_destroy (r->conn);
    else if (r->fd >= 0)
        close (r->fd);
    r->conn = NULL;
    r->fd = -1;
    if (r->have_ans)
        proto_clear (r->ans_type, &r->ans);
    r->have_ans = false;
    r->sent = false;
    r->retried = false;
}

static void request_free (struct request *r)
{
    request_drop (r);
    ev_timer_stop (r->loop, &r->retry_w);
    proto_clear (r->type, &r->msg);
    free (r);
}

/* ---- retry --------------------------------------------------------------- */

/* Another attempt after this failed one? */
static bool request_may_retry (struct request *r, double *left)
{
    const struct request_retry *rt = &r->opts.retry;
    bool again;

    *left = rt->deadline > 0 ? r->first + rt->deadline - ev_now (r->loop)
                             : HUGE_VAL; /* no deadline */
    if (r->res.errnum == 0 || rt->interval <= 0
        || (rt->limit && r->attempts >= rt->limit) || *left <= 0)
        return false;
    if (!rt->again)
        return request_retriable (&r->res);
    r->in_cb = true; /* the hook may not cancel */
    again = rt->again (&r->res, r->arg);
    r->in_cb = false;
    return again;
}

/* Drop the failed attempt and start the pause before the next. */
static bool request_again (struct request *r)
{
    const struct request_retry *rt = &r->opts.retry;
    double left, delay;

    if (!request_may_retry (r, &left))
        return false;
    request_drop (r);
    delay = r->pause;
    if (rt->from_start) {
        delay = r->started + r->pause - ev_now (r->loop);
        if (delay < 0)
            delay = 0;
    }
    if (delay > left)
        delay = left;
    if (rt->interval_max > rt->interval) {
        r->pause *= 2;
        if (r->pause > rt->interval_max)
            r->pause = rt->interval_max;
    }
    ev_timer_set (&r->retry_w, delay, 0.);
    ev_timer_start (r->loop, &r->retry_w);
    return true;
}

/* The end of an attempt: the callback sees r->res, then r is freed,
 * unless the request tries again. */
void request_finish (struct request *r)
{
    if (request_again (r))
        return;
    /* Nothing may touch r->res while the callback reads it: a held conn
     * that the callback destroys, a kept peer it closes. */
    conn_unwait (&r->cw);
    peers_leave (&r->pu);
    ev_timer_stop (r->loop, &r->timeout_w);
    ev_timer_stop (r->loop, &r->defer_w);
    r->in_cb = true;
    r->cb (&r->res, r->arg);
    request_free (r);
}

/* ---- the answer --------------------------------------------------------- */

void request_fail (struct request *r, enum request_outcome outcome, int errnum,
                   const char *prefix)
{
    char *t = r->res.err.text;
    size_t size = sizeof (r->res.err.text);

    r->res.outcome = outcome;
    r->res.errnum = errnum ? errnum : EIO;
    r->res.type = 0;
    r->res.msg = NULL;
    if (!prefix)
        return;
    /* strerror (errnum), starting lower case ("connection refused") */
    int n = snprintf (t, size, "%s", prefix);
    if (n >= 0 && (size_t)n < size)
        errno_text (r->res.errnum, t + n, size - n);
}

/* An MSG_RC answer with an error, or one that stands where another type
 * was due. */
static int request_refused (struct request *r)
{
    r->res.outcome = REQUEST_REFUSED;
    r->res.errnum = r->ans.rc.errnum ? r->ans.rc.errnum : EPROTO;
    if (r->ans.rc.text && r->ans.rc.text[0])
        snprintf (r->res.err.text, sizeof (r->res.err.text), "%s",
                  r->ans.rc.text);
    else
        errno_text (r->res.errnum, r->res.err.text, sizeof (r->res.err.text));
    return 0;
}

int request_answer (struct request *r, const struct frame *f)
{
    int want = r->opts.resp_type > 0 ? r->opts.resp_type : MSG_RC;
    arbor_error_t err;

    if (f->type != MSG_RC && f->type != want) {
        request_fail (r, REQUEST_BAD_ANSWER, EPROTO, NULL);
        snprintf (
            r->res.err.text, sizeof (r->res.err.text), "unexpected %s answer",
            proto_msg_name (f->type) ? proto_msg_name (f->type) : "unknown");
        return 0;
    }
    if (proto_decode (f->type, f->body, f->body_len, &r->ans, &err) < 0) {
        request_fail (r, REQUEST_BAD_ANSWER, EPROTO, NULL);
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
    if (f->type == MSG_RC && (r->ans.rc.errnum != 0 || want != MSG_RC))
        return request_refused (r);
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
    request_fail (r, REQUEST_CLOSED, ECONNRESET, NULL);
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
    request_fail (r, REQUEST_TIMEDOUT, ETIMEDOUT, NULL);
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

/* ---- attempts ------------------------------------------------------------ */

struct request *request_defer (struct request *r)
{
    ev_timer_stop (r->loop, &r->timeout_w);
    ev_timer_start (r->loop, &r->defer_w);
    return r;
}

/* Start one attempt; a failure to start is reported from the loop. */
static void request_try (struct request *r)
{
    r->attempts++;
    r->started = ev_now (r->loop);
    memset (&r->res, 0, sizeof (r->res));
    if (r->opts.timeout > 0) {
        ev_timer_set (&r->timeout_w, r->opts.timeout, 0.);
        ev_timer_start (r->loop, &r->timeout_w);
    }
    if (r->attempt (r) < 0)
        request_defer (r);
}

static void request_retry_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    request_try (w->data);
}

struct request *request_begin (struct request *r)
{
    /* Its time counts from now: the loop's cached time may be from long
     * ago (a command that waited, blocking, for its allocation). */
    ev_now_update (r->loop);
    r->first = ev_now (r->loop);
    r->pause = r->opts.retry.interval;
    request_try (r);
    return r;
}

struct request *request_create (struct ev_loop *loop, int type, const void *msg,
                                const struct request_opts *opts, request_f cb,
                                void *arg)
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
    ev_init (&r->timeout_w, request_timeout_cb);
    r->timeout_w.data = r;
    ev_timer_init (&r->defer_w, request_defer_cb, 0., 0.);
    r->defer_w.data = r;
    ev_init (&r->retry_w, request_retry_cb);
    r->retry_w.data = r;
    return r;
}

/* ---- TCP: on a kept connection (peers.h) ------------------------------- */

static void request_peer_ready (struct conn *c, uint32_t tag, void *arg)
{
    struct request *r = arg;

    if (conn_send (c, r->type, tag, 0, &r->msg) < 0) {
        peers_leave (&r->pu);
        request_fail (r, REQUEST_UNREACHED, errno, "cannot send: ");
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
        request_fail (r, r->sent ? REQUEST_CLOSED : REQUEST_UNREACHED, errnum,
                      NULL);
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
        /* a refused connect reads as any other; peers wrote the rest */
        request_fail (r, REQUEST_UNREACHED, e, e != EHOSTUNREACH ? "" : NULL);
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
    r->attempt = request_join;
    return request_begin (r);
}

/* ---- unix: a connection of its own ------------------------------------- */

/* Connect (unless request_unix did), wrap the fd and send. 0, or -1 with
 * r->res filled. */
static int request_unix_attempt (struct request *r)
{
    if (r->fd < 0 && (r->fd = net_connect_unix (r->peer, NULL)) < 0) {
        request_fail (r, REQUEST_UNREACHED, errno, "");
        return -1;
    }
    if (!(r->conn = conn_create_unix (r->loop, r->fd, &request_conn_ops, r))) {
        request_fail (r, REQUEST_UNREACHED, errno, "");
        return -1;
    }
    if (conn_send (r->conn, r->type, REQUEST_MATCHTAG, 0, &r->msg) < 0) {
        request_fail (r, REQUEST_UNREACHED, errno, "cannot send: ");
        return -1;
    }
    return 0;
}

struct request *request_unix (struct ev_loop *loop, const char *path, int type,
                              const void *msg, const struct request_opts *opts,
                              request_f cb, void *arg)
{
    struct request *r;

    if (!path || strlen (path) >= sizeof (r->peer)) {
        errno = EINVAL;
        return NULL;
    }
    if (!(r = request_create (loop, type, msg, opts, cb, arg)))
        return NULL;
    snprintf (r->peer, sizeof (r->peer), "%s", path);
    r->attempt = request_unix_attempt;
    if ((opts->flags & REQUEST_F_CONNECT_NOW)
        && (r->fd = net_connect_unix (path, NULL)) < 0) {
        request_cancel (r);
        return NULL;
    }
    return request_begin (r);
}

/* ---- the owner's calls --------------------------------------------------- */

void request_cancel (struct request *r)
{
    int saved = errno;

    if (r && !r->in_cb)
        request_free (r);
    errno = saved;
}

int request_set_msg (struct request *r, const void *msg)
{
    union msg_any copy;

    if (!r || !msg) {
        errno = EINVAL;
        return -1;
    }
    if (proto_copy (r->type, msg, &copy) < 0)
        return -1;
    proto_clear (r->type, &r->msg);
    r->msg = copy;
    return 0;
}

int request_retry_now (struct request *r)
{
    if (!r || !ev_is_active (&r->retry_w)) {
        errno = r ? EBUSY : EINVAL;
        return -1;
    }
    ev_timer_stop (r->loop, &r->retry_w);
    request_try (r);
    return 0;
}

const char *request_peer (const struct request *r)
{
    return r->peer;
}
