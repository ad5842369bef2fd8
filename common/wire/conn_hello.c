/* conn_hello.c - the session handshake of a TCP conn (session.h).
 *
 * Initiator: with munge, the key goes in a token the auth pool encodes,
 * restricted to the peer daemon's uid; until it is ready, frames are
 * sealed and queued (c->held) and the HELLO is put in front of them when
 * it is. With a step key, the HELLO (step, nonce, and a launcher's
 * ticket) is sent at once.
 * Responder: the first frame must be a CONN_HELLO of at most
 * CONN_HELLO_MAX bytes; with munge, reading stops while the pool decodes
 * its token, whose restriction and address are then checked here, and
 * what followed the HELLO is delivered once the session is open. A
 * munge responder that can open launch tickets (node zero) also takes a
 * HELLO with a ticket instead of a token: the ticket, a credential for
 * this node alone, names the step, its owner and the I/O key the launch
 * key is derived from, and the connection serves that step alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "authpool.h"
#include "conn_private.h"
#include "conn_hello.h"
#include "conn_in.h"
#include "net.h"
#include "proto.h"
#include "session.h"

/* Header + trailer + body of a sealed frame, into *out (malloc'd). */
static int frame_pack_sealed (struct session *sess, int type, uint32_t tag,
                              int flags, const char *body, size_t blen,
                              char **out, size_t *outlen)
{
    size_t head = PROTO_HEADER_SIZE + SESSION_TRAILER;
    unsigned char *p = malloc (head + blen);

    if (!p)
        return -1;
    session_frame_head (sess, type, tag, flags, body, blen, p,
                        p + PROTO_HEADER_SIZE);
    if (blen)
        memcpy (p + head, body, blen);
    *out = (char *)p;
    *outlen = head + blen;
    return 0;
}

/* The HELLO, sealed as frame 0 of the initiator's direction. */
static int hello_pack (struct conn *c, const struct msg_conn_hello *m,
                       char **out, size_t *outlen)
{
    uint64_t next = c->sess.send_seq;
    char *body;
    size_t blen;
    int rc;

    if (proto_encode (MSG_CONN_HELLO, m, &body, &blen) < 0)
        return -1;
    c->sess.send_seq = 0;
    rc = frame_pack_sealed (&c->sess, MSG_CONN_HELLO, 0, 0, body, blen, out,
                            outlen);
    c->sess.send_seq = next > 0 ? next : 1;
    free (body);
    return rc;
}

/* Initiator, munge: the pool has made the token; send the HELLO. */
static void hello_minted_cb (struct auth_result *res, void *arg)
{
    struct conn *c = arg;
    struct msg_conn_hello m = { .munge = res->token };
    char *frame;
    size_t len;

    c->job = NULL;
    conn_enter (c);
    if (res->errnum) {
        conn_failf (c, "%s", res->err.text);
    } else if (hello_pack (c, &m, &frame, &len) < 0) {
        conn_failf (c, "CONN_HELLO: %s", strerror (errno));
    } else {
        if (conn_out_prepend (c, frame, len) < 0)
            conn_failf (c, "CONN_HELLO: %s", strerror (errno));
        free (frame);
    }
    conn_leave (c);
}

static int initiator_start_munge (struct conn *c)
{
    char payload[SESSION_PAYLOAD_MAX];
    size_t len;

    if (session_init_random (&c->sess) < 0)
        return -1;
    c->sess.send_seq = 1; /* 0 is the HELLO's */
    if (!(len =
              session_payload (&c->sess, c->peer, payload, sizeof (payload)))) {
        errno = ENAMETOOLONG;
        return -1;
    }
    c->held = true;
    c->keyed = true;
    c->peer_uid = c->auth.peer_uid;
    c->peer_gid = (gid_t)-1;
    c->job = auth_pool_encode (c->auth.pool, payload, len, 0, c->auth.peer_uid,
                               hello_minted_cb, c);
    return c->job ? 0 : -1;
}

static int initiator_start_stepkey (struct conn *c)
{
    unsigned char nonce[SESSION_NONCE_SIZE];
    struct msg_conn_hello m = {
        .job_id = c->auth.job_id,
        .step_id = c->auth.step_id,
        .nonce = (char *)nonce,
        .nonce_len = sizeof (nonce),
        .ticket = c->ticket,
    };
    int (*derive) (struct session *, bool, const char *, uint32_t, uint32_t,
                   const unsigned char *) =
        c->ticket ? session_from_launch_key : session_from_step_key;
    char *frame;
    size_t len;
    int rc;

    if (session_nonce (nonce) < 0
        || derive (&c->sess, true, c->io_key, c->auth.job_id, c->auth.step_id,
                   nonce)
               < 0
        || hello_pack (c, &m, &frame, &len) < 0)
        return -1;
    c->keyed = true;
    c->peer_uid = (uid_t)-1;
    c->peer_gid = (gid_t)-1;
    rc = conn_out_prepend (c, frame, len);
    free (frame);
    return rc;
}

