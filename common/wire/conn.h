/* conn.h - framed, authenticated, non-blocking connections on a libev loop.
 *
 * A conn owns an fd. It reads frames, checks each header and MAC (TCP: a
 * session opened by the first frame, see session.h; unix sockets:
 * SO_PEERCRED, no token) and hands every complete, authenticated frame
 * to ops->frame. Output is queued and
 * flushed when the fd is writable; the queue is bounded (CONN_MAX_OUTQ) so
 * a peer that stops reading is disconnected rather than growing without
 * limit. A protocol error (bad magic, other major, oversize, bad MAC)
 * logs nothing here: ops->closed receives the error text and the conn is
 * closed.
 *
 * conn_destroy() may be called from inside a callback: the free is
 * deferred until the callback returns (as redis does).
 *
 * This is the interface of one module in four files, split for size:
 * conn.c (the record, output, closing), conn_in.c (reading and
 * delivering frames), conn_hello.c (the opening HELLO and its ticket:
 * conn_ticket_retry), conn_wait.c (answers routed to requests). Their
 * calls to each other are in conn_private.h, conn_in.h, conn_hello.h and
 * conn_wait.h.
 */
#ifndef ARBOR_CONN_H
#define ARBOR_CONN_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "error.h"
#include "proto.h"

#define CONN_MAX_OUTQ (64u << 20)
/* The largest CONN_HELLO frame a responder accepts. */
#define CONN_HELLO_MAX (PROTO_HEADER_SIZE + 64 + PROTO_MAX_TOKEN + 256)

struct auth_pool;
struct conn;

/* A received frame. body is borrowed for the duration of the callback. */
struct frame {
    int type;
    int flags;
    uint32_t matchtag;
    uid_t uid; /* authenticated sender: SO_PEERCRED, the munge token's
                * minter, or (initiator) the uid the token was restricted
                * to; (uid_t)-1 on a STEPKEY conn (the step key, not a
                * uid, is what the peer proved) */
    gid_t gid; /* (gid_t)-1 when not known */
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
    CONN_AUTH_PEERCRED, /* unix socket / socketpair: kernel credentials */
    CONN_AUTH_MUNGE,    /* TCP: a session keyed by a munge token */
    CONN_AUTH_STEPKEY,  /* TCP: a stepd's I/O connection, keyed by the
                         * step's I/O key */
};

/* What a launch ticket (STEP_CREATED) says, opened by its node zero. */
struct conn_ticket {
    uint32_t job_id, step_id;
    uid_t uid;
    gid_t gid;
    char io_key[128];
};
/* Open 'ticket' (a credential valid on this node alone) for conn 'c': 0
 * with *t filled, or -1 with err saying why not; -1 with errno EAGAIN
 * when tickets cannot be opened yet (no credential key): the HELLO is
 * then kept, 'c' stops reading, and the owner calls conn_ticket_retry
 * (c) once they can (the listener's authentication timeout bounds the
 * wait). */
struct conn;
typedef int (*conn_ticket_f) (struct conn *c, const char *ticket,
                              struct conn_ticket *t, arbor_error_t *err,
                              void *arg);

/* How a TCP conn authenticates (session.h has the protocol). */
struct conn_auth {
    enum conn_auth_mode mode;  /* CONN_AUTH_MUNGE or CONN_AUTH_STEPKEY */
    bool initiator;            /* we dialled: we send CONN_HELLO */
    struct auth_pool *pool;    /* MUNGE: where munge calls run (NULL on
                                * a responder with open_ticket: it takes
                                * launch tickets alone) */
    uid_t peer_uid;            /* MUNGE initiator: the receiving daemon's
                                * uid, the only one its token opens for */
    const char *io_key;        /* STEPKEY: the step's I/O key (copied) */
    uint32_t job_id;           /* STEPKEY: the step (the responder accepts */
    uint32_t step_id;          /*   only this one) */
    const char *ticket;        /* STEPKEY initiator: the step's launch
                                * ticket (copied): the HELLO carries it and
                                * the key is the launch key (a launcher to
                                * its node zero) */
    conn_ticket_f open_ticket; /* MUNGE responder: also take a launcher's
                                * HELLO with a ticket instead of a token;
                                * the conn then serves that step alone
                                * (conn_step_scope). NULL: munge only */
    void *ticket_arg;
};

/* Wrap a connected TCP fd (made non-blocking here). An initiator's
 * frames may be sent at once: they are queued until its CONN_HELLO is
 * ready (a munge encode, off the loop). A responder delivers nothing
 * before the peer's CONN_HELLO has been verified. 'auth' is copied; its
 * pool is borrowed and must outlive the conn. NULL with errno. */
struct conn *conn_create (struct ev_loop *loop, int fd,
                          const struct conn_auth *auth,
                          const struct conn_ops *ops, void *arg);
/* Wrap a unix socket or socketpair fd: frames carry no token, the
 * sender is the kernel's SO_PEERCRED, read here. NULL with errno. */
struct conn *conn_create_unix (struct ev_loop *loop, int fd,
                               const struct conn_ops *ops, void *arg);
