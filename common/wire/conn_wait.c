/* conn_wait.c - answers awaited on a connection: matchtags handed out by
 * the conn, answers routed to their waiter (see conn_wait.h).
 *
 * The waiters of a conn are a short list (a stepd has a report and a few
 * mesh sends in flight): a walk per answer costs less than a table.
 * Tags count up from 1 and skip 0 on wrapping; one still in use after
 * 2^32 requests is skipped too, so a tag is never shared.
 */
#include <errno.h>
#include <stddef.h>

#include "conn_private.h"
#include "conn_wait.h"
#include "proto.h"

static struct conn_waiter *conn_wait_find (struct conn *c, uint32_t tag)
{
    struct conn_waiter *w = c->waiters;

    while (w && w->tag != tag)
        w = w->next;
    return w;
}

static uint32_t conn_wait_tag (struct conn *c)
{
    uint32_t tag;

    do {
        tag = c->next_tag++;
    } while (tag == 0 || conn_wait_find (c, tag));
    return tag;
}

int conn_wait (struct conn *c, struct conn_waiter *w)
{
    if (!c || !w) {
        errno = EINVAL;
        return -1;
    }
    if (c->destroyed || c->closing) {
        errno = EPIPE;
        return -1;
    }
    w->tag = conn_wait_tag (c);
    w->conn = c;
    w->prev = NULL;
    if ((w->next = c->waiters))
        w->next->prev = w;
    c->waiters = w;
    return 0;
}

void conn_unwait (struct conn_waiter *w)
{
    if (!w || !w->conn)
        return;
    if (w->prev)
        w->prev->next = w->next;
    else
        w->conn->waiters = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->prev = w->next = NULL;
    w->conn = NULL;
}

bool conn_wait_route (struct conn *c, const struct frame *f)
{
    struct conn_waiter *w;

    if (!(f->flags & FRAME_F_RESPONSE)
        || !(w = conn_wait_find (c, f->matchtag)))
        return false;
    conn_unwait (w);
    w->answer (f, w->arg);
    return true;
}

void conn_wait_lost (struct conn *c, const arbor_error_t *err)
{
    while (c->waiters) {
        struct conn_waiter *w = c->waiters;
        conn_unwait (w);
        w->lost (err, w->arg);
    }
}
