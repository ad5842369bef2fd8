/* rpc.c - request dispatch for daemons, and blocking calls for commands.
 *
 * rpc_dispatch() is the one place a daemon checks who may send what: it
 * finds the handler, checks the role, decodes the body into a union
 * msg_any on the stack, runs the handler and clears the message. Refused,
 * unknown and malformed requests are answered with MSG_RC (never answers
 * to answers, which would let two peers bounce errors forever).
 *
 * The blocking side reads and writes whole frames on blocking fds, with a
 * poll()-based deadline on receive, through a struct rpc_chan: over TCP
 * a session opened by rpc_open() (the munge encode is made right there:
 * a command has no loop to keep), on a unix socket none, the sender being
 * its SO_PEERCRED identity (the same rule as CONN_AUTH_PEERCRED), so
 * commands talk to a stepd's unix socket with the same calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "auth.h"
#include "net.h"
#include "rpc.h"
#include "session.h"

/* ---- dispatch ------------------------------------------------------------ */

static const struct rpc_handler *rpc_find (const struct rpc_handler *tab,
                                           int type)
{
    for (const struct rpc_handler *h = tab; h && h->cb; h++)
        if (h->type == type)
            return h;
    return NULL;
}

/* Answer a refused request (not a response) and report it in err. */
static int rpc_refuse (struct conn *c, const struct frame *f, int errnum,
                       const arbor_error_t *why, arbor_error_t *err)
{
    if (!(f->flags & FRAME_F_RESPONSE))
        (void)conn_send_rc (c, f->matchtag, errnum, "%s", why->text);
    if (err)
        *err = *why;
    errno = errnum;
    return -1;
}

int rpc_dispatch (const struct rpc_handler *tab, struct conn *c,
                  const struct frame *f, uid_t priv_uid, void *arg,
                  arbor_error_t *err)
{
    const struct rpc_handler *h = rpc_find (tab, f->type);
    const char *name = proto_msg_name (f->type);
    arbor_error_t why;
    union msg_any msg;

    if (!h) {
        if (name)
            errprintf (&why, "unexpected message %s", name);
        else
            errprintf (&why, "unknown message type %d", f->type);
        return rpc_refuse (c, f, EPROTO, &why, err);
    }
    if (h->role == RPC_PRIV && f->uid != 0 && f->uid != priv_uid) {
        errprintf (&why, "%s: permission denied for uid %u", name ? name : "?",
                   (unsigned)f->uid);
        return rpc_refuse (c, f, EPERM, &why, err);
    }
    if (proto_decode (f->type, f->body, f->body_len, &msg, &why) < 0)
        return rpc_refuse (c, f, EPROTO, &why, err);
    h->cb (c, f, &msg, arg);
    proto_clear (f->type, &msg);
    return 0;
}

/* ---- blocking frames ----------------------------------------------------- */

