/* request.h - one request to a daemon, asynchronously: connect, send one
 * message, match its answer, time out, one completion callback.
 *
 * Every request a daemon makes of another (a noded registering with the
 * ctld, the ctld terminating a job on a noded, a noded forwarding a launch
 * to a child, a noded signalling a stepd) is one struct request, in the
 * spirit of flux-core's flux_rpc() and its future, sized for Arbor:
 *
 *     r = request_tcp (loop, host, port, MSG_JOB_TERMINATE, &m, &opts,
 *                      done_cb, arg);
 *
 * sends the message on the daemon's kept connection to that peer (TCP,
 * peers.h: dialled and authenticated once, reused by every request, each
 * with its own matchtag), or on a connection of its own to a unix socket
 * (SO_PEERCRED, matchtag REQUEST_MATCHTAG), and waits for the frame that
 * answers it: FRAME_F_RESPONSE set and the same matchtag (any other frame
 * is ignored). The answer is MSG_RC, or opts.resp_type. A request that
 * meets a kept conn closing under it (a peer that restarted) is sent once
 * more on a fresh connection if that conn had served earlier exchanges.
 * request_conn.h starts the same on a connection the caller holds.
 *
 * Retry (opts.retry): a request may be an errand that must get through
 * (EPILOG_COMPLETE until the ctld takes it, a registration, a message
 * to another stepd): a failed attempt is given up and the message sent
 * again after a pause, as often as the options allow, and the callback
 * sees only the request's end: its answer, a failure not retried, or the
 * last attempt's failure.
 *
 * Contract:
 *   - The callback runs exactly once per request unless the request is
 *     cancelled first, and never from inside the call that starts it: a
 *     failure found at once (a refused unix connect, an unresolvable
 *     name) is reported from the loop, on its next iteration.
 *   - The request owns a copy of the message (made at start) and its
 *     connection, and frees both, and itself, when the callback returns.
 *     The handle is invalid from the moment the callback starts: owners
 *     forget it there. request_cancel() inside the callback is a no-op.
 *   - request_cancel() before completion frees the request; the callback
 *     is then never called.
 *   - The answer in the result is borrowed for the callback only: copy or
 *     steal what must live on.
 * Libraries never log: what went wrong is in the result, for the caller's
 * log line.
 */
#ifndef ARBOR_REQUEST_H
#define ARBOR_REQUEST_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conn.h"
#include "error.h"

#define REQUEST_MATCHTAG 1u

struct peers;
struct request;

enum request_outcome {
    REQUEST_ANSWERED,   /* errnum 0: msg is resp_type, or MSG_RC 0 */
    REQUEST_REFUSED,    /* MSG_RC errnum != 0 (errnum and text are the
                         * peer's), or MSG_RC 0 when resp_type was due
                         * (EPROTO); msg is the struct msg_rc */
    REQUEST_BAD_ANSWER, /* an answer of another type, or undecodable:
                         * EPROTO, msg NULL */
    REQUEST_UNREACHED,  /* could not connect or send: errnum from connect
                         * (ECONNREFUSED, ENOENT...) or send */
    REQUEST_CLOSED,     /* the peer closed before answering: ECONNRESET */
    REQUEST_TIMEDOUT,   /* no answer within opts.timeout: ETIMEDOUT */
};

struct request_result {
    enum request_outcome outcome;
    int errnum;        /* 0 only when REQUEST_ANSWERED */
    arbor_error_t err; /* why, when errnum != 0 ("connection refused",
                        * "no answer within 5 s", the peer's RC text) */
    int type;          /* ANSWERED, REFUSED: the answer's type */
    const void *msg;   /* ANSWERED, REFUSED: struct msg_<type>,
                        * borrowed for the callback */
    uid_t uid;         /* ANSWERED, REFUSED: authenticated sender */
};

/* The peer answered at all (any RC, or a frame of a wrong type): it is
 * alive, whatever it said. */
static inline bool request_answered (const struct request_result *res)
{
    return res->outcome == REQUEST_ANSWERED || res->outcome == REQUEST_REFUSED
           || res->outcome == REQUEST_BAD_ANSWER;
}