/* Responder, munge: the pool has decoded the HELLO's token. The token
 * must be this daemon's alone (munged lets root read any token, so the
 * restriction is checked here too) and name the address it reached. */
static int hello_accept (struct conn *c, const struct auth_result *res,
                         arbor_error_t *err)
{
    size_t head = PROTO_HEADER_SIZE + SESSION_TRAILER;
    const unsigned char *p = (const unsigned char *)c->hello;
    uid_t me = geteuid ();
    char local[64];

    if (res->errnum) {
        errno = res->errnum;
        return errprintf (err, "CONN_HELLO: %s", res->err.text);
    }
    errno = EPERM;
    if (res->restricted_uid == AUTH_UID_ANY)
        return errprintf (err,
                          "CONN_HELLO: munge token is not restricted to "
                          "this daemon's uid %lu",
                          (unsigned long)me);
    if (res->restricted_uid != me)
        return errprintf (err,
                          "CONN_HELLO: munge token is for uid %lu, not this "
                          "daemon's uid %lu",
                          (unsigned long)res->restricted_uid,
                          (unsigned long)me);
    net_local_name (c->fd, local, sizeof (local));
    if (session_from_payload (&c->sess, res->payload, res->len, local, err) < 0)
        return -1;
    if (session_open (&c->sess, p, p + PROTO_HEADER_SIZE, c->hello + head,
                      c->hello_len - head, err)
        < 0)
        return -1;
    c->peer_uid = res->uid;
    c->peer_gid = res->gid;
    return 0;
}

static void hello_verified_cb (struct auth_result *res, void *arg)
{
    struct conn *c = arg;
    arbor_error_t err;

    c->job = NULL;
    conn_enter (c);
    if (hello_accept (c, res, &err) < 0) {
        conn_refuse (c, &err);
    } else {
        free (c->hello);
        c->hello = NULL;
        c->verifying = false;
        c->keyed = true;
        conn_mark_authenticated (c);
        ev_io_start (c->loop, &c->rw);
        conn_deliver (c); /* what came after the HELLO */
    }
    conn_leave (c);
}

/* Responder, I/O: the key is the step's, derived with the peer's nonce. */
static int hello_stepkey (struct conn *c, const unsigned char *p,
                          const struct frame_header *h,
                          const struct msg_conn_hello *m, arbor_error_t *err)
{
    size_t head = PROTO_HEADER_SIZE + SESSION_TRAILER;

    errno = EPERM;
    if (m->job_id != c->auth.job_id || m->step_id != c->auth.step_id)
        return errprintf (err, "CONN_HELLO for step %u.%u, not %u.%u",
                          m->job_id, m->step_id, c->auth.job_id,
                          c->auth.step_id);
    if (m->nonce_len != SESSION_NONCE_SIZE)
        return errprintf (err, "CONN_HELLO without a %d-byte nonce",
                          SESSION_NONCE_SIZE);
    if (session_from_step_key (&c->sess, false, c->io_key, m->job_id,
                               m->step_id, (const unsigned char *)m->nonce)
        < 0)
        return errprintf (err, "no usable I/O key");
    if (session_open (&c->sess, p, p + PROTO_HEADER_SIZE,
                      (const char *)p + head, h->body_len, err)
        < 0)
        return -1;
    c->keyed = true;
    c->peer_uid = (uid_t)-1;
    c->peer_gid = (gid_t)-1;
    conn_mark_authenticated (c);
    return 0;
}

/* Responder, munge, node zero: a launcher's HELLO with its step's ticket
 * instead of a munge token ('p': the HELLO frame, its body 'body_len'
 * bytes). The ticket opens (sealed under the cluster's credential key,
 * for this node, not expired) and names the HELLO's step; the launch key
 * from its I/O key and the HELLO's nonce verifies the HELLO's MAC. The
 * peer is then the step's owner, for that step. -1 with errno EAGAIN
 * when the ticket cannot be opened yet. */
static int ticket_verify (struct conn *c, const unsigned char *p,
                          size_t body_len, const struct msg_conn_hello *m,
                          arbor_error_t *err)
{
    size_t head = PROTO_HEADER_SIZE + SESSION_TRAILER;
    struct conn_ticket t = { 0 };
    int rc = -1;

    errno = 0; /* EAGAIN only if open_ticket says so */
    if (c->auth.open_ticket (c, m->ticket, &t, err, c->auth.ticket_arg) < 0) {
        if (errno != EAGAIN)
            errno = EPERM;
        return -1;
    }
    errno = EPERM;
    if (m->job_id != t.job_id || m->step_id != t.step_id)
        errprintf (err, "CONN_HELLO for step %u.%u with the ticket of %u.%u",
                   m->job_id, m->step_id, t.job_id, t.step_id);
    else if (m->nonce_len != SESSION_NONCE_SIZE)
        errprintf (err, "CONN_HELLO without a %d-byte nonce",
                   SESSION_NONCE_SIZE);
    else if (session_from_launch_key (&c->sess, false, t.io_key, t.job_id,
                                      t.step_id,
                                      (const unsigned char *)m->nonce)
             < 0)
        errprintf (err, "the launch ticket's I/O key is unusable");
    else if (session_open (&c->sess, p, p + PROTO_HEADER_SIZE,
                           (const char *)p + head, body_len, err)
             == 0)
        rc = 0;
    if (rc == 0) {
        c->keyed = true;
        c->scoped = true;
        c->scope_job = m->job_id;
        c->scope_step = m->step_id;
        c->peer_uid = t.uid;
        c->peer_gid = t.gid;
        conn_mark_authenticated (c);
    }
    explicit_bzero (&t, sizeof (t));
    return rc;
}

