/* listen.c - accept connections on a libev loop, within limits.
 *
 * Each accepted conn gets an entry (its peer address, whether it has
 * authenticated) on the listener's list, and a conn_guard whose callbacks
 * keep the counts: 'authenticated' when its first good frame arrives,
 * 'freed' when it goes. Counting per address walks the unauthenticated
 * entries only, which max_unauth bounds, so an accept costs at most
 * max_unauth comparisons.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "listen.h"
#include "net.h"

#define LISTEN_FD_RESERVE 64 /* descriptors kept for everything else */

struct lentry {
    struct lentry *next, *prev;
    struct listener *l;
    struct conn *conn;
    bool authed;
    char addr[64]; /* peer address without the port */
};

struct listener {
    struct ev_loop *loop;
    int fd;
    int spare_fd;          /* given up to accept-and-close under EMFILE */
    struct conn_auth auth; /* responder; mode PEERCRED: a unix socket */
    struct listen_limits lim;
    const struct conn_ops *conn_ops;
    const struct listen_ops *ops;
    void *arg;
    ev_io accept_w;
    ev_timer backoff_w;
    struct lentry *entries;
    unsigned count, unauth;
};

static unsigned default_max_conns (void)
{
    struct rlimit rl;
    rlim_t n = LISTEN_MAX_CONNS;

    if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
        && rl.rlim_cur < n + LISTEN_FD_RESERVE)
        n = rl.rlim_cur > 2 * LISTEN_FD_RESERVE
                ? rl.rlim_cur - LISTEN_FD_RESERVE
                : rl.rlim_cur / 2;
    return n > 0 ? (unsigned)n : 1;
}

static void entry_unlink (struct lentry *e)
{
    struct listener *l = e->l;

    if (e->prev)
        e->prev->next = e->next;
    else
        l->entries = e->next;
    if (e->next)
        e->next->prev = e->prev;
    l->count--;
    if (!e->authed)
        l->unauth--;
}

static void guard_authenticated_cb (struct conn *c, void *arg)
{
    struct lentry *e = arg;

    if (!e->authed) {
        e->authed = true;
        e->l->unauth--;
    }
}

static void guard_freed_cb (struct conn *c, void *arg)
{
    struct lentry *e = arg;

    entry_unlink (e);
    free (e);
}

static void listener_refuse (struct listener *l, const char *peer,
                             const char *why)
{
    if (l->ops->refused)
        l->ops->refused (l, peer, why, l->arg);
}

/* "127.0.1.3:34567" -> "127.0.1.3"; a unix socket stays "unix". */
static void peer_addr (int fd, char *buf, size_t len)
{
    char *colon;

    net_peer_name (fd, buf, len);
    if ((colon = strrchr (buf, ':')))
        *colon = '\0';
}

static unsigned unauth_from (const struct listener *l, const char *addr)
{
    unsigned n = 0;

    for (const struct lentry *e = l->entries; e; e = e->next)
        if (!e->authed && strcmp (e->addr, addr) == 0)
            n++;
    return n;
}

/* Which limit would this connection break, or NULL. */
static const char *over_limit (const struct listener *l, const char *addr)
{
    if (l->count >= l->lim.max_conns)
        return "too many connections";
    if (l->unauth >= l->lim.max_unauth)
        return "too many unauthenticated connections";
    if (unauth_from (l, addr) >= l->lim.max_unauth_peer)
        return "too many unauthenticated connections from this address";
    return NULL;
}

static void listener_adopt (struct listener *l, int fd)
{
    struct lentry *e = calloc (1, sizeof (*e));
    const char *why;
    struct conn *c;

    if (!e) {
        close (fd);
        listener_refuse (l, "", "out of memory");
        return;
    }
    peer_addr (fd, e->addr, sizeof (e->addr));
    if ((why = over_limit (l, e->addr))) {
        listener_refuse (l, e->addr, why);
        close (fd);
        free (e);
        return;
    }
    c = l->auth.mode == CONN_AUTH_PEERCRED
            ? conn_create_unix (l->loop, fd, l->conn_ops, l->arg)
            : conn_create (l->loop, fd, &l->auth, l->conn_ops, l->arg);
    if (!c) {
        listener_refuse (l, e->addr, strerror (errno));
        close (fd);
        free (e);
        return;
    }
    e->l = l;
    e->conn = c;
    if ((e->next = l->entries))
        e->next->prev = e;
    l->entries = e;
    l->count++;
    l->unauth++;
    struct conn_guard g = {
        .auth_timeout = l->lim.auth_timeout,
        .frame_timeout = l->lim.frame_timeout,
        .authenticated = guard_authenticated_cb,
        .freed = guard_freed_cb,
        .arg = e,
    };
    conn_set_guard (c, &g);
    if (l->ops->accepted)
        l->ops->accepted (l, c, l->arg);
}

