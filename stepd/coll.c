/* coll.c - all-gather over a tree of the step's stepds (MPI fences).
 *
 * A PMIx fence (or a PMI-2 KVS fence) completes when every node has
 * contributed its data and every node has everyone's. The stepds do it
 * along a tree of the step's nodes by index, 'width' children each (node
 * i's children are width*i+1 .. width*i+width; MpiParams=tree_width=N,
 * else TreeWidth): each node waits for its own contribution and its
 * children's, sends the lot to its parent (GATHER), and the root, once
 * it has every node's, sends the result down (BCAST); each node passes
 * the BCAST on to its children before it delivers it. A round is named by
 * its sequence number: every node starts rounds in the same order, so
 * round k here is round k everywhere. A child's GATHER of the next round
 * may arrive before this node starts it, so rounds are kept in a list.
 *
 * A GATHER carries records [node u32][len u32][data], big-endian; the
 * root orders them by node and the BCAST carries the data alone,
 * concatenated in node order, which is what the plugins get. Frames that
 * arrive twice (mesh.c resends) are ignored.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "coll.h"
#include "mesh.h"
#include "stepd.h"

struct round {
    struct round *next;
    int64_t seq;
    bool local;      /* this node contributed */
    uint32_t nchild; /* children heard from */
    bool *child;     /* by child slot: heard from */
    char *buf;       /* GATHER records so far */
    size_t len, cap;
    bool up; /* sent to the parent (or complete at the root) */
};

/* A complete round waiting to be delivered on the next iteration. */
struct delivery {
    struct delivery *next;
    int64_t seq;
    char *data;
    size_t len;
    int errnum;
};

struct coll {
    struct stepd *sd;
    uint32_t node, nnodes, width;
    int64_t next_seq;  /* of this node's next allgather */
    int64_t delivered; /* rounds below this one are over */
    struct round *rounds;
    struct delivery *ready, **ready_tail;
    ev_timer deliver_w;
    coll_done_f done;
};

static uint32_t coll_parent (const struct coll *c)
{
    return (c->node - 1) / c->width;
}

/* Children of this node: first .. first + n - 1. */
static uint32_t coll_children (const struct coll *c, uint32_t *first)
{
    uint64_t f = (uint64_t)c->node * c->width + 1;

    *first = (uint32_t)f;
    if (f >= c->nnodes)
        return 0;
    return (uint32_t)(c->nnodes - f < c->width ? c->nnodes - f : c->width);
}

static void round_free (struct coll *c, struct round *r)
{
    for (struct round **pp = &c->rounds; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    free (r->child);
    free (r->buf);
    free (r);
}

static struct round *round_get (struct coll *c, int64_t seq)
{
    struct round *r;

    for (r = c->rounds; r; r = r->next)
        if (r->seq == seq)
            return r;
    if (!(r = calloc (1, sizeof (*r)))
        || !(r->child = calloc (c->width, sizeof (*r->child)))) {
        free (r);
        return NULL;
    }
    r->seq = seq;
    r->next = c->rounds;
    c->rounds = r;
    return r;
}

static int round_append (struct round *r, const void *data, size_t len)
{
    if (r->len + len > r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        char *b;
        while (cap < r->len + len)
            cap *= 2;
        if (!(b = realloc (r->buf, cap)))
            return -1;
        r->buf = b;
        r->cap = cap;
    }
    if (len) /* data may be NULL then (a fence without data) */
        memcpy (r->buf + r->len, data, len);
    r->len += len;
    return 0;
}

static int round_add_record (struct round *r, uint32_t node, const void *data,
                             size_t len)
{
    uint32_t hdr[2] = { htonl (node), htonl ((uint32_t)len) };

    if (round_append (r, hdr, sizeof (hdr)) < 0
        || round_append (r, data, len) < 0)
        return -1;
    return 0;
}

static void coll_deliver_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct coll *c = w->data;

    while (c->ready) {
        struct delivery *d = c->ready;
        c->ready = d->next;
        if (!c->ready)
            c->ready_tail = &c->ready;
        c->done (c->sd, d->seq, d->data, d->len, d->errnum);
        free (d->data);
        free (d);
    }
}

/* Round 'seq' is over (data is taken over): deliver it on the next loop
 * iteration, never inside the call that completed it. */
static void coll_finish (struct coll *c, int64_t seq, char *data, size_t len,
                         int errnum)
{
    struct delivery *d = calloc (1, sizeof (*d));

    if (!d) {
        free (data);
        log_err ("fence %lld: out of memory", (long long)seq);
        return;
    }
    *d = (struct delivery){
        .seq = seq, .data = data, .len = len, .errnum = errnum
    };
    *c->ready_tail = d;
    c->ready_tail = &d->next;
    if (seq >= c->delivered)
        c->delivered = seq + 1;
    ev_timer_start (c->sd->loop, &c->deliver_w);
}

/* BCAST to the children, then deliver here. 'data' is taken over. */
static void coll_down (struct coll *c, int64_t seq, char *data, size_t len)
{
    uint32_t first, n = coll_children (c, &first);

    for (uint32_t i = 0; i < n; i++)
        if (mesh_send (c->sd, first + i, MESH_BCAST, (uint64_t)seq, data, len)
            < 0)
            log_err ("fence %lld: BCAST to node %u: %s", (long long)seq,
                     first + i, strerror (errno));
    coll_finish (c, seq, data, len, 0);
}

struct record {
    uint32_t node;
    const char *data;
    uint32_t len;
};

static int record_cmp (const void *a, const void *b)
{
    const struct record *x = a, *y = b;

    return x->node < y->node ? -1 : x->node > y->node;
}

