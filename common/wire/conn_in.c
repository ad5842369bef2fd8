/* conn_in.c - a connection's input: one buffer that grows to hold the
 * largest frame the header allows (PROTO_HEADER_SIZE + SESSION_TRAILER +
 * PROTO_MAX_BODY) and shrinks back after a big one. Every read is
 * followed by a pass over the complete frames in the buffer: header
 * checked, MAC and sequence checked (or nothing on a unix socket whose
 * SO_PEERCRED was read at create), then ops->frame with the body borrowed
 * from the buffer, no copy. A peer that sends too slowly or too much is
 * refused here (conn_refuse). See conn.c for the rest of a connection's
 * life; conn_private.h is what the files share.
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

#define CONN_IN_INIT (16u << 10)  /* first input buffer */
#define CONN_IN_KEEP (256u << 10) /* shrink back to this after big frames */
#define CONN_MAX_FRAME (PROTO_HEADER_SIZE + SESSION_TRAILER + PROTO_MAX_BODY)

static int in_reserve (struct conn *c, size_t want)
{
    if (want <= c->in_cap)
        return 0;
    size_t cap = c->in_cap ? c->in_cap : CONN_IN_INIT;
    while (cap < want)
        cap *= 2;
    if (cap > CONN_MAX_FRAME)
        cap = CONN_MAX_FRAME;
    if (cap < want) {
        errno = EMSGSIZE;
        return -1;
    }
    char *p = realloc (c->in, cap);
    if (!p)
        return -1;
    c->in = p;
    c->in_cap = cap;
    return 0;
}

void conn_refuse (struct conn *c, const arbor_error_t *err)
{
    c->refused = true;
    conn_fail (c, err);
}

/* First authenticated frame of a guarded conn: it is a known peer now. */
void conn_mark_authenticated (struct conn *c)
{
    if (c->authenticated)
        return;
    c->authenticated = true;
    ev_timer_stop (c->loop, &c->auth_w);
    if (c->guarded && c->guard.authenticated)
        c->guard.authenticated (c, c->guard.arg);
}

/* What a header may announce here: a token area of the conn's kind, a
 * CONN_HELLO first (and only first), a small one until the peer is
 * authenticated. */
static int frame_header_check (struct conn *c, const struct frame_header *h,
                               arbor_error_t *err)
{
    size_t total = PROTO_HEADER_SIZE + (size_t)h->token_len + h->body_len;

    errno = EPERM;
    if (c->auth.mode == CONN_AUTH_PEERCRED)
        return h->token_len == 0
                   ? 0
                   : errprintf (err, "unexpected token on a unix socket");
    if (h->token_len != SESSION_TRAILER)
        return errprintf (err, "frame without a session MAC (%u-byte token)",
                          h->token_len);
    if (c->keyed)
        return h->type == MSG_CONN_HELLO
                   ? errprintf (err, "CONN_HELLO on an open session")
                   : 0;
    if (h->type != MSG_CONN_HELLO)
        return errprintf (err, "first frame is %s, not CONN_HELLO",
                          proto_msg_name (h->type) ? proto_msg_name (h->type)
                                                   : "of an unknown type");
    if (total > CONN_HELLO_MAX)
        return errprintf (err, "CONN_HELLO of %zu bytes exceeds %u", total,
                          (unsigned)CONN_HELLO_MAX);
    return 0;
}

/* A whole frame of an open session: check its MAC and place. */
static int frame_open (struct conn *c, const unsigned char *p,
                       const struct frame_header *h, struct frame *f,
                       arbor_error_t *err)
{
    f->uid = c->peer_uid;
    f->gid = c->peer_gid;
    if (c->auth.mode == CONN_AUTH_PEERCRED)
        return 0;
    return session_open (&c->sess, p, p + PROTO_HEADER_SIZE, f->body,
                         f->body_len, err);
}

/* Deliver the complete frames at the start of the buffer; returns the
 * number of bytes consumed, or -1 if the conn failed. */
