/* rpc.c - request dispatch for daemons, and blocking calls for commands.
 *
 * rpc_dispatch() is the one place a daemon checks who may send what: it
 * finds the handler, checks the role, decodes the body into a union
 * msg_any on the stack, runs the handler and clears the message. Refused,
 * unknown and malformed requests are answered with MSG_RC (never answers
 * to answers, which would let two peers bounce errors forever).
 *
 * The blocking side reads and writes whole frames on blocking fds, with a
 * poll()-based deadline on receive. With a NULL struct auth, frames carry
 * no token and the sender is the unix socket's SO_PEERCRED identity (the
 * same rule as CONN_AUTH_PEERCRED), so commands can talk to a stepd's
 * unix socket with the same calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "net.h"
#include "rpc.h"

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

static int64_t now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read exactly len bytes before 'deadline' (0: no deadline). */
static int read_deadline (int fd, void *buf, size_t len, int64_t deadline)
{
    char *p = buf;

    while (len > 0) {
        if (deadline) {
            struct pollfd pf = { .fd = fd, .events = POLLIN };
            int64_t left = deadline - now_ms ();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            int n = poll (&pf, 1, (int)left);
            if (n < 0 && errno != EINTR)
                return -1;
            if (n <= 0)
                continue;
        }
        ssize_t n = read (fd, p, len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = ECONNRESET;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int writev_full (int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg (fd, &mh, MSG_NOSIGNAL);
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

int rpc_send (int fd, struct auth *a, int type, uint32_t matchtag,
              const void *msg, arbor_error_t *err)
{
    unsigned char hdr[PROTO_HEADER_SIZE], digest[FRAME_DIGEST_SIZE];
    char *body = NULL, *token = NULL;
    size_t blen, tlen = 0;
    int rc = -1;

    if (!proto_msg_known (type)) {
        errno = EINVAL;
        return errprintf (err, "unknown message type %d", type);
    }
    if (proto_encode (type, msg, &body, &blen) < 0)
        return errprintf (err, "encode %s: %s", proto_msg_name (type),
                          strerror (errno));
    if (a) {
        frame_digest ((uint16_t)type, matchtag, body, blen, digest);
        if (auth_mint (a, digest, sizeof (digest), &token, err) < 0)
            goto done;
        tlen = strlen (token);
    }
    struct frame_header h = {
        .major = PROTO_VERSION_MAJOR,
        .minor = PROTO_VERSION_MINOR,
        .type = (uint16_t)type,
        .flags = 0,
        .matchtag = matchtag,
        .token_len = (uint32_t)tlen,
        .body_len = (uint32_t)blen,
    };
    frame_header_pack (&h, hdr);
    struct iovec iov[3] = {
        { hdr, sizeof (hdr) },
        { token, tlen },
        { body, blen },
    };
    if (writev_full (fd, iov, 3) < 0)
        errprintf (err, "send %s: %s", proto_msg_name (type), strerror (errno));
    else
        rc = 0;
done:;
    int saved = errno;
    free (token);
    free (body);
    errno = saved;
    return rc;
}

/* Who sent the frame whose token was just read: munge token (its digest
 * kept for the body), or SO_PEERCRED when 'a' is NULL. */
static int recv_token (int fd, struct auth *a, const struct frame_header *h,
                       const char *token, unsigned char *digest, uid_t *uid,
                       arbor_error_t *err)
{
    if (!a) {
        if (h->token_len != 0) {
            errno = EPROTO;
            return errprintf (err, "unexpected token on a unix socket");
        }
        if (net_peer_cred (fd, uid, NULL, NULL) < 0)
            return errprintf (err, "SO_PEERCRED: %s", strerror (errno));
        return 0;
    }
    return auth_token_digest (a, token, h->token_len, digest, FRAME_DIGEST_SIZE,
                              uid, NULL, err);
}

static int recv_body_check (struct auth *a, const struct frame_header *h,
                            const char *body, const unsigned char *want,
                            arbor_error_t *err)
{
    unsigned char digest[FRAME_DIGEST_SIZE];

    if (!a)
        return 0;
    frame_digest (h->type, h->matchtag, body, h->body_len, digest);
    if (memcmp (digest, want, sizeof (digest)) != 0) {
        errno = EPERM;
        return errprintf (err, "munge token does not match frame");
    }
    return 0;
}

/* Read one whole frame: header, token (checked before any memory is given
 * to the body the header announces), body (malloc'd into *body). */
static int recv_frame (int fd, struct auth *a, int64_t deadline,
                       struct frame_header *h, char **body, uid_t *uid,
                       arbor_error_t *err)
{
    unsigned char hdr[PROTO_HEADER_SIZE], digest[FRAME_DIGEST_SIZE];
    char token[PROTO_MAX_TOKEN];
    uid_t u = (uid_t)-1;

    *body = NULL;
    if (read_deadline (fd, hdr, sizeof (hdr), deadline) < 0)
        return errprintf (err, "receive: %s",
                          errno == ETIMEDOUT ? "no answer in time"
                                             : strerror (errno));
    if (frame_header_unpack (hdr, h, err) < 0)
        return -1;
    if (read_deadline (fd, token, h->token_len, deadline) < 0)
        return errprintf (err, "receive: %s",
                          errno == ETIMEDOUT ? "no answer in time"
                                             : strerror (errno));
    if (recv_token (fd, a, h, token, digest, &u, err) < 0)
        return -1;
    if (!(*body = malloc (h->body_len ? h->body_len : 1)))
        return errprintf (err, "receive: out of memory");
    if (read_deadline (fd, *body, h->body_len, deadline) < 0) {
        errprintf (err, "receive: %s",
                   errno == ETIMEDOUT ? "no answer in time" : strerror (errno));
        goto fail;
    }
    if (recv_body_check (a, h, *body, digest, err) < 0)
        goto fail;
    if (uid)
        *uid = u;
    return 0;
fail:;
    int saved = errno;
    free (*body);
    *body = NULL;
    errno = saved;
    return -1;
}

static int64_t deadline_of (int timeout_ms)
{
    return timeout_ms > 0 ? now_ms () + timeout_ms : 0;
}

int rpc_recv (int fd, struct auth *a, int timeout_ms, int *type,
              union msg_any *msg, uid_t *uid, arbor_error_t *err)
{
    return rpc_recv_tagged (fd, a, timeout_ms, type, NULL, NULL, msg, uid, err);
}

int rpc_recv_tagged (int fd, struct auth *a, int timeout_ms, int *type,
                     uint32_t *matchtag, uint16_t *flags, union msg_any *msg,
                     uid_t *uid, arbor_error_t *err)
{
    struct frame_header h;
    char *body;
    int rc;

    if (recv_frame (fd, a, deadline_of (timeout_ms), &h, &body, uid, err) < 0)
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

int rpc_call (struct auth *a, const char *host, uint16_t port, int req_type,
              const void *req, int resp_type, void *resp, int timeout_ms,
              arbor_error_t *err)
{
    const uint32_t tag = 1;
    int64_t deadline = deadline_of (timeout_ms);
    struct frame_header h;
    char *body = NULL;
    int fd, rc = -1;

    if (!host || !resp || !proto_msg_known (resp_type)) {
        errno = EINVAL;
        return errprintf (err, "rpc_call: invalid arguments");
    }
    if ((fd = net_connect_tcp (host, port, timeout_ms, err)) < 0)
        return -1;
    if (rpc_send (fd, a, req_type, tag, req, err) < 0
        || recv_frame (fd, a, deadline, &h, &body, NULL, err) < 0)
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
    close (fd);
    errno = saved;
    return rc;
}