/* At the root: the records of every node, in node order, data only. */
static char *coll_assemble (const struct round *r, uint32_t nnodes, size_t *len)
{
    struct record *recs = calloc (nnodes, sizeof (*recs));
    size_t n = 0, off = 0, total = 0;
    char *out;

    if (!recs)
        return NULL;
    while (off + 8 <= r->len && n < nnodes) {
        uint32_t hdr[2];
        memcpy (hdr, r->buf + off, sizeof (hdr));
        recs[n] =
            (struct record){ ntohl (hdr[0]), r->buf + off + 8, ntohl (hdr[1]) };
        off += 8 + recs[n].len;
        total += recs[n].len;
        n++;
    }
    qsort (recs, n, sizeof (*recs), record_cmp);
    if ((out = malloc (total ? total : 1))) {
        off = 0;
        for (size_t i = 0; i < n; i++) {
            memcpy (out + off, recs[i].data, recs[i].len);
            off += recs[i].len;
        }
        *len = total;
    }
    free (recs);
    return out;
}

/* Send up or complete the round if everything below is in. */
static void coll_check (struct coll *c, struct round *r)
{
    uint32_t first, n = coll_children (c, &first);
    int64_t seq = r->seq;
    size_t len = 0;
    char *all;

    if (r->up || !r->local || r->nchild < n)
        return;
    r->up = true;
    if (c->node != 0) {
        if (mesh_send (c->sd, coll_parent (c), MESH_GATHER, (uint64_t)seq,
                       r->buf, r->len)
            < 0)
            log_err ("fence %lld: GATHER to node %u: %s", (long long)seq,
                     coll_parent (c), strerror (errno));
        return; /* the round ends with the parent's BCAST */
    }
    all = coll_assemble (r, c->nnodes, &len);
    round_free (c, r);
    if (!all) {
        coll_finish (c, seq, NULL, 0, ENOMEM);
        return;
    }
    coll_down (c, seq, all, len);
}

int64_t coll_allgather (struct stepd *sd, const void *data, size_t len)
{
    struct coll *c = sd->coll;
    struct round *r;

    if (!c) {
        errno = EINVAL;
        return -1;
    }
    if (len > PROTO_MAX_PAYLOAD / c->nnodes) {
        errno = EMSGSIZE;
        return -1;
    }
    if (!(r = round_get (c, c->next_seq))) {
        errno = ENOMEM;
        return -1;
    }
    if (round_add_record (r, c->node, data, len) < 0) {
        errno = ENOMEM;
        return -1;
    }
    r->local = true;
    coll_check (c, r);
    return c->next_seq++;
}

static void coll_gather_in (struct coll *c, uint32_t src, int64_t seq,
                            const char *data, size_t len)
{
    uint32_t first, n = coll_children (c, &first);
    struct round *r;

    if (src < first || src >= first + n) {
        log_warn ("fence %lld: GATHER from node %u, not a child of node %u",
                  (long long)seq, src, c->node);
        return;
    }
    if (seq < c->delivered)
        return; /* a resent frame of a round that is over */
    if (!(r = round_get (c, seq)) || r->child[src - first])
        return;
    if (round_append (r, data, len) < 0) {
        log_err ("fence %lld: out of memory", (long long)seq);
        return;
    }
    r->child[src - first] = true;
    r->nchild++;
    coll_check (c, r);
}

static void coll_bcast_in (struct coll *c, uint32_t src, int64_t seq,
                           const char *data, size_t len)
{
    struct round *r;
    char *copy;

    if (c->node == 0 || src != coll_parent (c)) {
        log_warn ("fence %lld: BCAST from node %u, not the parent of node %u",
                  (long long)seq, src, c->node);
        return;
    }
    if (seq < c->delivered)
        return;
    for (r = c->rounds; r; r = r->next)
        if (r->seq == seq)
            break;
    if (r)
        round_free (c, r);
    if (!(copy = malloc (len ? len : 1))) {
        coll_finish (c, seq, NULL, 0, ENOMEM);
        return;
    }
    if (len)
        memcpy (copy, data, len);
    coll_down (c, seq, copy, len);
}

void coll_recv (struct stepd *sd, uint32_t src, uint32_t kind, uint64_t seq,
                const char *data, size_t len)
{
    struct coll *c = sd->coll;

    if (!c || seq > INT64_MAX)
        return;
    if (kind == MESH_GATHER)
        coll_gather_in (c, src, (int64_t)seq, data, len);
    else if (kind == MESH_BCAST)
        coll_bcast_in (c, src, (int64_t)seq, data, len);
}

void coll_fail (struct stepd *sd, int errnum)
{
    struct coll *c = sd->coll;

    while (c && c->rounds) {
        int64_t seq = c->rounds->seq;
        round_free (c, c->rounds);
        coll_finish (c, seq, NULL, 0, errnum);
    }
}

int coll_init (struct stepd *sd, uint32_t node, uint32_t nnodes, uint32_t width,
               coll_done_f done)
{
    struct coll *c = calloc (1, sizeof (*c));

    if (!c)
        return -1;
    *c = (struct coll){
        .sd = sd,
        .node = node,
        .nnodes = nnodes ? nnodes : 1,
        .width = width ? width : 1,
        .done = done,
    };
    c->ready_tail = &c->ready;
    ev_timer_init (&c->deliver_w, coll_deliver_cb, 0., 0.);
    c->deliver_w.data = c;
    sd->coll = c;
    return 0;
}

void coll_fini (struct stepd *sd)
{
    struct coll *c = sd->coll;

    if (!c)
        return;
    ev_timer_stop (sd->loop, &c->deliver_w);
    while (c->rounds)
        round_free (c, c->rounds);
    while (c->ready) {
        struct delivery *d = c->ready;
        c->ready = d->next;
        free (d->data);
        free (d);
    }
    free (c);
    sd->coll = NULL;
}
