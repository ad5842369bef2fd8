/* peers.c - kept connections, one per (host, port, uid), in a hash table
 * with a least-recently-used list for eviction.
 *
 * A peer is DIALLING (fd, connect_w) or OPEN (conn). Users that join a
 * dialling peer wait on its list and are made ready when the connect
 * completes; users that join an open one are ready at once. Each user
 * waits on the conn for its answer (conn_wait.h): the conn hands out its
 * matchtag and routes the answer to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "authpool.h"
#include "net.h"
#include "peers.h"
#include "proto.h"

#define PEERS_BUCKETS 1024

struct peer {
    struct peers *ps;
    char host[128];
    uint16_t port;
    uid_t uid;
    int fd;            /* dialling */
    struct conn *conn; /* open */
    ev_io connect_w;
    ev_timer idle_w;
    struct peer_user *users;
    unsigned nusers;
    unsigned exchanges;               /* answers received so far */
    struct peer *hnext;               /* hash chain */
    struct peer *lru_prev, *lru_next; /* most recently used first */
};

struct peers {
    struct ev_loop *loop;
    struct auth_pool *pool;
    struct peers_opts opts;
    char *source; /* opts.source, owned */
    struct peer *table[PEERS_BUCKETS];
    struct peer *lru_head, *lru_tail;
    unsigned count;
};

static void peer_conn_frame (struct conn *c, const struct frame *f, void *arg);
static void peer_conn_closed (struct conn *c, const arbor_error_t *err,
                              void *arg);

static const struct conn_ops peer_conn_ops = {
    .frame = peer_conn_frame,
    .closed = peer_conn_closed,
};

static unsigned peer_hash (const char *host, uint16_t port, uid_t uid)
{
    unsigned h = 2166136261u;

    for (const char *p = host; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    h = (h ^ port) * 16777619u;
    h = (h ^ (unsigned)uid) * 16777619u;
    return h % PEERS_BUCKETS;
}

/* ---- table and LRU ------------------------------------------------------- */

static struct peer *peer_find (struct peers *ps, const char *host,
                               uint16_t port, uid_t uid)
{
    struct peer *p = ps->table[peer_hash (host, port, uid)];

    while (p && (p->port != port || p->uid != uid || strcmp (p->host, host)))
        p = p->hnext;
    return p;
}

static void lru_unlink (struct peers *ps, struct peer *p)
{
    if (p->lru_prev)
        p->lru_prev->lru_next = p->lru_next;
    else
        ps->lru_head = p->lru_next;
    if (p->lru_next)
        p->lru_next->lru_prev = p->lru_prev;
    else
        ps->lru_tail = p->lru_prev;
    p->lru_prev = p->lru_next = NULL;
}

static void lru_push (struct peers *ps, struct peer *p)
{
    p->lru_next = ps->lru_head;
    if (ps->lru_head)
        ps->lru_head->lru_prev = p;
    ps->lru_head = p;
    if (!ps->lru_tail)
        ps->lru_tail = p;
}

/* Out of the table and the list; the caller frees. */
static void peer_unlink (struct peer *p)
{
    struct peers *ps = p->ps;
    struct peer **pp = &ps->table[peer_hash (p->host, p->port, p->uid)];

    while (*pp && *pp != p)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = p->hnext;
    lru_unlink (ps, p);
    ps->count--;
}

static void peer_free (struct peer *p)
{
    ev_io_stop (p->ps->loop, &p->connect_w);
    ev_timer_stop (p->ps->loop, &p->idle_w);
    if (p->conn)
        conn_destroy (p->conn);
    else if (p->fd >= 0)
        close (p->fd);
    free (p);
}

/* ---- users --------------------------------------------------------------- */

static void user_unlink (struct peer_user *u)
{
    struct peer *p = u->peer;

    conn_unwait (&u->cw);
    if (u->prev)
        u->prev->next = u->next;
    else
        p->users = u->next;
    if (u->next)
        u->next->prev = u->prev;
    u->prev = u->next = NULL;
    u->peer = NULL;
    if (--p->nusers == 0 && p->conn)
        ev_timer_again (p->ps->loop, &p->idle_w);
}

/* The user's answer (the conn has detached its waiter). */
static void user_answer (const struct frame *f, void *arg)
{
    struct peer_user *u = arg;

    u->peer->exchanges++;
    u->ops->frame (f, u->arg);
}

/* Never called: peer_conn_closed tells the users (and detaches their
 * waiters) before the conn tells its waiters, and a peer is freed only
 * without users. */
static void user_conn_lost (const arbor_error_t *err, void *arg)
{
    (void)err;
    (void)arg;
}

static void user_ready (struct peer *p, struct peer_user *u)
{
    u->cw.answer = user_answer;
    u->cw.lost = user_conn_lost;
    u->cw.arg = u;
    if (conn_wait (p->conn, &u->cw) < 0)
        return; /* closing: peer_conn_closed tells the user soon */
    u->tag = u->cw.tag;
    u->reused = p->exchanges > 0;
    u->ops->ready (p->conn, u->tag, u->arg);
}

/* The peer is gone (dial failed, conn closed): tell every user, after
 * taking the peer out of the table, so a user that retries dials anew. */
static void peer_lost (struct peer *p, int errnum, const char *why)
{
    peer_unlink (p);
    while (p->users) {
        struct peer_user *u = p->users;
        bool reused = u->reused;
        user_unlink (u);
        u->ops->lost (errnum, why, reused, u->arg);
    }
    peer_free (p);
}

/* ---- the conn -------------------------------------------------------------
 */

/* Answers go to their users straight from the conn (conn_wait.h): what
 * comes here is the answer to an abandoned request, or a request, which
 * nothing sends a requester. */
static void peer_conn_frame (struct conn *c, const struct frame *f, void *arg)
{
    (void)c;
    (void)f;
    (void)arg;
}

static void peer_conn_closed (struct conn *c, const arbor_error_t *err,
                              void *arg)
{
    struct peer *p = arg;
    char why[200];

    (void)c;
    p->conn = NULL; /* conn.c frees it */
    snprintf (why, sizeof (why), "connection closed before answering%s%.150s",
              err && err->text[0] ? ": " : "", err ? err->text : "");
    peer_lost (p, ECONNRESET, why);
}

static void peer_idle_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct peer *p = w->data;

    (void)loop;
    (void)revents;
    if (p->nusers == 0) {
        peer_unlink (p);
        peer_free (p);
    }
}

