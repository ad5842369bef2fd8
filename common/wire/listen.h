/* listen.h - accept connections on a libev loop, within limits.
 *
 * One listener per listening socket of a daemon (the ctld's, a noded's).
 * It accepts, makes each connection a conn (conn.h) with the daemon's ops
 * and hands it to the daemon's 'accepted' callback, and enforces what an
 * unknown peer may make the daemon hold:
 *
 *   max_conns        connections open at once, all peers (0: derived
 *                    from RLIMIT_NOFILE, at most LISTEN_MAX_CONNS);
 *   max_unauth       connections not yet authenticated, all peers;
 *   max_unauth_peer  connections not yet authenticated from one address;
 *   auth_timeout     seconds a connection has to authenticate;
 *   frame_timeout    seconds a started frame has to complete;
 *   reserve          of max_conns, kept for root and priv_uid: the
 *                    other uids' sessions share max_conns - reserve;
 *   max_uid_sessions authenticated sessions of one uid (root and priv_uid
 *                    exempt);
 *   max_addr_sessions  the same, from one address (TCP only);
 *   idle_timeout     seconds a session of a uid other than root and
 *                    priv_uid may stay idle (nothing received, nothing
 *                    being sent) before it is closed, when the daemon's
 *                    'idle' callback agrees (0: never).
 *
 * On a unix socket the "address" is the peer's uid (SO_PEERCRED), so the
 * unauthenticated budget is shared out per uid.
 *
 * Unauthenticated connections are the cheap thing a peer can hold. When a
 * newcomer finds the per-address or the total unauthenticated budget (or
 * max_conns) full, the listener closes the OLDEST connection that has not
 * yet sent a whole HELLO, from the newcomer's address (per-address budget)
 * or from the address holding the most (total budgets: fair share), and
 * takes the newcomer. A connection younger than evict_age is never the
 * one closed (it has that long to send its HELLO, which may still sit
 * unread behind a burst of accepts). A peer that floods can delay others
 * but not lock them out: a client that authenticates promptly gets
 * through. Only when
 * nothing can be closed is a newcomer accepted and closed at once (so it
 * does not sit in the kernel's backlog) and reported.
 *
 * A session over its uid's or address's cap, or past the shared budget, is
 * refused once it has authenticated, with a reason the client prints: its
 * first request is answered with MSG_RC EUSERS, "<name> refused the
 * connection: too many sessions for uid 1001 (limit 64)" (conn_deny).
 *
 * After a flood (LISTEN_TRIM_AFTER connections fewer than the peak) the
 * listener gives freed memory back to the system (malloc_trim), so a
 * daemon's size returns after an attack. When accept() fails for lack
 * of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) the listener
 * closes a spare descriptor it keeps for this, accepts and closes the
 * waiting connection, and stops accepting for LISTEN_BACKOFF seconds rather
 * than spinning on a socket that stays readable.
 *
 * Libraries never log: every refusal is reported once through 'refused'
 * (peer address and why), which the daemon logs with log_security().
 */
#ifndef ARBOR_LISTEN_H
#define ARBOR_LISTEN_H

#include <ev.h>
#include "conn.h"

#define LISTEN_MAX_CONNS 16384
#define LISTEN_MAX_UNAUTH 1024
#define LISTEN_MAX_UNAUTH_PEER 64
#define LISTEN_AUTH_TIMEOUT 10.0
#define LISTEN_BACKOFF 1.0
#define LISTEN_RESERVE 64             /* at most max_conns / 8 */
#define LISTEN_MAX_UID_SESSIONS 1024  /* at most a quarter of the budget */
#define LISTEN_MAX_ADDR_SESSIONS 4096 /* at most half of the budget */
#define LISTEN_EVICT_AGE 1.0  /* time a newcomer has to send its HELLO */
#define LISTEN_SWEEP 5.0      /* seconds between idle sweeps (at most) */
#define LISTEN_TRIM_AFTER 256 /* closes below the peak that call for a trim */

struct listener;

struct listen_limits {
    unsigned max_conns;
    unsigned max_unauth;
    unsigned max_unauth_peer;
    double auth_timeout;
    double frame_timeout;
    unsigned reserve;           /* 0: LISTEN_RESERVE, at most max_conns/8 */
    unsigned max_uid_sessions;  /* 0: derived (see above) */
    unsigned max_addr_sessions; /* 0: derived; unix sockets: not applied */
    uid_t priv_uid;             /* besides root, exempt from the caps and
                                 * served from the reserve (ArborUser);
                                 * 0: root alone */
    double idle_timeout;        /* 0: sessions are never closed as idle */
    const char *name;           /* "controller": who refuses, in the text
                                 * the client prints (borrowed) */
    double evict_age;           /* a pending connection younger than this
                                 * is not closed for a newcomer (0:
                                 * LISTEN_EVICT_AGE) */
};

struct listen_ops {
    /* Optional: a new conn, created with conn_ops and the listener's arg;
     * a daemon that keeps state per connection attaches it here
     * (conn_set_arg). */
    void (*accepted) (struct listener *l, struct conn *c, void *arg);
    /* A connection was refused or accepting failed: peer ("" if unknown)
     * and why, for the log. */
    void (*refused) (struct listener *l, const char *peer, const char *why,
                     void *arg);
    /* Optional: conns[0 .. n) are sessions idle for idle_timeout; set to
     * NULL those the daemon still needs (a request it has not answered, a
     * job the connection holds); the others are closed. Without it no
     * session is closed for idleness. */
    void (*idle) (struct listener *l, struct conn **conns, size_t n, void *arg);
};

/* Listen on 'fd' (a listening socket, owned and closed by the listener).
 * 'auth' (copied; its pool and io_key are borrowed) says how accepted TCP
 * conns authenticate, as responders; NULL for a unix socket (SO_PEERCRED).
 * limits NULL: the defaults above. NULL with errno on failure. */
struct listener *listener_create (struct ev_loop *loop, int fd,
                                  const struct conn_auth *auth,
                                  const struct listen_limits *limits,
                                  const struct conn_ops *conn_ops,
                                  const struct listen_ops *ops, void *arg);
/* Stop accepting, close the socket, and destroy every conn it accepted
 * that is still open (conn_destroy: their ops->closed is not called). The
 * listener owns what it accepts, so a daemon keeps no list of its own.
 * NULL is accepted. */
void listener_destroy (struct listener *l);

/* Connections open, and of those not yet authenticated. */
unsigned listener_count (const struct listener *l);
unsigned listener_unauth (const struct listener *l);
/* Sessions counted against the caps (uids other than root and priv_uid). */
unsigned listener_sessions (const struct listener *l);
/* The limits in force, defaults derived (for logs and tests). */
void listener_limits (const struct listener *l, struct listen_limits *out);

#endif
