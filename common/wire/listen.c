/* listen.c - accept connections on a libev loop, within limits.
 *
 * Each accepted conn gets an entry (its peer address, whether it has
 * authenticated) on one of two lists: the unauthenticated ones, oldest
 * first (the order eviction needs), and the authenticated ones. A
 * conn_guard's callbacks keep the counts: 'authenticated' when its first
 * good frame arrives (where the session caps are checked), 'freed' when it
 * goes. Counts per address and per uid are kept in tallies
 * (listen_tally.h), so an accept is a hash lookup; only an eviction walks
 * the unauthenticated list, which max_unauth bounds.
 *
 * A sweep timer closes idle sessions (when the daemon agrees) and trims
 * the heap after a flood; nothing here runs per frame.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "listen.h"
#include "listen_tally.h"
#include "net.h"

#define LISTEN_FD_RESERVE 64   /* descriptors kept for everything else */
#define LISTEN_IDLE_BATCH 1024 /* idle sessions handled per sweep */

struct lentry {
    struct lentry *next, *prev;
    struct listener *l;
    struct conn *conn;
    bool authed;
    bool session;             /* counted in the session tallies */
    double since;             /* accepted at (the loop's time) */
    char addr[TALLY_KEY_MAX]; /* peer address without the port; "uid N" */
    char ukey[24];            /* session: "N", its uid */
};

