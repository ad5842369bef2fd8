/* rpc.h - request dispatch for daemons, and blocking calls for commands.
 *
 * Daemons declare a table
 *     static const struct rpc_handler handlers[] = {
 *         { MSG_NODE_REGISTER, rpc_node_register_cb, RPC_PRIV },
 *         { MSG_JOB_ALLOC, rpc_job_alloc_cb, RPC_ANY },
 *         { 0, NULL, 0 },
 *     };
 * and call rpc_dispatch() from their conn frame callback. rpc_dispatch
 * finds the handler, checks the sender's role in one place, decodes the
 * body and calls the handler with the decoded message (cleared after the
 * handler returns, so a handler that keeps data copies or steals it by
 * setting fields to NULL). Unknown types, refused roles and malformed
 * bodies are answered with MSG_RC (EPROTO / EPERM) and reported to the
 * daemon through the return value and err.
 */
#ifndef ARBOR_RPC_H
#define ARBOR_RPC_H

#include <stdint.h>
#include <sys/types.h>
#include "conn.h"
#include "error.h"
#include "proto.h"
#include "session.h"

struct auth;

enum rpc_role {
    RPC_ANY = 0,  /* any authenticated user */
    RPC_PRIV = 1, /* root or ArborUser only */
};

typedef void (*rpc_handler_f) (struct conn *c, const struct frame *f, void *msg,
                               void *arg);

struct rpc_handler {
    int type;
    rpc_handler_f cb;
    enum rpc_role role;
};

/* Returns 0 if a handler ran, -1 with err (already answered to the peer
 * with MSG_RC when the frame was a request) otherwise. priv_uid is the
 * ArborUser uid; root is always privileged. */
int rpc_dispatch (const struct rpc_handler *tab, struct conn *c,
                  const struct frame *f, uid_t priv_uid, void *arg,
                  arbor_error_t *err);

/* ---- blocking client side (commands, and short daemon calls) ---------- */

/* A blocking connection: the fd and, over TCP, its session. */
struct rpc_chan {
    int fd;
    bool tcp;
    uid_t peer_uid; /* TCP: the daemon's uid; unix: SO_PEERCRED's */
    struct session sess;
};

/* Dial host:port and open a session with the daemon that runs as
 * 'peer_uid' (its HELLO's munge token is made here, blocking). 0, or -1
 * with errno and err (ch->fd is then -1). */
int rpc_open (struct rpc_chan *ch, struct auth *a, const char *host,
              uint16_t port, uid_t peer_uid, int timeout_ms,
              arbor_error_t *err);
/* A channel on a connected unix socket (frames carry no token). */
void rpc_chan_unix (struct rpc_chan *ch, int fd);
/* Close the fd and wipe the session. */
void rpc_close (struct rpc_chan *ch);

/* Send one frame. 0 / -1 + err. */
int rpc_send (struct rpc_chan *ch, int type, uint32_t matchtag, const void *msg,
              arbor_error_t *err);
/* Send the answer to the request of 'matchtag' (FRAME_F_RESPONSE). */
int rpc_reply (struct rpc_chan *ch, int type, uint32_t matchtag,
               const void *msg, arbor_error_t *err);
/* rpc_send, for a frame the caller follows at once with another
 * rpc_send: the kernel may hold it for that one (MSG_MORE), so the two go
 * out together and the daemon wakes once for both. */
int rpc_send_more (struct rpc_chan *ch, int type, uint32_t matchtag,
                   const void *msg, arbor_error_t *err);

/* Receive one frame, waiting at most timeout_ms (<= 0: no limit). On
 * success *type is set and msg (a union msg_any) decoded; the caller
 * proto_clear()s it. *uid is the authenticated sender. -1 with errno
 * (ETIMEDOUT, ECONNRESET, EPROTO, EPERM) and err. */
int rpc_recv (struct rpc_chan *ch, int timeout_ms, int *type,
              union msg_any *msg, uid_t *uid, arbor_error_t *err);

/* rpc_recv(), also giving the frame's matchtag and flags (either may be
 * NULL), so a client can tell the answer to its request from a message
 * the peer sent on its own. */
int rpc_recv_tagged (struct rpc_chan *ch, int timeout_ms, int *type,
                     uint32_t *matchtag, uint16_t *flags, union msg_any *msg,
                     uid_t *uid, arbor_error_t *err);

/* Open, send 'req', read one answer, close. If the answer is MSG_RC with
 * errnum != 0, returns -1 with errno = errnum and err = its text. If it is
 * 'resp_type', decodes into 'resp' (caller clears) and returns 0. A plain
 * success MSG_RC is accepted when resp_type is MSG_RC. */
int rpc_call (struct auth *a, const char *host, uint16_t port, uid_t peer_uid,
              int req_type, const void *req, int resp_type, void *resp,
              int timeout_ms, arbor_error_t *err);
/* The same over the unix socket 'path' (the daemon knows us by
 * SO_PEERCRED; frames carry no token). */
int rpc_call_unix (const char *path, int req_type, const void *req,
                   int resp_type, void *resp, int timeout_ms,
                   arbor_error_t *err);

#endif