static int peer_open (struct peer *p)
{
    struct conn_auth a = {
        .mode = CONN_AUTH_MUNGE,
        .initiator = true,
        .pool = p->ps->pool,
        .peer_uid = p->uid,
    };

    if (!(p->conn = conn_create (p->ps->loop, p->fd, &a, &peer_conn_ops, p)))
        return -1;
    p->fd = -1; /* the conn's now */
    if (p->nusers == 0)
        ev_timer_again (p->ps->loop, &p->idle_w);
    for (struct peer_user *u = p->users; u; u = u->next)
        user_ready (p, u);
    return 0;
}

static void peer_connect_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct peer *p = w->data;
    char why[200];

    (void)revents;
    ev_io_stop (loop, w);
    if (net_connect_finish (p->fd) == 0 && peer_open (p) == 0)
        return;
    int e = errno ? errno : ECONNREFUSED;
    errno_text (e, why, sizeof (why));
    peer_lost (p, e, why);
}

/* ---- peers --------------------------------------------------------------- */

/* Make room under max_conns: close the least recently used idle peer. */
static void peers_evict (struct peers *ps)
{
    if (ps->count < ps->opts.max_conns)
        return;
    for (struct peer *p = ps->lru_tail; p; p = p->lru_prev) {
        if (p->nusers == 0) {
            peer_unlink (p);
            peer_free (p);
            return;
        }
    }
}

static struct peer *peer_dial (struct peers *ps, const char *host,
                               uint16_t port, uid_t uid, arbor_error_t *err)
{
    struct peer *p;

    if (strlen (host) >= sizeof (p->host)) {
        errno = ENAMETOOLONG;
        errprintf (err, "host name too long");
        return NULL;
    }
    if (!(p = calloc (1, sizeof (*p))))
        return NULL;
    if ((p->fd = net_connect_tcp_from (host, port, ps->source, err)) < 0) {
        int e = errno;
        free (p);
        errno = e;
        return NULL;
    }
    peers_evict (ps);
    p->ps = ps;
    snprintf (p->host, sizeof (p->host), "%s", host);
    p->port = port;
    p->uid = uid;
    ev_io_init (&p->connect_w, peer_connect_cb, p->fd, EV_WRITE);
    p->connect_w.data = p;
    ev_init (&p->idle_w, peer_idle_cb);
    p->idle_w.repeat = ps->opts.idle_timeout;
    p->idle_w.data = p;
    ev_io_start (ps->loop, &p->connect_w);
    unsigned b = peer_hash (host, port, uid);
    p->hnext = ps->table[b];
    ps->table[b] = p;
    lru_push (ps, p);
    ps->count++;
    return p;
}

int peers_join (struct peers *ps, const char *host, uint16_t port, uid_t uid,
                struct peer_user *u, arbor_error_t *err)
{
    struct peer *p;

    if (!ps || !host || !u || !u->ops) {
        errno = EINVAL;
        return errprintf (err, "peers_join: invalid arguments");
    }
    if (!(p = peer_find (ps, host, port, uid))
        && !(p = peer_dial (ps, host, port, uid, err)))
        return -1;
    lru_unlink (ps, p);
    lru_push (ps, p);
    ev_timer_stop (ps->loop, &p->idle_w);
    u->peer = p;
    u->prev = NULL;
    if ((u->next = p->users))
        u->next->prev = u;
    p->users = u;
    p->nusers++;
    if (p->conn)
        user_ready (p, u);
    return 0;
}

void peers_leave (struct peer_user *u)
{
    if (u && u->peer)
        user_unlink (u);
}

struct peers *peers_create (struct ev_loop *loop, struct auth_pool *pool,
                            const struct peers_opts *opts)
{
    struct peers *ps;

    if (!loop || !pool) {
        errno = EINVAL;
        return NULL;
    }
    if (!(ps = calloc (1, sizeof (*ps))))
        return NULL;
    ps->loop = loop;
    ps->pool = pool;
    if (opts)
        ps->opts = *opts;
    if (!ps->opts.max_conns)
        ps->opts.max_conns = PEERS_MAX_CONNS;
    if (ps->opts.idle_timeout <= 0)
        ps->opts.idle_timeout = PEERS_IDLE_TIMEOUT;
    if (ps->opts.source && !(ps->source = strdup (ps->opts.source))) {
        free (ps);
        return NULL;
    }
    ps->opts.source = NULL;
    return ps;
}

void peers_destroy (struct peers *ps)
{
    int saved = errno;

    if (!ps)
        return;
    while (ps->lru_head) {
        struct peer *p = ps->lru_head;
        while (p->users)
            user_unlink (p->users);
        peer_unlink (p);
        peer_free (p);
    }
    free (ps->source);
    free (ps);
    errno = saved;
}

unsigned peers_count (const struct peers *ps)
{
    return ps ? ps->count : 0;
}
