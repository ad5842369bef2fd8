/* request_conn.h - requests on a connection the caller holds
 * (request_conn.c).
 *
 * A stepd asks its noded over fd 0, a launcher asks node zero over the
 * connection that also carries its I/O: the connection is the owner's,
 * it also carries frames the owner handles itself, and more than one
 * request may be in flight on it. request_conn sends the message with a
 * matchtag the conn hands out (conn_wait.h); the conn routes the answer
 * (FRAME_F_RESPONSE and that tag) to the request, every other frame to
 * the owner's ops->frame as before.
 *
 * The contract is request.h's (callback exactly once unless cancelled,
 * never from inside the starting call; the answer borrowed for the
 * callback; opts.timeout, opts.resp_type and opts.retry as there;
 * opts.peers, peer_uid and flags unused). A conn that closes or is
 * destroyed with the request pending completes it with REQUEST_CLOSED,
 * from the loop, after ops->closed has run (or retries it, opts.retry).
 */
#ifndef ARBOR_REQUEST_CONN_H
#define ARBOR_REQUEST_CONN_H

#include "request.h"

struct conn;

/* Start 'type'/'msg' (copied) on c. NULL with errno (EINVAL, ENOMEM)
 * when nothing was started; a conn already closing is reported through
 * the callback (REQUEST_UNREACHED, EPIPE). */
struct request *request_conn (struct conn *c, int type, const void *msg,
                              const struct request_opts *opts, request_f cb,
                              void *arg);

/* The same on whatever conn *cp holds when each attempt starts: the
 * owner's variable for a link that may be replaced (a stepd's noded
 * connection, after a noded restart). *cp NULL: that attempt fails
 * REQUEST_UNREACHED, ENOTCONN (and is retried, opts.retry). cp is
 * borrowed and must outlive the request. */
struct request *request_conn_follow (struct ev_loop *loop,
                                     struct conn *const *cp, int type,
                                     const void *msg,
                                     const struct request_opts *opts,
                                     request_f cb, void *arg);

#endif
