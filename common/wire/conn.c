/* conn.c - framed, authenticated, non-blocking connections on a libev loop.
 *
 * Input (conn_in.c): a buffer that grows to the largest frame, the
 * complete frames in it checked and delivered after each read, the body
 * borrowed from the buffer.
 *
 * Handshake (TCP, session.h): conn_hello.c. Until it is done an
 * initiator's output is held (queued, not written) and a responder
 * delivers nothing. conn_private.h (struct conn), conn_in.h and
 * conn_hello.h are what the files share. Answers to the owner's own
 * requests are routed by conn_wait.c before ops->frame sees a frame.
 *
 * Output: conn_send encodes, seals and, when nothing is queued, writes
 * header, trailer and body at once with one sendmsg; only what the kernel
 * did not take is copied to the queue, and only then is the write watcher
 * armed (as redis does). The queue is bounded by CONN_MAX_OUTQ.
 *
 * Lifetime: callbacks run with c->depth raised. conn_destroy() inside one
 * closes the fd and stops the watchers at once but frees the struct only
 * when the outermost callback returns, and the frame loop stops delivering
 * as soon as the conn is destroyed or closing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "authpool.h"
#include "conn_private.h"
#include "conn_hello.h"
#include "conn_in.h"
#include "net.h"
#include "proto.h"
#include "session.h"

#define CONN_LINGER 5.0 /* seconds a closing conn waits for the peer's EOF */

static void conn_free (struct conn *c)
{
    auth_job_cancel (c->job);
    ev_io_stop (c->loop, &c->rw);
    ev_io_stop (c->loop, &c->ww);
    ev_timer_stop (c->loop, &c->linger);
    ev_timer_stop (c->loop, &c->auth_w);
    ev_timer_stop (c->loop, &c->frame_w);
    if (c->guarded && c->guard.freed)
        c->guard.freed (c, c->guard.arg);
    if (c->fd >= 0)
        close (c->fd);
    free (c->in);
    free (c->out);
    free (c->hello);
    free (c->io_key);
    free (c->ticket);
    session_clear (&c->sess);
    free (c);
}

/* Stop all I/O now; the struct lives on until the callbacks unwind. */
static void conn_shutdown (struct conn *c)
{
    auth_job_cancel (c->job);
    c->job = NULL;
    ev_io_stop (c->loop, &c->rw);
    ev_io_stop (c->loop, &c->ww);
    ev_timer_stop (c->loop, &c->linger);
    ev_timer_stop (c->loop, &c->auth_w);
    ev_timer_stop (c->loop, &c->frame_w);
    c->destroyed = true;
}

void conn_enter (struct conn *c)
{
    c->depth++;
}

void conn_leave (struct conn *c)
{
    if (--c->depth == 0 && c->destroyed)
        conn_free (c);
}

/* Close with an error: ops->closed, then destroyed. Called only from the
 * conn's own watcher callbacks (depth > 0), so the free waits for them. */
void conn_fail (struct conn *c, const arbor_error_t *err)
{
    if (c->destroyed)
        return;
    conn_shutdown (c);
    if (c->ops->closed)
        c->ops->closed (c, err, c->arg);
    conn_wait_lost (c, err); /* the owner knows first, then its requests */
}

void conn_failf (struct conn *c, const char *fmt, ...)
{
    arbor_error_t err;
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (err.text, sizeof (err.text), fmt, ap);
    va_end (ap);
    conn_fail (c, &err);
}

/* ---- output -------------------------------------------------------------- */

/* Write what is queued. 0 (maybe with data left), or -1 with errno. */
static int out_flush (struct conn *c)
{
    while (c->out_len > 0) {
        ssize_t n =
            send (c->fd, c->out + c->out_head, c->out_len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return -1;
        }
        c->out_head += (size_t)n;
        c->out_len -= (size_t)n;
    }
    c->out_head = 0;
    return 0;
}

/* Everything queued is written: send our FIN and wait (a bounded time)
 * for the peer's. */
static void conn_half_close (struct conn *c)
{
    c->shut_wr = true;
    if (c->peer_eof || shutdown (c->fd, SHUT_WR) < 0) {
        conn_failf (c, "closed");
        return;
    }
    ev_timer_start (c->loop, &c->linger);
}

static void linger_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct conn *c = w->data;

    conn_enter (c);
    conn_failf (c, "closed");
    conn_leave (c);
}