static void backoff_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct listener *l = w->data;

    if (l->spare_fd < 0)
        l->spare_fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
    ev_io_start (l->loop, &l->accept_w);
}

/* Out of descriptors or memory: shed the waiting connection with the
 * spare descriptor, and pause instead of spinning on a readable socket. */
static void listener_exhausted (struct listener *l, int err)
{
    char why[128];

    if (l->spare_fd >= 0) {
        close (l->spare_fd);
        l->spare_fd = -1;
        int fd = accept4 (l->fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0)
            close (fd);
    }
    snprintf (why, sizeof (why), "accept: %s; not accepting for %.0f s",
              strerror (err), LISTEN_BACKOFF);
    listener_refuse (l, "", why);
    ev_io_stop (l->loop, &l->accept_w);
    ev_timer_set (&l->backoff_w, LISTEN_BACKOFF, 0.);
    ev_timer_start (l->loop, &l->backoff_w);
}

static void accept_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct listener *l = w->data;

    for (int i = 0; i < 64; i++) { /* bounded: other watchers get a turn */
        int fd = accept4 (l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            listener_adopt (l, fd);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS
            || errno == ENOMEM)
            listener_exhausted (l, errno);
        else if (errno != EAGAIN && errno != EWOULDBLOCK)
            listener_refuse (l, "", strerror (errno));
        return;
    }
}

struct listener *listener_create (struct ev_loop *loop, int fd,
                                  const struct conn_auth *auth,
                                  const struct listen_limits *limits,
                                  const struct conn_ops *conn_ops,
                                  const struct listen_ops *ops, void *arg)
{
    struct listener *l;

    if (!loop || fd < 0 || !conn_ops || !ops) {
        errno = EINVAL;
        return NULL;
    }
    if (!(l = calloc (1, sizeof (*l))))
        return NULL;
    l->loop = loop;
    l->fd = fd;
    if (auth) {
        l->auth = *auth;
        l->auth.initiator = false;
    } else {
        l->auth.mode = CONN_AUTH_PEERCRED;
    }
    l->conn_ops = conn_ops;
    l->ops = ops;
    l->arg = arg;
    l->lim = limits ? *limits : (struct listen_limits){ 0 };
    if (!l->lim.max_conns)
        l->lim.max_conns = default_max_conns ();
    if (!l->lim.max_unauth)
        l->lim.max_unauth = LISTEN_MAX_UNAUTH;
    if (!l->lim.max_unauth_peer)
        l->lim.max_unauth_peer = LISTEN_MAX_UNAUTH_PEER;
    if (l->lim.auth_timeout <= 0)
        l->lim.auth_timeout = LISTEN_AUTH_TIMEOUT;
    l->spare_fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
    ev_io_init (&l->accept_w, accept_cb, fd, EV_READ);
    l->accept_w.data = l;
    ev_init (&l->backoff_w, backoff_cb);
    l->backoff_w.data = l;
    ev_io_start (loop, &l->accept_w);
    return l;
}

void listener_destroy (struct listener *l)
{
    int saved = errno;

    if (!l)
        return;
    ev_io_stop (l->loop, &l->accept_w);
    ev_timer_stop (l->loop, &l->backoff_w);
    while (l->entries) {
        struct lentry *e = l->entries;
        conn_set_guard (e->conn, NULL);
        conn_destroy (e->conn);
        entry_unlink (e);
        free (e);
    }
    if (l->spare_fd >= 0)
        close (l->spare_fd);
    close (l->fd);
    free (l);
    errno = saved;
}

unsigned listener_count (const struct listener *l)
{
    return l->count;
}

unsigned listener_unauth (const struct listener *l)
{
    return l->unauth;
}
