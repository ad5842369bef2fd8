/* conn_wait.h - answers awaited on a connection (conn_wait.c).
 *
 * A conn that its owner holds (a stepd's link to its noded, a launcher's
 * connection to node zero) carries requests of the owner's and frames
 * the owner handles itself. The conn hands out the matchtags of the
 * owner's requests and routes each answer (FRAME_F_RESPONSE and a tag
 * handed out here) to the waiter it belongs to; every other frame still
 * goes to ops->frame. request_conn.h builds requests on this; nothing
 * else needs to.
 */
#ifndef ARBOR_CONN_WAIT_H
#define ARBOR_CONN_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "conn.h"
#include "error.h"

/* One awaited answer; embedded in its owner (a request), fields other
 * than the three callbacks' private to conn_wait.c. */
struct conn_waiter {
    /* The answer arrived; the waiter is already detached. f is borrowed
     * for the call. */
    void (*answer) (const struct frame *f, void *arg);
    /* The conn closed or was destroyed first; the waiter is detached.
     * Called after ops->closed, or from inside conn_destroy (). */
    void (*lost) (const arbor_error_t *err, void *arg);
    void *arg;
    uint32_t tag; /* conn_wait: the matchtag to send the request with */
    struct conn *conn;
    struct conn_waiter *prev, *next;
};

/* Attach w (callbacks set) to c and give it a matchtag unique among c's
 * waiters (w->tag). 0, or -1 with errno EPIPE when c is closing or gone,
 * EINVAL on NULL. */
int conn_wait (struct conn *c, struct conn_waiter *w);
/* Detach w; no callback is called. No-op when not attached. */
void conn_unwait (struct conn_waiter *w);

/* ---- for conn.c and conn_in.c ------------------------------------------ */

/* f is an answer to a waiter of c: detach it and call its answer. True
 * when it was (the owner's ops->frame is then not called). */
bool conn_wait_route (struct conn *c, const struct frame *f);
/* c is closing or destroyed: every waiter is detached and told. */
void conn_wait_lost (struct conn *c, const arbor_error_t *err);

#endif