static ssize_t deliver_frames (struct conn *c)
{
    size_t pos = 0;

    while (!c->destroyed && !c->closing && !c->verifying
           && c->in_len - pos >= PROTO_HEADER_SIZE) {
        const unsigned char *p = (const unsigned char *)c->in + pos;
        struct frame_header h;
        arbor_error_t err;

        if (frame_header_unpack (p, &h, &err) < 0
            || frame_header_check (c, &h, &err) < 0) {
            conn_refuse (c, &err);
            return -1;
        }
        size_t head = PROTO_HEADER_SIZE + (size_t)h.token_len;
        if (c->in_len - pos < head + h.body_len)
            break;
        if (!c->keyed) {
            if (conn_hello_receive (c, p, &h, &err) < 0) {
                conn_refuse (c, &err);
                return -1;
            }
            pos += head + h.body_len;
            continue;
        }
        struct frame f = {
            .type = h.type,
            .flags = h.flags,
            .matchtag = h.matchtag,
            .body = (const char *)p + head,
            .body_len = h.body_len,
        };
        if (frame_open (c, p, &h, &f, &err) < 0) {
            conn_refuse (c, &err);
            return -1;
        }
        pos += head + h.body_len;
        conn_mark_authenticated (c);
        if (!conn_wait_route (c, &f)) /* an answer to a request of ours? */
            c->ops->frame (c, &f, c->arg);
    }
    return (ssize_t)pos;
}

/* Guarded conns: a frame that has started must complete within
 * guard.frame_timeout (a slow or stalled peer cannot hold a buffer). */
void conn_frame_timer_update (struct conn *c)
{
    if (!c->guarded || c->destroyed)
        return;
    if (c->in_len == 0)
        ev_timer_stop (c->loop, &c->frame_w);
    else if (!ev_is_active (&c->frame_w))
        ev_timer_start (c->loop, &c->frame_w);
}

/* After delivering: drop consumed bytes and make room for the frame that
 * is partly received: all of it once the session is open; before that,
 * no more than a CONN_HELLO may hold (deliver_frames refuses a header
 * that announces more). */
static int in_compact (struct conn *c, size_t pos)
{
    if (pos > 0) {
        memmove (c->in, c->in + pos, c->in_len - pos);
        c->in_len -= pos;
    }
    conn_frame_timer_update (c);
    if (c->in_len >= PROTO_HEADER_SIZE) {
        struct frame_header h;
        if (frame_header_unpack ((unsigned char *)c->in, &h, NULL) == 0) {
            size_t want = PROTO_HEADER_SIZE + (size_t)h.token_len + h.body_len;
            if (!c->keyed && want > CONN_HELLO_MAX)
                want = CONN_HELLO_MAX;
            return in_reserve (c, want);
        }
    }
    if (c->in_cap > CONN_IN_KEEP && c->in_len <= CONN_IN_KEEP / 2) {
        char *p = realloc (c->in, CONN_IN_KEEP);
        if (p) {
            c->in = p;
            c->in_cap = CONN_IN_KEEP;
        }
    }
    return 0;
}

/* Closing: input is read and dropped until the peer's EOF. Closing a
 * socket with unread input makes the kernel send a reset, which would
 * destroy output the peer has not read yet (the tail of a step's output
 * racing a late stdin frame), so a closing conn half-closes, drains and
 * only then closes. */
static void conn_read_discard (struct conn *c)
{
    char buf[4096];
    ssize_t n = read (c->fd, buf, sizeof (buf));

    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
        return;
    c->peer_eof = true;
    ev_io_stop (c->loop, &c->rw);
    if (c->shut_wr)
        conn_failf (c, "closed");
}

/* The buffer is full but its head frame is not complete: in_compact
 * reserved all that frame may hold, so only a buffer whose head header
 * is incomplete, or that holds several frames, gets here. Grow within the
 * frame limit. */
static int conn_in_grow (struct conn *c)
{
    if (in_reserve (c, c->in_cap + 1) < 0) {
        conn_failf (c, "input buffer: %s", strerror (errno));
        return -1;
    }
    return 0;
}

static void conn_read (struct conn *c)
{
    if (c->closing) {
        conn_read_discard (c);
        return;
    }
    if (c->in_len == c->in_cap && conn_in_grow (c) < 0)
        return;
    ssize_t n = read (c->fd, c->in + c->in_len, c->in_cap - c->in_len);
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            conn_failf (c, "read: %s", strerror (errno));
        return;
    }
    if (n == 0) {
        conn_failf (c, c->in_len ? "connection closed inside a frame"
                                 : "connection closed by peer");
        return;
    }
    c->in_len += (size_t)n;
    c->last_rx = ev_now (c->loop);
    conn_deliver (c);
}

void conn_deliver (struct conn *c)
{
    ssize_t pos = deliver_frames (c);

    if (pos < 0 || c->destroyed)
        return;
    if (in_compact (c, (size_t)pos) < 0)
        conn_failf (c, "input buffer: %s", strerror (errno));
}

void conn_read_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct conn *c = w->data;

    conn_enter (c);
    conn_read (c);
    conn_leave (c);
}