static void auth_timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct conn *c = w->data;
    arbor_error_t err;

    conn_enter (c);
    if (c->denied) { /* refused, and it sent nothing to be answered */
        conn_failf (c, "%s", c->deny_text);
        conn_leave (c);
        return;
    }
    errprintf (&err, "no authenticated frame within %.0f s",
               c->guard.auth_timeout);
    conn_refuse (c, &err);
    conn_leave (c);
}

static void frame_timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct conn *c = w->data;
    arbor_error_t err;

    conn_enter (c);
    errprintf (&err, "frame not completed within %.0f s (slow peer)",
               c->guard.frame_timeout);
    conn_refuse (c, &err);
    conn_leave (c);
}

static void write_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct conn *c = w->data;

    conn_enter (c);
    if (c->held)
        ev_io_stop (c->loop, &c->ww); /* hello_minted_cb restarts it */
    else if (out_flush (c) < 0)
        conn_failf (c, "write: %s", strerror (errno));
    else if (c->out_len == 0) {
        ev_io_stop (c->loop, &c->ww);
        if (c->closing)
            conn_half_close (c);
    }
    conn_leave (c);
}

static int out_reserve (struct conn *c, size_t add)
{
    if (c->out_head > 0 && c->out_head + c->out_len + add > c->out_cap) {
        memmove (c->out, c->out + c->out_head, c->out_len);
        c->out_head = 0;
    }
    size_t want = c->out_head + c->out_len + add;
    if (want <= c->out_cap)
        return 0;
    size_t cap = c->out_cap ? c->out_cap : 4096;
    while (cap < want)
        cap *= 2;
    char *p = realloc (c->out, cap);
    if (!p)
        return -1;
    c->out = p;
    c->out_cap = cap;
    return 0;
}

/* Queue iov[] minus the first 'skip' bytes (those already written). */
static int out_append (struct conn *c, const struct iovec *iov, int n,
                       size_t skip, size_t total)
{
    if (out_reserve (c, total - skip) < 0)
        return -1;
    char *dst = c->out + c->out_head + c->out_len;
    for (int i = 0; i < n; i++) {
        size_t len = iov[i].iov_len;
        if (skip >= len) {
            skip -= len;
            continue;
        }
        memcpy (dst, (const char *)iov[i].iov_base + skip, len - skip);
        dst += len - skip;
        skip = 0;
    }
    c->out_len = (size_t)(dst - (c->out + c->out_head));
    return 0;
}

/* Write now if the queue is empty, queue the rest, arm the watcher. */
static int out_send (struct conn *c, struct iovec *iov, int n, size_t total)
{
    size_t done = 0;

    if (c->out_len + total > CONN_MAX_OUTQ) {
        errno = ENOBUFS;
        return -1;
    }
    if (c->out_len == 0 && !c->held) {
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w;
        do {
            w = sendmsg (c->fd, &mh, MSG_NOSIGNAL);
        } while (w < 0 && errno == EINTR);
        /* On a hard error keep the data: the write watcher fires at once,
         * meets the error again and closes the conn from its callback. */
        if (w > 0)
            done = (size_t)w;
    }
    if (done == total)
        return 0;
    if (out_append (c, iov, n, done, total) < 0)
        return -1;
    if (!c->held)
        ev_io_start (c->loop, &c->ww);
    return 0;
}

/* Put 'frame' in front of everything queued, and start writing. */
int conn_out_prepend (struct conn *c, const char *frame, size_t len)
{
    if (out_reserve (c, len) < 0)
        return -1;
    memmove (c->out + c->out_head + len, c->out + c->out_head, c->out_len);
    memcpy (c->out + c->out_head, frame, len);
    c->out_len += len;
    c->held = false;
    ev_io_start (c->loop, &c->ww);
    return 0;
}

/* ---- public -------------------------------------------------------------- */

static struct conn *conn_new (struct ev_loop *loop, int fd,
                              const struct conn_ops *ops, void *arg)
{
    struct conn *c;
    int one = 1;

    if (!(c = calloc (1, sizeof (*c))))
        return NULL;
    c->loop = loop;
    c->fd = fd;
    c->ops = ops;
    c->arg = arg;
    if (fd_set_nonblock (fd, 1) < 0 || fd_set_cloexec (fd) < 0) {
        int e = errno;
        free (c);
        errno = e;
        return NULL;
    }
    /* Frames are small and latency-bound; fails harmlessly on unix. */
    setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
    net_peer_name (fd, c->peer, sizeof (c->peer));
    ev_io_init (&c->rw, conn_read_cb, fd, EV_READ);
    ev_io_init (&c->ww, write_cb, fd, EV_WRITE);
    c->rw.data = c;
    c->ww.data = c;
    ev_timer_init (&c->linger, linger_cb, CONN_LINGER, 0.);
    c->linger.data = c;
    ev_init (&c->auth_w, auth_timeout_cb);
    c->auth_w.data = c;
    ev_init (&c->frame_w, frame_timeout_cb);
    c->frame_w.data = c;
    c->last_rx = ev_now (loop);
    return c;
}

