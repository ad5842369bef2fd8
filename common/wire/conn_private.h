/* conn_private.h - struct conn, which conn.c, conn_in.c, conn_hello.c
 * and conn_wait.c share, and the internal calls of conn.c (a connection's
 * life and output). conn_in.h and conn_hello.h list the internal calls
 * of the input and the session handshake. Nothing outside those files
 * includes them.
 */
#ifndef ARBOR_CONN_PRIVATE_H
#define ARBOR_CONN_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "conn.h"
#include "conn_wait.h"
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

    struct conn_waiter *waiters; /* answers awaited (conn_wait.c) */
    uint32_t next_tag;           /* the next matchtag conn_wait hands out */
};

/* conn.c */
void conn_enter (struct conn *c);
void conn_leave (struct conn *c);
/* Close with an error (ops->closed, then destroyed); from callbacks. */
void conn_failf (struct conn *c, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
/* Tell ops->closed (once) with err, and shut the conn down (conn.c). */
void conn_fail (struct conn *c, const arbor_error_t *err);
/* Put 'frame' in front of everything queued, release held output and
 * start writing. 0, or -1 with errno. */
int conn_out_prepend (struct conn *c, const char *frame, size_t len);

#endif
