/* conn.h - framed, authenticated, non-blocking connections on a libev loop.
 *
 * A conn owns an fd. It reads frames, checks each header and token (munge
 * on TCP; SO_PEERCRED on unix sockets, where tokens are empty) and hands
 * every complete, authenticated frame to ops->frame. Output is queued and
 * flushed when the fd is writable; the queue is bounded (CONN_MAX_OUTQ) so
 * a peer that stops reading is disconnected rather than growing without
 * limit. A protocol error (bad magic, other major, oversize, bad token)
 * logs nothing here: ops->closed receives the error text and the conn is
 * closed.
 *
 * conn_destroy() may be called from inside a callback: the free is
 * deferred until the callback returns (as redis does).
 */
#ifndef ARBOR_CONN_H
#define ARBOR_CONN_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "error.h"

#define CONN_MAX_OUTQ (64u << 20)

struct auth;
struct conn;

/* A received frame. body is borrowed for the duration of the callback. */
struct frame {
    int type;
    int flags;
    uint32_t matchtag;
    uid_t uid; /* authenticated sender */
    gid_t gid;
    const char *body;
    size_t body_len;
};

struct conn_ops {
    /* A complete, authenticated frame arrived. */
    void (*frame) (struct conn *c, const struct frame *f, void *arg);
    /* The peer closed, or an error closed the conn (err says which). After
     * this returns the conn is destroyed; do not use it again. */
    void (*closed) (struct conn *c, const arbor_error_t *err, void *arg);
};

enum conn_auth_mode {
    CONN_AUTH_MUNGE,    /* TCP: every frame carries a munge token */
    CONN_AUTH_PEERCRED, /* unix socket / socketpair: kernel credentials */
};

/* Wrap a connected fd (made non-blocking here). 'auth' is borrowed and must
 * outlive the conn (may be NULL for CONN_AUTH_PEERCRED). NULL with errno. */
struct conn *conn_create (struct ev_loop *loop, int fd,
                          enum conn_auth_mode mode, struct auth *auth,
                          const struct conn_ops *ops, void *arg);
/* Close now (queued output is dropped); safe inside callbacks. ops->closed
 * is NOT called. NULL is accepted. */
void conn_destroy (struct conn *c);
/* Flush queued output, then close (ops->closed is called). */
void conn_close_after_flush (struct conn *c);

/* Queue a message. Returns 0, or -1 with errno (ENOMEM, EPERM if minting
 * the token failed, ENOBUFS if the output queue is full). */
int conn_send (struct conn *c, int type, uint32_t matchtag, int flags,
               const void *msg);
/* Answer a request with MSG_RC (FRAME_F_RESPONSE set). */
int conn_send_rc (struct conn *c, uint32_t matchtag, int errnum,
                  const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

void conn_set_arg (struct conn *c, void *arg);
void *conn_get_arg (const struct conn *c);
/* "127.0.1.3:34567" or "unix". Borrowed. */
const char *conn_peer (const struct conn *c);
int conn_fd (const struct conn *c);
/* Server-side rules for a conn accepted from a peer not yet known
 * (common/listen.c sets them on every conn it accepts):
 *   auth_timeout   seconds to deliver a first authenticated frame, else
 *                  the conn is closed as refused (0: no limit);
 *   frame_timeout  seconds any started frame has to complete, else closed
 *                  as refused (0: CONN_FRAME_TIMEOUT);
 *   authenticated  called once, at the first authenticated frame;
 *   freed          called when the conn is freed (its fd is closed).
 * Until the token of a frame has authenticated its sender, a conn holds at
 * most its header and token (PROTO_HEADER_SIZE + PROTO_MAX_TOKEN), never
 * the body size the header announces; this holds for every conn, guarded
 * or not. NULL removes the guard (the callbacks are not called again). */
#define CONN_FRAME_TIMEOUT 60.0
struct conn_guard {
    double auth_timeout;
    double frame_timeout;
    void (*authenticated) (struct conn *c, void *arg);
    void (*freed) (struct conn *c, void *arg);
    void *arg;
};
void conn_set_guard (struct conn *c, const struct conn_guard *g);
/* Has a whole authenticated frame arrived on this conn? */
bool conn_authenticated (const struct conn *c);

/* Inside ops->closed: true when the conn was closed because the peer broke
 * the rules (bad magic or version, oversize frame, missing, forged or
 * replayed token, idle or slow peer, a limit): a security event the daemon
 * reports with log_security(), as opposed to an ordinary close or I/O
 * error. */
bool conn_refused (const struct conn *c);
size_t conn_outq_len (const struct conn *c);

#endif