/* Close now (queued output is dropped); safe inside callbacks. ops->closed
 * is NOT called. NULL is accepted. */
void conn_destroy (struct conn *c);
/* Flush queued output, then close (ops->closed is called). */
void conn_close_after_flush (struct conn *c);

/* Queue a message. Returns 0, or -1 with errno (ENOMEM, EPIPE if the conn
 * is closing, ENOBUFS if the output queue is full). */
int conn_send (struct conn *c, int type, uint32_t matchtag, int flags,
               const void *msg);
/* Queue a message already encoded (proto_encode) as 'body'; copied. */
int conn_send_body (struct conn *c, int type, uint32_t matchtag, int flags,
                    const char *body, size_t blen);
/* Answer a request with MSG_RC (FRAME_F_RESPONSE set). */
int conn_send_rc (struct conn *c, uint32_t matchtag, int errnum,
                  const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

void conn_set_arg (struct conn *c, void *arg);
void *conn_get_arg (const struct conn *c);
/* "127.0.1.3:34567" or "unix". Borrowed. */
const char *conn_peer (const struct conn *c);
int conn_fd (const struct conn *c);
/* The loop the conn runs on. */
struct ev_loop *conn_loop (const struct conn *c);
/* Server-side rules for a conn accepted from a peer not yet known
 * (common/wire/listen.c sets them on every conn it accepts):
 *   auth_timeout   seconds to deliver a first authenticated frame, else
 *                  the conn is closed as refused (0: no limit);
 *   frame_timeout  seconds any started frame has to complete, else closed
 *                  as refused (0: CONN_FRAME_TIMEOUT);
 *   authenticated  called once, at the first authenticated frame;
 *   freed          called when the conn is freed (its fd is closed).
 * Until CONN_HELLO has authenticated the peer, a conn holds at most that
 * one frame (CONN_HELLO_MAX bytes), never the body size a header
 * announces; this holds for every conn, guarded or not. NULL removes the guard
 * (the callbacks are not called again). */
#define CONN_FRAME_TIMEOUT 60.0
struct conn_guard {
    double auth_timeout;
    double frame_timeout;
    void (*authenticated) (struct conn *c, void *arg);
    void (*freed) (struct conn *c, void *arg);
    void *arg;
};
void conn_set_guard (struct conn *c, const struct conn_guard *g);
/* 'len' bytes for this conn's peer alone (session_seal_secret), into
 * *out (malloc'd, *outlen bytes). 1 when sealed; 0 on a conn without a
 * session (a unix socket, whose peer the kernel names: nothing made); -1
 * with errno. */
int conn_seal_secret (const struct conn *c, const void *in, size_t len,
                      unsigned char **out, size_t *outlen);
/* Open the ticket of a HELLO kept by conn_ticket_f's EAGAIN, again; a
 * conn not waiting is left alone. The conn may be closed (refused) by
 * the time it returns, ops->closed called. */
void conn_ticket_retry (struct conn *c);
/* A conn keyed by a launch ticket: true, with the step it was opened
 * for (its peer is that step's launcher, as the ticket's uid, and may do
 * nothing else on it). */
bool conn_step_scope (const struct conn *c, uint32_t *job_id,
                      uint32_t *step_id);
/* Has a whole authenticated frame arrived on this conn? */
bool conn_authenticated (const struct conn *c);

/* Inside ops->closed: true when the conn was closed because the peer broke
 * the rules (bad magic or version, oversize frame, missing, forged or
 * replayed hello, a bad MAC or sequence, idle or slow peer, a limit): a
 * security event the daemon reports with log_security(), as opposed to an
 * ordinary close or I/O error. */
bool conn_refused (const struct conn *c);
size_t conn_outq_len (const struct conn *c);

/* ---- for the listener's limits (common/wire/listen.c)
 * ------------------------ */

/* The authenticated sender's uid ((uid_t)-1 until known, and on a STEPKEY
 * conn). */
uid_t conn_peer_uid (const struct conn *c);
/* Not authenticated and not even a whole HELLO received (nor one being
 * verified): what the listener may close to make room for a newcomer. */
bool conn_hello_pending (const struct conn *c);
/* Nothing received for 'secs' seconds (as of 'now', the loop's time),
 * nothing half received, nothing queued to send, not closing. */
bool conn_idle (const struct conn *c, double now, double secs);
/* Refuse an authenticated peer with a reason it can print: its next
 * request (already buffered, usually) is answered with MSG_RC 'errnum' and
 * 'text', then the conn closes after the flush; one that sends nothing is
 * closed after CONN_DENY_LINGER s. ops->frame is no longer called;
 * ops->closed is, as usual. Call it before the first frame is delivered
 * (the guard's 'authenticated' callback). */
#define CONN_DENY_LINGER 2.0
void conn_deny (struct conn *c, int errnum, const char *text);
/* Close 'c' now, from outside its own callbacks (the listener making
 * room): ops->closed is called with 'why', then the conn is freed. */
void conn_evict (struct conn *c, const char *why);

#endif
