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
 *   frame_timeout    seconds a started frame has to complete.
 *
 * A connection over a limit is accepted and closed at once (so it does not
 * sit in the kernel's backlog) and reported. When accept() fails for lack
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

struct listener;

struct listen_limits {
    unsigned max_conns;
    unsigned max_unauth;
    unsigned max_unauth_peer;
    double auth_timeout;
    double frame_timeout;
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

#endif
