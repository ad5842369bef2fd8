/* request_conn.c - requests on a connection the caller holds (see
 * request_conn.h).
 *
 * Each attempt takes the conn *r->connp holds, waits on it for the
 * answer (conn_wait.h: the conn hands out the matchtag and routes the
 * answer here) and sends the message with that tag. The rest (answer
 * decoding, timeout, retry, the callback) is request.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "conn.h"
#include "conn_wait.h"
#include "request_conn.h"
#include "request_private.h"

static void request_conn_answer (const struct frame *f, void *arg)
{
    struct request *r = arg;

    request_answer (r, f); /* UNTIL_CLOSE is not for held conns */
    request_finish (r);
}

/* The conn closed or was destroyed: reported from the loop, so that the
 * owner (whose ops->closed has run, or who is destroying it) never sees
 * the callback inside its own call. */
static void request_conn_lost (const arbor_error_t *err, void *arg)
{
    struct request *r = arg;

    if (r->connp == &r->held)
        r->held = NULL; /* gone: later attempts fail ENOTCONN */
    request_fail (r, REQUEST_CLOSED, ECONNRESET, NULL);
    snprintf (r->res.err.text, sizeof (r->res.err.text),
              "connection closed before answering%s%.100s",
              err && err->text[0] ? ": " : "", err ? err->text : "");
    request_defer (r);
}

/* 0, or -1 with r->res filled. */
static int request_conn_attempt (struct request *r)
{
    struct conn *c = *r->connp;

    if (!c) {
        request_fail (r, REQUEST_UNREACHED, ENOTCONN, NULL);
        snprintf (r->res.err.text, sizeof (r->res.err.text), "no connection");
        return -1;
    }
    snprintf (r->peer, sizeof (r->peer), "%s", conn_peer (c));
    r->cw.answer = request_conn_answer;
    r->cw.lost = request_conn_lost;
    r->cw.arg = r;
    if (conn_wait (c, &r->cw) < 0) {
        request_fail (r, REQUEST_UNREACHED, errno, "");
        return -1;
    }
    if (conn_send (c, r->type, r->cw.tag, 0, &r->msg) < 0) {
        request_fail (r, REQUEST_UNREACHED, errno, "cannot send: ");
        conn_unwait (&r->cw);
        return -1;
    }
    return 0;
}

struct request *request_conn_follow (struct ev_loop *loop,
                                     struct conn *const *cp, int type,
                                     const void *msg,
                                     const struct request_opts *opts,
                                     request_f cb, void *arg)
{
    struct request *r;

    if (!cp || (opts && (opts->flags & REQUEST_F_UNTIL_CLOSE))) {
        errno = EINVAL;
        return NULL;
    }
    if (!(r = request_create (loop, type, msg, opts, cb, arg)))
        return NULL;
    r->connp = cp;
    r->attempt = request_conn_attempt;
    return request_begin (r);
}

struct request *request_conn (struct conn *c, int type, const void *msg,
                              const struct request_opts *opts, request_f cb,
                              void *arg)
{
    struct request *r;

    if (!c || (opts && (opts->flags & REQUEST_F_UNTIL_CLOSE))) {
        errno = EINVAL;
        return NULL;
    }
    if (!(r = request_create (conn_loop (c), type, msg, opts, cb, arg)))
        return NULL;
    r->held = c;
    r->connp = &r->held;
    r->attempt = request_conn_attempt;
    return request_begin (r);
}