typedef void (*request_f) (const struct request_result *res, void *arg);

enum request_flags {
    /* request_unix: the peer's exit is the real answer: an answer that
     * is not an error is kept and delivered (REQUEST_ANSWERED) when the
     * peer then closes the connection; an error answer completes at
     * once. */
    REQUEST_F_UNTIL_CLOSE = 1,
    /* request_unix: a connect that fails fails the call (NULL with errno:
     * ENOENT no socket, ECONNREFUSED nobody listens) instead of reaching
     * the callback, for callers that count the peers they reached. */
    REQUEST_F_CONNECT_NOW = 2,
};

/* How a failed attempt is tried again (struct request_opts.retry). */
typedef bool (*request_again_f) (const struct request_result *res, void *arg);
struct request_retry {
    double interval;     /* > 0: retry, after this pause; 0: never */
    double interval_max; /* > interval: the pause doubles after each
                          * failure, up to this */
    bool from_start;     /* the pause counts from the failed attempt's
                          * start (attempts at a fixed rate), not its end */
    unsigned limit;      /* attempts at most; 0: no limit */
    double deadline;     /* > 0: no attempt starts later than this many
                          * s after the first (the last pause is cut) */
    /* Told of every failed attempt that may be retried (res borrowed;
     * the request's arg): true retries, false ends the request with this
     * failure. It may log and call request_set_msg, not cancel. NULL:
     * request_retriable decides. */
    request_again_f again;
};

/* A failure that another attempt may cure: no answer at all
 * (UNREACHED, CLOSED, TIMEDOUT) or an answer not understood; not a
 * refusal. */
static inline bool request_retriable (const struct request_result *res)
{
    return res->errnum != 0 && res->outcome != REQUEST_REFUSED;
}

struct request_opts {
    struct peers *peers; /* request_tcp: the daemon's kept connections;
                          * borrowed, must outlive the request */
    uid_t peer_uid;      /* request_tcp: the uid the peer daemon runs as
                          * (its connection's munge token is for it) */
    double timeout;      /* seconds from an attempt's start to the answer
                          * (connect included); <= 0: none (the owner
                          * cancels) */
    int resp_type;       /* the answer expected; 0 or MSG_RC: MSG_RC */
    int flags;           /* enum request_flags */

    /* zero: one attempt */
    struct request_retry retry;
};

/* Start 'type'/'msg' (a struct msg_<type>, copied) to host:port over TCP
 * (opts->peers required; REQUEST_F_UNTIL_CLOSE is not for TCP). Returns
 * the request, or NULL with errno (EINVAL, ENOMEM) when nothing was
 * started: the callback is then never called. */
struct request *request_tcp (struct ev_loop *loop, const char *host,
                             uint16_t port, int type, const void *msg,
                             const struct request_opts *opts, request_f cb,
                             void *arg);

/* The same to the unix socket 'path', authenticated by SO_PEERCRED
 * (opts->peers unused). The connect itself is immediate on a unix socket;
 * its failure (ENOENT: no socket; ECONNREFUSED: nobody listens) is
 * reported through the callback like any other, or, with
 * REQUEST_F_CONNECT_NOW, by returning NULL with that errno. */
struct request *request_unix (struct ev_loop *loop, const char *path, int type,
                              const void *msg, const struct request_opts *opts,
                              request_f cb, void *arg);

/* Abandon the request: its connection is closed and the callback is
 * never called. NULL is accepted; a no-op inside the request's own
 * callback. errno is kept. */
void request_cancel (struct request *r);

/* Send 'msg' (copied) instead in the attempts still to come: from a
 * retry's again() hook, whose message must change (a registration's
 * current load). 0, or -1 with errno (the message is then unchanged). */
int request_set_msg (struct request *r, const void *msg);

/* A request pausing between attempts (opts.retry) starts its next one
 * now: the owner learnt that the peer is back. 0, or -1 with errno
 * EBUSY when an attempt is in flight (it goes on). */
int request_retry_now (struct request *r);

/* "host:port" or the socket path, for logs. Borrowed from r. */
const char *request_peer (const struct request *r);

#endif