struct conn *conn_create_unix (struct ev_loop *loop, int fd,
                               const struct conn_ops *ops, void *arg)
{
    struct conn *c;
    uid_t uid;
    gid_t gid;

    if (!loop || fd < 0 || !ops || !ops->frame) {
        errno = EINVAL;
        return NULL;
    }
    if (net_peer_cred (fd, &uid, &gid, NULL) < 0
        || !(c = conn_new (loop, fd, ops, arg)))
        return NULL;
    c->auth.mode = CONN_AUTH_PEERCRED;
    c->peer_uid = uid;
    c->peer_gid = gid;
    c->keyed = true;
    ev_io_start (loop, &c->rw);
    return c;
}

static bool conn_auth_valid (const struct conn_auth *a)
{
    if (a->mode == CONN_AUTH_MUNGE)
        return a->pool != NULL || (!a->initiator && a->open_ticket);
    return a->mode == CONN_AUTH_STEPKEY && a->io_key != NULL;
}

struct conn *conn_create (struct ev_loop *loop, int fd,
                          const struct conn_auth *auth,
                          const struct conn_ops *ops, void *arg)
{
    struct conn *c;
    int rc = 0;

    if (!loop || fd < 0 || !ops || !ops->frame || !auth
        || !conn_auth_valid (auth)) {
        errno = EINVAL;
        return NULL;
    }
    if (!(c = conn_new (loop, fd, ops, arg)))
        return NULL;
    c->auth = *auth;
    c->auth.io_key = NULL;
    c->auth.ticket = NULL;
    if ((auth->io_key && !(c->io_key = strdup (auth->io_key)))
        || (auth->ticket && !(c->ticket = strdup (auth->ticket))))
        rc = -1;
    else if (auth->initiator)
        rc = conn_hello_start (c);
    if (rc < 0) {
        int e = errno;
        c->fd = -1; /* the caller keeps its fd on failure */
        conn_free (c);
        errno = e;
        return NULL;
    }
    ev_io_start (loop, &c->rw);
    return c;
}

void conn_destroy (struct conn *c)
{
    int saved = errno;

    if (!c)
        return;
    if (c->waiters) {
        arbor_error_t err;
        errprintf (&err, "connection closed");
        conn_wait_lost (c, &err);
    }
    if (c->depth > 0) {
        if (!c->destroyed) {
            conn_shutdown (c);
            close (c->fd); /* the peer sees EOF now, not after unwinding */
            c->fd = -1;
        }
    } else {
        conn_free (c);
    }
    errno = saved;
}

void conn_close_after_flush (struct conn *c)
{
    if (!c || c->destroyed || c->closing)
        return;
    c->closing = true; /* reads now drain and drop, see conn_read */
    /* Even with nothing queued, close from the write callback so that
     * ops->closed never runs inside the caller's own call. */
    ev_io_start (c->loop, &c->ww);
}

int conn_send_body (struct conn *c, int type, uint32_t matchtag, int flags,
                    const char *body, size_t blen)
{
    unsigned char hdr[PROTO_HEADER_SIZE];
    unsigned char trailer[SESSION_TRAILER];
    bool sealed;

    if (!c || type <= 0 || type > UINT16_MAX) {
        errno = EINVAL;
        return -1;
    }
    if (c->destroyed || c->closing) {
        errno = EPIPE;
        return -1;
    }
    sealed = c->auth.mode != CONN_AUTH_PEERCRED;
    session_frame_head (sealed ? &c->sess : NULL, type, matchtag, flags, body,
                        blen, hdr, trailer);
    struct iovec iov[3] = {
        { hdr, sizeof (hdr) },
        { trailer, sealed ? sizeof (trailer) : 0 },
        { (void *)body, blen },
    };
    return out_send (c, iov, 3, sizeof (hdr) + iov[1].iov_len + blen);
}

