/* request_private.h - struct request and the calls of request.c that
 * request_conn.c builds on (requests on a connection the caller holds).
 * Nothing outside those two files includes it.
 */
#ifndef ARBOR_REQUEST_PRIVATE_H
#define ARBOR_REQUEST_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "conn_wait.h"
#include "peers.h"
#include "proto.h"
#include "request.h"

struct request {
    struct ev_loop *loop;
    struct request_opts opts;
    char peer[128]; /* host:port or path */
    char host[128]; /* TCP: the peer, on opts.peers' kept connection */
    uint16_t port;
    struct peer_user pu;
    bool sent;    /* TCP: the frame went out on the kept conn */
    bool retried; /* TCP: resent once on a fresh conn */
    int type;
    union msg_any msg; /* the copy sent */
    int fd;            /* unix: the socket, then the conn's */
    struct conn *conn; /* unix: the request's own conn */
    /* Held conn (request_conn.c): the conn each attempt goes out on is
     * *connp; held is request_conn's, connp pointing at it. */
    struct conn *const *connp;
    struct conn *held;
    struct conn_waiter cw;
    /* One attempt: start it, 0 or -1 with res filled. */
    int (*attempt) (struct request *r);
    unsigned attempts;
    ev_tstamp first, started; /* the first attempt's start, this one's */
    double pause;             /* before the next retry */
    ev_timer retry_w;
    ev_timer timeout_w;
    ev_timer defer_w;          /* reports a failure found at start */
    struct request_result res; /* the outcome, once known */
    int ans_type;              /* REQUEST_F_UNTIL_CLOSE: the kept answer */
    union msg_any ans;
    bool have_ans;
    bool in_cb;
    request_f cb;
    void *arg;
};

/* A request, not started: NULL with errno (EINVAL, ENOMEM). */
struct request *request_create (struct ev_loop *loop, int type, const void *msg,
                                const struct request_opts *opts, request_f cb,
                                void *arg);
/* Start its first attempt (r->attempt set). Returns r. */
struct request *request_begin (struct request *r);
/* Record a failure without an answer, with strerror (errnum) after
 * 'prefix' as its text. */
void request_fail (struct request *r, enum request_outcome outcome, int errnum,
                   const char *prefix);
/* Decode the answer f into r->res. 0 if it completes the attempt now, 1
 * if it is kept until the peer closes (UNTIL_CLOSE). */
int request_answer (struct request *r, const struct frame *f);
/* The attempt ended (r->res says how): retry, or the callback, then
 * free. */
void request_finish (struct request *r);
/* Report r->res from the loop, not from the calling code. Returns r. */
struct request *request_defer (struct request *r);

#endif