struct elist {
    struct lentry *head, *tail;
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
    ev_timer sweep_w;
    struct elist unauth_list; /* oldest first */
    struct elist auth_list;
    struct tally *unauth_by_addr;
    struct tally *sess_by_uid, *sess_by_addr;
    unsigned count, unauth, sessions;
    unsigned peak; /* most connections since the last trim */
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

static void elist_push (struct elist *L, struct lentry *e)
{
    e->next = NULL;
    e->prev = L->tail;
    if (L->tail)
        L->tail->next = e;
    else
        L->head = e;
    L->tail = e;
}

static void elist_remove (struct elist *L, struct lentry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        L->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        L->tail = e->prev;
    e->next = e->prev = NULL;
}

static void entry_unlink (struct lentry *e)
{
    struct listener *l = e->l;

    if (e->authed) {
        elist_remove (&l->auth_list, e);
    } else {
        elist_remove (&l->unauth_list, e);
        tally_sub (l->unauth_by_addr, e->addr);
        l->unauth--;
    }
    if (e->session) {
        tally_sub (l->sess_by_uid, e->ukey);
        tally_sub (l->sess_by_addr, e->addr);
        l->sessions--;
    }
    l->count--;
}

static void listener_refuse (struct listener *l, const char *peer,
                             const char *why)
{
    if (l->ops->refused)
        l->ops->refused (l, peer, why, l->arg);
}

static bool is_priv (const struct listener *l, uid_t uid)
{
    /* (uid_t)-1: a STEPKEY peer proved a step's key, not a uid */
    return uid == 0 || uid == (uid_t)-1
           || (l->lim.priv_uid != 0 && uid == l->lim.priv_uid);
}

/* Which session cap would this authenticated peer break ('why' filled),
 * or false. */
static bool session_over (const struct listener *l, const struct lentry *e,
                          char *why, size_t len)
{
    unsigned budget = l->lim.max_conns - l->lim.reserve;

    if (l->sessions >= budget)
        snprintf (why, len,
                  "too many sessions in all (limit %u; the rest is kept "
                  "for root and the daemons)",
                  budget);
    else if (tally_get (l->sess_by_uid, e->ukey) >= l->lim.max_uid_sessions)
        snprintf (why, len, "too many sessions for uid %s (limit %u)", e->ukey,
                  l->lim.max_uid_sessions);
    else if (l->auth.mode != CONN_AUTH_PEERCRED
             && tally_get (l->sess_by_addr, e->addr)
                    >= l->lim.max_addr_sessions)
        snprintf (why, len, "too many sessions from %s (limit %u)", e->addr,
                  l->lim.max_addr_sessions);
    else
        return false;
    return true;
}

/* A peer just authenticated: count its session, or refuse it with a
 * reason its client prints. */
static void session_admit (struct listener *l, struct lentry *e)
{
    uid_t uid = conn_peer_uid (e->conn);
    char why[160], text[256];

    if (is_priv (l, uid))
        return;
    snprintf (e->ukey, sizeof (e->ukey), "%lu", (unsigned long)uid);
    if (session_over (l, e, why, sizeof (why))) {
        snprintf (text, sizeof (text), "%s refused the connection: %s",
                  l->lim.name ? l->lim.name : "the server", why);
        conn_deny (e->conn, EUSERS, text);
        listener_refuse (l, e->addr, why);
        return;
    }
    if (tally_add (l->sess_by_uid, e->ukey) < 0)
        goto nomem;
    if (tally_add (l->sess_by_addr, e->addr) < 0) {
        tally_sub (l->sess_by_uid, e->ukey);
        goto nomem;
    }
    e->session = true;
    l->sessions++;
    return;
nomem:
    conn_deny (e->conn, ENOMEM, "the server is out of memory");
    listener_refuse (l, e->addr, "out of memory");
}

static void guard_authenticated_cb (struct conn *c, void *arg)
{
    struct lentry *e = arg;
    struct listener *l = e->l;

    if (e->authed)
        return;
    elist_remove (&l->unauth_list, e);
    tally_sub (l->unauth_by_addr, e->addr);
    l->unauth--;
    e->authed = true;
    elist_push (&l->auth_list, e);
    session_admit (l, e);
}

static void guard_freed_cb (struct conn *c, void *arg)
{
    struct lentry *e = arg;

    entry_unlink (e);
    free (e);
}

/* "127.0.1.3:34567" -> "127.0.1.3"; a unix socket: "uid N" of its peer. */
static void peer_addr (const struct listener *l, int fd, char *buf, size_t len)
{
    char *colon;
    uid_t uid;

    if (l->auth.mode == CONN_AUTH_PEERCRED) {
        if (net_peer_cred (fd, &uid, NULL, NULL) == 0)
            snprintf (buf, len, "uid %lu", (unsigned long)uid);
        else
            snprintf (buf, len, "unix");
        return;
    }
    net_peer_name (fd, buf, len);
    if ((colon = strrchr (buf, ':')))
        *colon = '\0';
}

/* The oldest connection from 'addr' (NULL: any) that has not sent a whole
 * HELLO. */
static struct lentry *oldest_pending (const struct listener *l,
                                      const char *addr)
{
    double young = ev_now (l->loop) - l->lim.evict_age;

    for (struct lentry *e = l->unauth_list.head; e && e->since <= young;
         e = e->next)
        if ((!addr || strcmp (e->addr, addr) == 0)
            && conn_hello_pending (e->conn))
            return e;
    return NULL;
}

/* Close the oldest pending connection of 'addr', or of the address that
 * holds the most ('addr' NULL: fair share), and say so. false if there is
 * none to close. */
static bool evict_oldest (struct listener *l, const char *addr,
                          const char *budget)
{
    const char *top = addr ? addr : tally_max (l->unauth_by_addr);
    struct lentry *e = top ? oldest_pending (l, top) : NULL;
    char why[192];

    if (!e && !addr)
        e = oldest_pending (l, NULL);
    if (!e)
        return false;
    snprintf (why, sizeof (why),
              "%s full: closed the oldest connection that had not "
              "authenticated",
              budget);
    listener_refuse (l, e->addr, why);
    conn_evict (e->conn, why); /* frees e: guard_freed_cb */
    return true;
}

/* Make room for a newcomer from 'addr': NULL, or why it is refused. */
static const char *make_room (struct listener *l, const char *addr)
{
    if (tally_get (l->unauth_by_addr, addr) >= l->lim.max_unauth_peer
        && !evict_oldest (l, addr, "unauthenticated budget of this address"))
        return "too many unauthenticated connections from this address";
    if (l->unauth >= l->lim.max_unauth
        && !evict_oldest (l, NULL, "unauthenticated budget"))
        return "too many unauthenticated connections";
    if (l->count >= l->lim.max_conns
        && !evict_oldest (l, NULL, "connection budget"))
        return "too many connections";
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
    peer_addr (l, fd, e->addr, sizeof (e->addr));
    if (!(why = make_room (l, e->addr))
        && tally_add (l->unauth_by_addr, e->addr) < 0)
        why = "out of memory";
    if (why) {
        listener_refuse (l, e->addr, why);
        close (fd);
        free (e);
        return;
    }
    c = l->auth.mode == CONN_AUTH_PEERCRED
            ? conn_create_unix (l->loop, fd, l->conn_ops, l->arg)
            : conn_create (l->loop, fd, &l->auth, l->conn_ops, l->arg);
    if (!c) {
        tally_sub (l->unauth_by_addr, e->addr);
        listener_refuse (l, e->addr, strerror (errno));
        close (fd);
        free (e);
        return;
    }
    e->l = l;
    e->conn = c;
    e->since = ev_now (l->loop);
    elist_push (&l->unauth_list, e);
    l->count++;
    l->unauth++;
    if (l->count > l->peak)
        l->peak = l->count;
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

/* Sessions idle past idle_timeout, which the daemon lets go, are closed
 * (after a flush: the peer sees an orderly end). */
static void sweep_idle (struct listener *l)
{
    struct conn *conns[LISTEN_IDLE_BATCH];
    double now = ev_now (l->loop);
    size_t n = 0;

    for (struct lentry *e = l->auth_list.head; e && n < LISTEN_IDLE_BATCH;
         e = e->next)
        if (e->session && conn_idle (e->conn, now, l->lim.idle_timeout))
            conns[n++] = e->conn;
    if (n == 0)
        return;
    l->ops->idle (l, conns, n, l->arg);
    for (size_t i = 0; i < n; i++)
        if (conns[i])
            conn_close_after_flush (conns[i]);
}

static void sweep_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct listener *l = w->data;

    if (l->lim.idle_timeout > 0 && l->ops->idle)
        sweep_idle (l);
    /* After a flood, give the freed buffers back: glibc keeps them. */
    if (l->peak >= l->count + LISTEN_TRIM_AFTER) {
        malloc_trim (0);
        l->peak = l->count;
    }
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

static unsigned clamp_u (unsigned v, unsigned lo, unsigned hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Fill in the limits left 0 (see listen.h). */
static void limits_default (struct listen_limits *lim)
{
    if (!lim->max_conns)
        lim->max_conns = default_max_conns ();
    if (!lim->max_unauth)
        lim->max_unauth = LISTEN_MAX_UNAUTH;
    if (!lim->max_unauth_peer)
        lim->max_unauth_peer = LISTEN_MAX_UNAUTH_PEER;
    if (lim->auth_timeout <= 0)
        lim->auth_timeout = LISTEN_AUTH_TIMEOUT;
    if (lim->evict_age <= 0)
        lim->evict_age = LISTEN_EVICT_AGE;
    if (!lim->reserve)
        lim->reserve = clamp_u (lim->max_conns / 8, 1, LISTEN_RESERVE);
    if (lim->reserve >= lim->max_conns)
        lim->reserve = lim->max_conns - 1;
    unsigned budget = lim->max_conns - lim->reserve;
    if (!lim->max_uid_sessions)
        lim->max_uid_sessions =
            clamp_u (budget / 4, 1, LISTEN_MAX_UID_SESSIONS);
    if (!lim->max_addr_sessions)
        lim->max_addr_sessions =
            clamp_u (budget / 2, 1, LISTEN_MAX_ADDR_SESSIONS);
}

static int listener_init (struct listener *l)
{
    l->unauth_by_addr = tally_create ();
    l->sess_by_uid = tally_create ();
    l->sess_by_addr = tally_create ();
    if (!l->unauth_by_addr || !l->sess_by_uid || !l->sess_by_addr)
        return -1;
    l->spare_fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
    ev_io_init (&l->accept_w, accept_cb, l->fd, EV_READ);
    l->accept_w.data = l;
    ev_init (&l->backoff_w, backoff_cb);
    l->backoff_w.data = l;
    double every = LISTEN_SWEEP;
    if (l->lim.idle_timeout > 0 && l->lim.idle_timeout / 4 < every)
        every = l->lim.idle_timeout / 4 > 0.1 ? l->lim.idle_timeout / 4 : 0.1;
    ev_timer_init (&l->sweep_w, sweep_cb, every, every);
    l->sweep_w.data = l;
    ev_io_start (l->loop, &l->accept_w);
    ev_timer_start (l->loop, &l->sweep_w);
    ev_unref (l->loop); /* the sweep alone keeps no loop running */
    return 0;
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
    limits_default (&l->lim);
    if (listener_init (l) < 0) {
        tally_destroy (l->unauth_by_addr);
        tally_destroy (l->sess_by_uid);
        tally_destroy (l->sess_by_addr);
        free (l);
        errno = ENOMEM;
        return NULL;
    }
    return l;
}

static void destroy_list (struct elist *L)
{
    while (L->head) {
        struct lentry *e = L->head;
        conn_set_guard (e->conn, NULL);
        conn_destroy (e->conn);
        entry_unlink (e);
        free (e);
    }
}

void listener_destroy (struct listener *l)
{
    int saved = errno;

    if (!l)
        return;
    ev_io_stop (l->loop, &l->accept_w);
    ev_timer_stop (l->loop, &l->backoff_w);
    ev_ref (l->loop);
    ev_timer_stop (l->loop, &l->sweep_w);
    destroy_list (&l->unauth_list);
    destroy_list (&l->auth_list);
    tally_destroy (l->unauth_by_addr);
    tally_destroy (l->sess_by_uid);
    tally_destroy (l->sess_by_addr);
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

unsigned listener_sessions (const struct listener *l)
{
    return l->sessions;
}

void listener_limits (const struct listener *l, struct listen_limits *out)
{
    *out = l->lim;
}