int conn_send (struct conn *c, int type, uint32_t matchtag, int flags,
               const void *msg)
{
    char *body;
    size_t blen;

    if (!c || c->destroyed || c->closing) { /* nothing to encode for */
        errno = c ? EPIPE : EINVAL;
        return -1;
    }
    if (proto_encode (type, msg, &body, &blen) < 0)
        return -1;
    int rc = conn_send_body (c, type, matchtag, flags, body, blen);
    int saved = errno;
    free (body);
    errno = saved;
    return rc;
}

int conn_send_rc (struct conn *c, uint32_t matchtag, int errnum,
                  const char *fmt, ...)
{
    char text[1024] = "";
    struct msg_rc rc = { .errnum = errnum, .text = text };

    if (fmt) {
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (text, sizeof (text), fmt, ap);
        va_end (ap);
    }
    return conn_send (c, MSG_RC, matchtag, FRAME_F_RESPONSE, &rc);
}

void conn_set_arg (struct conn *c, void *arg)
{
    c->arg = arg;
}

void *conn_get_arg (const struct conn *c)
{
    return c->arg;
}

const char *conn_peer (const struct conn *c)
{
    return c->peer;
}

int conn_fd (const struct conn *c)
{
    return c->fd;
}

struct ev_loop *conn_loop (const struct conn *c)
{
    return c->loop;
}

void conn_set_guard (struct conn *c, const struct conn_guard *g)
{
    ev_timer_stop (c->loop, &c->auth_w);
    ev_timer_stop (c->loop, &c->frame_w);
    c->guarded = g != NULL;
    if (!g)
        return;
    c->guard = *g;
    if (!c->authenticated && g->auth_timeout > 0) {
        ev_timer_set (&c->auth_w, g->auth_timeout, 0.);
        ev_timer_start (c->loop, &c->auth_w);
    }
    ev_timer_set (&c->frame_w,
                  g->frame_timeout > 0 ? g->frame_timeout : CONN_FRAME_TIMEOUT,
                  0.);
    conn_frame_timer_update (c);
}

int conn_seal_secret (const struct conn *c, const void *in, size_t len,
                      unsigned char **out, size_t *outlen)
{
    if (!c->keyed)
        return 0;
    if (!(*out = malloc (len + SESSION_SEAL_OVERHEAD)))
        return -1;
    if (session_seal_secret (&c->sess, in, len, *out) < 0) {
        free (*out);
        *out = NULL;
        return -1;
    }
    *outlen = len + SESSION_SEAL_OVERHEAD;
    return 1;
}

bool conn_step_scope (const struct conn *c, uint32_t *job_id, uint32_t *step_id)
{
    if (!c->scoped)
        return false;
    *job_id = c->scope_job;
    *step_id = c->scope_step;
    return true;
}

bool conn_authenticated (const struct conn *c)
{
    return c->authenticated;
}

bool conn_refused (const struct conn *c)
{
    return c->refused;
}

size_t conn_outq_len (const struct conn *c)
{
    return c->out_len;
}

uid_t conn_peer_uid (const struct conn *c)
{
    return c->keyed && !c->verifying ? c->peer_uid : (uid_t)-1;
}

bool conn_hello_pending (const struct conn *c)
{
    return !c->authenticated && !c->verifying && !c->destroyed;
}

bool conn_idle (const struct conn *c, double now, double secs)
{
    return !c->destroyed && !c->closing && !c->verifying && c->in_len == 0
           && c->out_len == 0 && now - c->last_rx >= secs;
}

/* ---- refusing an authenticated peer -------------------------------------- */

static void deny_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    if ((f->flags & FRAME_F_RESPONSE) || c->closing)
        return;
    conn_send_rc (c, f->matchtag, c->deny_errnum, "%s", c->deny_text);
    conn_close_after_flush (c);
}

static void deny_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    if (c->denied_ops->closed)
        c->denied_ops->closed (c, err, arg);
}

static const struct conn_ops deny_ops = {
    .frame = deny_frame_cb,
    .closed = deny_closed_cb,
};

void conn_deny (struct conn *c, int errnum, const char *text)
{
    if (c->denied || c->destroyed)
        return;
    c->denied = true;
    c->denied_ops = c->ops;
    c->ops = &deny_ops;
    c->deny_errnum = errnum;
    snprintf (c->deny_text, sizeof (c->deny_text), "%s", text);
    ev_timer_stop (c->loop, &c->auth_w);
    ev_timer_set (&c->auth_w, CONN_DENY_LINGER, 0.);
    ev_timer_start (c->loop, &c->auth_w);
}

void conn_evict (struct conn *c, const char *why)
{
    conn_enter (c);
    conn_failf (c, "%s", why);
    conn_leave (c);
}
