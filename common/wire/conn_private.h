/* conn_private.h - what conn.c, conn_in.c and conn_hello.c share: struct
 * conn and the internal calls between a connection's life and output
 * (conn.c), its input (conn_in.c) and the session handshake
 * (conn_hello.c). Nothing outside those files includes it.
 */
#ifndef ARBOR_CONN_PRIVATE_H
#define ARBOR_CONN_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "conn.h"
#include "session.h"

struct conn {
    struct ev_loop *loop;
    int fd;
    struct conn_auth auth; /* mode PEERCRED for unix conns */
    char *io_key;          /* STEPKEY: our copy of auth.io_key */
    char *ticket;          /* STEPKEY initiator: our copy of auth.ticket */
    bool scoped;           /* responder: keyed by a launch ticket */
    bool ticket_wait;      /* responder: its HELLO's ticket waits for
                            * conn_ticket_retry (c->hello holds it) */
    uint32_t scope_job, scope_step; /* ... for this step */
    const struct conn_ops *ops;
    void *arg;
    ev_io rw, ww;
    uid_t peer_uid; /* who the frames come from (struct frame's uid) */
    gid_t peer_gid;
    char peer[64];

    struct session sess;
    bool keyed;           /* frames can be sealed and opened */
    bool held;            /* initiator: output waits for the HELLO */
    bool verifying;       /* responder: the HELLO's token is decoding */
    struct auth_job *job; /* the munge encode or decode in progress */
    char *hello;          /* responder: the HELLO frame being verified */
    size_t hello_len;

    char *in; /* in[0 .. in_len) received, not yet delivered */
    size_t in_len, in_cap;
    char *out; /* out[out_head .. out_head + out_len) queued */
    size_t out_head, out_len, out_cap;

    int depth;      /* callbacks in progress */
    bool destroyed; /* free when depth returns to 0 */
    bool closing;   /* conn_close_after_flush() */
    bool shut_wr;   /* closing: our side is flushed and half-closed */
    bool peer_eof;  /* closing: the peer has closed its side */
    bool refused;   /* closed for breaking the protocol's rules */

    bool authenticated; /* a whole authenticated frame was delivered */
    bool guarded;       /* server side: 'guard' applies */
    struct conn_guard guard;
    ev_timer auth_w;   /* guarded: authenticate within guard.auth_timeout */
    ev_timer frame_w;  /* guarded: a started frame must complete in time */
    ev_timer linger;   /* closing: how long to wait for the peer's EOF */
    ev_tstamp last_rx; /* when bytes last arrived (conn_idle) */

    /* conn_deny: the peer's next request is answered with this error and
     * the conn closes; ops is then deny_ops, the daemon's kept here. */
    bool denied;
    const struct conn_ops *denied_ops;
    int deny_errnum;
    char deny_text[256];
};

/* conn.c */
void conn_enter (struct conn *c);
void conn_leave (struct conn *c);
/* Close with an error (ops->closed, then destroyed); from callbacks. */
void conn_failf (struct conn *c, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
/* The same, as a refusal (conn_refused): the peer broke the rules. */
void conn_refuse (struct conn *c, const arbor_error_t *err);
/* Tell ops->closed (once) with err, and shut the conn down (conn.c). */
void conn_fail (struct conn *c, const arbor_error_t *err);
/* conn_in.c: the read watcher's callback, and the slow-peer timer armed
 * while a frame is incomplete (stopped when none is). */
void conn_read_cb (struct ev_loop *loop, ev_io *w, int revents);
void conn_frame_timer_update (struct conn *c);
void conn_mark_authenticated (struct conn *c);
/* Deliver the complete frames buffered, and make room for the next. */
void conn_deliver (struct conn *c);
/* Put 'frame' in front of everything queued, release held output and
 * start writing. 0, or -1 with errno. */
int conn_out_prepend (struct conn *c, const char *frame, size_t len);

/* conn_hello.c */
/* Initiator: start the HELLO (munge: queued to the pool, output held
 * until it is ready; step key: sent at once). 0, or -1 with errno. */
int conn_hello_start (struct conn *c);
/* Responder: the first frame, whole: verify it (step key) or start its
 * token's decode (munge; reading stops until the pool answers). 0, or -1
 * with errno and err (the conn is then refused). */
int conn_hello_receive (struct conn *c, const unsigned char *p,
                        const struct frame_header *h, arbor_error_t *err);

#endif
