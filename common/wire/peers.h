/* peers.h - the TCP connections a daemon keeps to other daemons.
 *
 * Dialling and authenticating a connection costs a round trip and two
 * munge calls; a launch over 64 nodes made hundreds of them. So a daemon
 * keeps one connection per peer (host, port and the peer's uid) and every
 * request to that peer rides on it, told apart by the matchtag the conn
 * hands out (conn_wait.h) (request.c uses this module; nothing else
 * needs to).
 *
 *   - Bounded: at most max_conns peers are kept; opening one more closes
 *     the least recently used peer that has no request in flight (when
 *     every peer is busy the new one is opened anyway and the cache
 *     shrinks back as they go idle).
 *   - Idle peers are closed after idle_timeout seconds.
 *   - A peer that restarts closes its end: the kept conn sees EOF, the
 *     requests in flight on it are told (with 'reused' saying whether the
 *     conn had served an earlier exchange, so the request may try once
 *     more on a fresh connection) and the next request dials again.
 */
#ifndef ARBOR_PEERS_H
#define ARBOR_PEERS_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conn.h"
#include "conn_wait.h"
#include "error.h"

#define PEERS_MAX_CONNS 4096
#define PEERS_IDLE_TIMEOUT 300.0

struct auth_pool;
struct peers;
struct peer;

struct peers_opts {
    unsigned max_conns;  /* 0: PEERS_MAX_CONNS */
    double idle_timeout; /* <= 0: PEERS_IDLE_TIMEOUT */
    const char *source;  /* local address to dial from (copied); NULL:
                          * the kernel's choice */
};

/* pool: where the connections' munge calls run (borrowed). */
struct peers *peers_create (struct ev_loop *loop, struct auth_pool *pool,
                            const struct peers_opts *opts);
/* Close every kept connection; users still joined are detached without
 * being told (their owners cancel them). NULL is accepted. */
void peers_destroy (struct peers *ps);
unsigned peers_count (const struct peers *ps);

struct peer_user_ops {
    /* The conn is up (or queued up behind its HELLO): send now, with
     * matchtag 'tag'. */
    void (*ready) (struct conn *c, uint32_t tag, void *arg);
    /* A response (FRAME_F_RESPONSE) with our tag. */
    void (*frame) (const struct frame *f, void *arg);
    /* The dial failed or the conn closed; the user is detached. */
    void (*lost) (int errnum, const char *why, bool reused, void *arg);
};

/* One request's place on a peer; embedded in the request, fields private
 * to peers.c. */
struct peer_user {
    const struct peer_user_ops *ops;
    void *arg;
    struct peer *peer;
    uint32_t tag;
    bool reused; /* sent on a conn that had already served an exchange */
    struct conn_waiter cw; /* its answer, routed by the conn */
    struct peer_user *prev, *next;
};

/* Attach u (ops and arg set) to the peer host:port whose daemon runs as
 * 'uid', dialling it if needed. ready() may run inside this call. -1 with
 * errno and err if the peer cannot be dialled at all. */
int peers_join (struct peers *ps, const char *host, uint16_t port, uid_t uid,
                struct peer_user *u, arbor_error_t *err);
/* Detach u (its exchange is over, or abandoned). No-op if not joined. */
void peers_leave (struct peer_user *u);

#endif