/* The first look at a ticket HELLO: verified now, or kept (reading
 * stopped) until conn_ticket_retry. */
static int hello_ticket (struct conn *c, const unsigned char *p,
                         const struct frame_header *h,
                         const struct msg_conn_hello *m, arbor_error_t *err)
{
    size_t len = PROTO_HEADER_SIZE + SESSION_TRAILER + h->body_len;

    if (ticket_verify (c, p, h->body_len, m, err) == 0)
        return 0;
    if (errno != EAGAIN)
        return -1;
    if (!(c->hello = malloc (len))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    memcpy (c->hello, p, len);
    c->hello_len = len;
    c->verifying = true;
    c->ticket_wait = true;
    ev_io_stop (c->loop, &c->rw);
    return 0;
}

void conn_ticket_retry (struct conn *c)
{
    size_t head = PROTO_HEADER_SIZE + SESSION_TRAILER;
    struct msg_conn_hello m;
    arbor_error_t err;
    int rc, e = 0;

    if (!c || !c->ticket_wait || c->destroyed)
        return;
    c->ticket_wait = false;
    conn_enter (c);
    rc = proto_decode (MSG_CONN_HELLO, c->hello + head, c->hello_len - head, &m,
                       &err);
    if (rc == 0) {
        rc = ticket_verify (c, (const unsigned char *)c->hello,
                            c->hello_len - head, &m, &err);
        e = errno;
        proto_clear (MSG_CONN_HELLO, &m);
    }
    if (rc < 0 && e == EAGAIN)
        c->ticket_wait = true; /* still not: wait on */
    else if (rc < 0)
        conn_refuse (c, &err);
    else {
        free (c->hello);
        c->hello = NULL;
        c->verifying = false;
        ev_io_start (c->loop, &c->rw);
        conn_deliver (c); /* what came after the HELLO */
    }
    conn_leave (c);
}

/* Responder, munge: keep a copy of the HELLO, stop reading, and have the
 * pool decode its token. */
static int hello_munge (struct conn *c, const unsigned char *p,
                        const struct frame_header *h,
                        const struct msg_conn_hello *m, arbor_error_t *err)
{
    size_t len = PROTO_HEADER_SIZE + SESSION_TRAILER + h->body_len;

    errno = EPERM;
    if (!m->munge || !*m->munge)
        return errprintf (err, "CONN_HELLO without a munge token");
    if (!(c->hello = malloc (len)))
        return errprintf (err, "out of memory");
    memcpy (c->hello, p, len);
    c->hello_len = len;
    c->job = auth_pool_decode (c->auth.pool, m->munge, strlen (m->munge),
                               hello_verified_cb, c);
    if (!c->job)
        return errprintf (err, "cannot queue a munge decode: %s",
                          strerror (errno));
    c->verifying = true;
    ev_io_stop (c->loop, &c->rw);
    return 0;
}

/* Responder: the first frame, whole (deliver_frames checked its size). */
int conn_hello_receive (struct conn *c, const unsigned char *p,
                        const struct frame_header *h, arbor_error_t *err)
{
    size_t head = PROTO_HEADER_SIZE + SESSION_TRAILER;
    struct msg_conn_hello m;
    int rc;

    if (c->auth.initiator) {
        errno = EPROTO;
        return errprintf (err, "CONN_HELLO from the responder");
    }
    if (proto_decode (MSG_CONN_HELLO, (const char *)p + head, h->body_len, &m,
                      err)
        < 0)
        return -1;
    if (c->auth.mode == CONN_AUTH_STEPKEY)
        rc = hello_stepkey (c, p, h, &m, err);
    else if (c->auth.open_ticket && m.ticket && *m.ticket
             && (!m.munge || !*m.munge))
        rc = hello_ticket (c, p, h, &m, err);
    else
        rc = hello_munge (c, p, h, &m, err);
    proto_clear (MSG_CONN_HELLO, &m);
    return rc;
}

int conn_hello_start (struct conn *c)
{
    return c->auth.mode == CONN_AUTH_MUNGE ? initiator_start_munge (c)
                                           : initiator_start_stepkey (c);
}