static int writev_full (int fd, struct iovec *iov, int n, int flags)
{
    while (n > 0) {
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg (fd, &mh, MSG_NOSIGNAL | flags);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

static int rpc_send_flags (struct rpc_chan *ch, int type, uint32_t matchtag,
                           uint16_t fflags, const void *msg, int flags,
                           arbor_error_t *err)
{
    unsigned char hdr[PROTO_HEADER_SIZE], trailer[SESSION_TRAILER];
    struct session *sess = ch->tcp ? &ch->sess : NULL;
    char *body = NULL;
    size_t blen;
    int rc = -1;

    if (!proto_msg_known (type)) {
        errno = EINVAL;
        return errprintf (err, "unknown message type %d", type);
    }
    if (proto_encode (type, msg, &body, &blen) < 0)
        return errprintf (err, "encode %s: %s", proto_msg_name (type),
                          strerror (errno));
    session_frame_head (sess, type, matchtag, fflags, body, blen, hdr, trailer);
    struct iovec iov[3] = {
        { hdr, sizeof (hdr) },
        { trailer, sess ? sizeof (trailer) : 0 },
        { body, blen },
    };
    if (writev_full (ch->fd, iov, 3, flags) < 0)
        errprintf (err, "send %s: %s", proto_msg_name (type), strerror (errno));
    else
        rc = 0;
    int saved = errno;
    free (body);
    errno = saved;
    return rc;
}

int rpc_send (struct rpc_chan *ch, int type, uint32_t matchtag, const void *msg,
              arbor_error_t *err)
{
    return rpc_send_flags (ch, type, matchtag, 0, msg, 0, err);
}

int rpc_reply (struct rpc_chan *ch, int type, uint32_t matchtag,
               const void *msg, arbor_error_t *err)
{
    return rpc_send_flags (ch, type, matchtag, FRAME_F_RESPONSE, msg, 0, err);
}

int rpc_send_more (struct rpc_chan *ch, int type, uint32_t matchtag,
                   const void *msg, arbor_error_t *err)
{
    return rpc_send_flags (ch, type, matchtag, 0, msg, MSG_MORE, err);
}

/* The token area is what the channel's kind says it must be. */
static int recv_token_len (const struct rpc_chan *ch,
                           const struct frame_header *h, arbor_error_t *err)
{
    if (h->token_len == (ch->tcp ? SESSION_TRAILER : 0u))
        return 0;
    errno = EPROTO;
    return errprintf (err, ch->tcp ? "frame without a session MAC"
                                   : "unexpected token on a unix socket");
}

/* Read one whole frame: header, trailer, body (malloc'd into *body), and
 * check its MAC. Only the daemon we opened the session with can make
 * one, so the body is read before the check. */
static int recv_frame (struct rpc_chan *ch, int64_t deadline,
                       struct frame_header *h, char **body, uid_t *uid,
                       arbor_error_t *err)
{
    unsigned char hdr[PROTO_HEADER_SIZE], trailer[SESSION_TRAILER];

    *body = NULL;
    if (fd_read_deadline (ch->fd, hdr, sizeof (hdr), deadline) < 0)
        return errprintf (err, "receive: %s",
                          errno == ETIMEDOUT ? "no answer in time"
                                             : strerror (errno));
    if (frame_header_unpack (hdr, h, err) < 0
        || recv_token_len (ch, h, err) < 0)
        return -1;
    if (!(*body = malloc (h->body_len ? h->body_len : 1)))
        return errprintf (err, "receive: out of memory");
    if (fd_read_deadline (ch->fd, trailer, h->token_len, deadline) < 0
        || fd_read_deadline (ch->fd, *body, h->body_len, deadline) < 0) {
        errprintf (err, "receive: %s",
                   errno == ETIMEDOUT ? "no answer in time" : strerror (errno));
        goto fail;
    }
    if (ch->tcp
        && session_open (&ch->sess, hdr, trailer, *body, h->body_len, err) < 0)
        goto fail;
    if (!ch->tcp && net_peer_cred (ch->fd, &ch->peer_uid, NULL, NULL) < 0) {
        errprintf (err, "SO_PEERCRED: %s", strerror (errno));
        goto fail;
    }
    if (uid)
        *uid = ch->peer_uid;
    return 0;
fail:;
    int saved = errno;
    free (*body);
    *body = NULL;
    errno = saved;
    return -1;
}

int rpc_recv (struct rpc_chan *ch, int timeout_ms, int *type,
              union msg_any *msg, uid_t *uid, arbor_error_t *err)
{
    return rpc_recv_tagged (ch, timeout_ms, type, NULL, NULL, msg, uid, err);
}

int rpc_recv_tagged (struct rpc_chan *ch, int timeout_ms, int *type,
                     uint32_t *matchtag, uint16_t *flags, union msg_any *msg,
                     uid_t *uid, arbor_error_t *err)
{
    struct frame_header h;
    char *body;
    int rc;

    if (recv_frame (ch, net_deadline (timeout_ms), &h, &body, uid, err) < 0)
        return -1;
    if (!proto_msg_known (h.type)) {
        free (body);
        errno = EPROTO;
        return errprintf (err, "unknown message type %u", h.type);
    }
    rc = proto_decode (h.type, body, h.body_len, msg, err);
    free (body);
    if (rc == 0 && type)
        *type = h.type;
    if (rc == 0 && matchtag)
        *matchtag = h.matchtag;
    if (rc == 0 && flags)
        *flags = h.flags;
    return rc;
}

/* Turn a received answer into rpc_call's result. */
static int call_answer (const struct frame_header *h, const char *body,
                        int resp_type, void *resp, arbor_error_t *err)
{
    if (h->type == MSG_RC) {
        struct msg_rc rc;
        if (proto_decode (MSG_RC, body, h->body_len, &rc, err) < 0)
            return -1;
        int e = rc.errnum;
        if (e != 0) {
            errprintf (err, "%s", rc.text && *rc.text ? rc.text : strerror (e));
            proto_clear (MSG_RC, &rc);
            errno = e;
            return -1;
        }
        if (resp_type == MSG_RC) {
            memcpy (resp, &rc, sizeof (rc));
            return 0;
        }
        proto_clear (MSG_RC, &rc);
    }
    if (h->type != resp_type) {
        errno = EPROTO;
        return errprintf (err, "expected %s, got %s",
                          proto_msg_name (resp_type) ?: "?",
                          proto_msg_name (h->type) ?: "unknown message");
    }
    return proto_decode (resp_type, body, h->body_len, resp, err);
}

/* The HELLO: the session key in a munge token only peer_uid can open,
 * bound to the address dialled. */
static int rpc_hello (struct rpc_chan *ch, struct auth *a, arbor_error_t *err)
{
    unsigned char hdr[PROTO_HEADER_SIZE], trailer[SESSION_TRAILER];
    char payload[SESSION_PAYLOAD_MAX], dest[64];
    struct msg_conn_hello m = { 0 };
    char *body = NULL;
    size_t plen, blen;
    int rc = -1;

    net_peer_name (ch->fd, dest, sizeof (dest));
    if (session_init_random (&ch->sess) < 0)
        return errprintf (err, "cannot initialise libsodium");
    if (!(plen =
              session_payload (&ch->sess, dest, payload, sizeof (payload)))) {
        errno = ENAMETOOLONG;
        return errprintf (err, "address %s too long", dest);
    }
    if (auth_encode_for (a, payload, plen, 0, ch->peer_uid, &m.munge, err) < 0)
        return -1;
    if (proto_encode (MSG_CONN_HELLO, &m, &body, &blen) < 0) {
        errprintf (err, "encode CONN_HELLO: %s", strerror (errno));
        goto done;
    }
    session_frame_head (&ch->sess, MSG_CONN_HELLO, 0, 0, body, blen, hdr,
                        trailer);
    struct iovec iov[3] = {
        { hdr, sizeof (hdr) },
        { trailer, sizeof (trailer) },
        { body, blen },
    };
    if (writev_full (ch->fd, iov, 3, 0) < 0)
        errprintf (err, "send CONN_HELLO: %s", strerror (errno));
    else
        rc = 0;
done:;
    int saved = errno;
    free (body);
    free (m.munge);
    errno = saved;
    return rc;
}

int rpc_open (struct rpc_chan *ch, struct auth *a, const char *host,
              uint16_t port, uid_t peer_uid, int timeout_ms, arbor_error_t *err)
{
    memset (ch, 0, sizeof (*ch));
    ch->fd = -1;
    if (!a || !host) {
        errno = EINVAL;
        return errprintf (err, "rpc_open: invalid arguments");
    }
    if ((ch->fd = net_connect_tcp (host, port, timeout_ms, err)) < 0)
        return -1;
    ch->tcp = true;
    ch->peer_uid = peer_uid;
    if (rpc_hello (ch, a, err) < 0) {
        rpc_close (ch);
        return -1;
    }
    return 0;
}

void rpc_chan_unix (struct rpc_chan *ch, int fd)
{
    memset (ch, 0, sizeof (*ch));
    ch->fd = fd;
    ch->peer_uid = (uid_t)-1;
}

void rpc_close (struct rpc_chan *ch)
{
    int saved = errno;

    if (ch->fd >= 0)
        close (ch->fd);
    ch->fd = -1;
    session_clear (&ch->sess);
    errno = saved;
}

/* Send 'req' on the open 'ch', read one answer and close 'ch'. */
static int rpc_exchange (struct rpc_chan *ch, int64_t deadline, int req_type,
                         const void *req, int resp_type, void *resp,
                         arbor_error_t *err)
{
    const uint32_t tag = 1;
    struct frame_header h;
    char *body = NULL;
    int rc = -1;

    if (rpc_send (ch, req_type, tag, req, err) < 0
        || recv_frame (ch, deadline, &h, &body, NULL, err) < 0)
        goto done;
    if (h.matchtag != tag) {
        errno = EPROTO;
        errprintf (err, "answer for tag %u, expected %u", h.matchtag, tag);
        goto done;
    }
    rc = call_answer (&h, body, resp_type, resp, err);
done:;
    int saved = errno;
    free (body);
    rpc_close (ch);
    errno = saved;
    return rc;
}

int rpc_call (struct auth *a, const char *host, uint16_t port, uid_t peer_uid,
              int req_type, const void *req, int resp_type, void *resp,
              int timeout_ms, arbor_error_t *err)
{
    int64_t deadline = net_deadline (timeout_ms);
    struct rpc_chan ch;

    if (!host || !resp || !proto_msg_known (resp_type)) {
        errno = EINVAL;
        return errprintf (err, "rpc_call: invalid arguments");
    }
    if (rpc_open (&ch, a, host, port, peer_uid, timeout_ms, err) < 0)
        return -1;
    return rpc_exchange (&ch, deadline, req_type, req, resp_type, resp, err);
}

int rpc_call_unix (const char *path, int req_type, const void *req,
                   int resp_type, void *resp, int timeout_ms,
                   arbor_error_t *err)
{
    int64_t deadline = net_deadline (timeout_ms);
    struct rpc_chan ch;
    int fd;

    if (!path || !resp || !proto_msg_known (resp_type)) {
        errno = EINVAL;
        return errprintf (err, "rpc_call_unix: invalid arguments");
    }
    if ((fd = net_connect_unix (path, err)) < 0)
        return -1;
    rpc_chan_unix (&ch, fd);
    return rpc_exchange (&ch, deadline, req_type, req, resp_type, resp, err);
}
