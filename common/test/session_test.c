/* session_test.c - the connection handshake and the frame MACs.
 *
 * A responder conn (as every daemon's listener makes) on a loop, and a raw
 * client on the other end of a TCP loopback pair that writes frames made
 * by hand with session.h: a good session, then each way a frame or a
 * CONN_HELLO can be wrong. Each must close the conn as refused
 * (conn_refused: the daemon reports it with log_security) with a reason
 * naming what was wrong. The munge cases use a private munged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "skip.h"
#include <ev.h>

#include "auth.h"
#include "authpool.h"
#include "conn.h"
#include "munged_fixture.h"
#include "net.h"
#include "proto.h"
#include "session.h"

#define IO_KEY "0123456789abcdef0123456789abcdef"

struct fixture {
    struct munged_fixture m;
    bool have_munge;
    struct auth *auth;
};

static int group_setup (void **state)
{
    struct fixture *fx = calloc (1, sizeof (*fx));
    arbor_error_t err;

    if (munged_fixture_start (&fx->m) == 0) {
        fx->have_munge = true;
        if (!(fx->auth = auth_create (fx->m.socket, &err)))
            return -1;
    }
    *state = fx;
    return 0;
}

static int group_teardown (void **state)
{
    struct fixture *fx = *state;

    auth_destroy (fx->auth);
    if (fx->have_munge)
        munged_fixture_stop (&fx->m);
    free (fx);
    return 0;
}

#define NEED_MUNGE(fx)                                  \
    do {                                                \
        if (!(fx)->have_munge) {                        \
            ARBOR_SKIP ("munged could not be started"); \
        }                                               \
    } while (0)

/* ---- session.h alone ---------------------------------------------------- */

static void pack (struct session *s, int type, const char *body,
                  unsigned char hdr[PROTO_HEADER_SIZE],
                  unsigned char tr[SESSION_TRAILER])
{
    session_frame_head (s, type, 1, 0, body, strlen (body), hdr, tr);
}

static void test_seal_open (void **state)
{
    struct session a, b, c;
    unsigned char hdr[PROTO_HEADER_SIZE], tr[SESSION_TRAILER];
    arbor_error_t err;

    assert_int_equal (session_init_random (&a), 0);
    b = a; /* the responder's copy of the key */
    b.initiator = false;
    pack (&a, MSG_RC, "hello", hdr, tr);
    assert_int_equal (session_open (&b, hdr, tr, "hello", 5, &err), 0);

    /* reflected back to its sender: the direction differs */
    c = a;
    c.recv_seq = 0;
    assert_int_equal (session_open (&c, hdr, tr, "hello", 5, &err), -1);
    assert_int_equal (errno, EPERM);
    assert_non_null (strstr (err.text, "MAC does not verify"));

    /* the header is covered too: another matchtag */
    pack (&a, MSG_RC, "x", hdr, tr);
    hdr[15] ^= 1;
    assert_int_equal (session_open (&b, hdr, tr, "x", 1, &err), -1);
    assert_non_null (strstr (err.text, "MAC does not verify"));

    /* the I/O key derivation: same inputs, same key; another step, not */
    unsigned char nonce[SESSION_NONCE_SIZE];
    struct session i1, i2, i3;
    assert_int_equal (session_nonce (nonce), 0);
    assert_int_equal (session_from_step_key (&i1, true, IO_KEY, 5, 0, nonce),
                      0);
    assert_int_equal (session_from_step_key (&i2, false, IO_KEY, 5, 0, nonce),
                      0);
    assert_int_equal (session_from_step_key (&i3, false, IO_KEY, 5, 1, nonce),
                      0);
    assert_memory_equal (i1.key, i2.key, SESSION_KEY_SIZE);
    assert_memory_not_equal (i1.key, i3.key, SESSION_KEY_SIZE);
    assert_int_equal (session_from_step_key (&i3, false, "short", 5, 1, nonce),
                      -1);
}

/* A secret sealed under a session opens under the same key only, whole. */
static void test_secret (void **state)
{
    struct session a, b, other;
    const char key[] = "0123456789abcdef0123456789abcdef";
    unsigned char box[sizeof (key) + SESSION_SEAL_OVERHEAD];
    char out[sizeof (key)];
    arbor_error_t err;

    (void)state;
    assert_int_equal (session_init_random (&a), 0);
    b = a;
    b.initiator = false;
    assert_int_equal (session_init_random (&other), 0);
    assert_int_equal (session_seal_secret (&a, key, sizeof (key), box), 0);
    assert_null (memmem (box, sizeof (box), "0123456789abcdef", 16));
    assert_int_equal (session_open_secret (&b, box, sizeof (box), out, &err),
                      0);
    assert_string_equal (out, key);
    assert_int_equal (
        session_open_secret (&other, box, sizeof (box), out, &err), -1);
    assert_int_equal (errno, EPERM);
    assert_non_null (strstr (err.text, "does not open"));
    box[SESSION_SEAL_OVERHEAD + 3] ^= 1;
    assert_int_equal (session_open_secret (&b, box, sizeof (box), out, &err),
                      -1);
    assert_non_null (strstr (err.text, "altered"));
    assert_int_equal (session_open_secret (&b, box, 10, out, &err), -1);
    assert_non_null (strstr (err.text, "too short"));
}

static void test_payload (void **state)
{
    struct session a, b;
    char buf[SESSION_PAYLOAD_MAX];
    arbor_error_t err;
    size_t len;

    assert_int_equal (session_init_random (&a), 0);
    len = session_payload (&a, "127.0.1.7:6818", buf, sizeof (buf));
    assert_true (len > 0);
    assert_int_equal (
        session_from_payload (&b, buf, len, "127.0.1.7:6818", &err), 0);
    assert_memory_equal (a.key, b.key, SESSION_KEY_SIZE);
    assert_int_equal (
        session_from_payload (&b, buf, len, "127.0.1.8:6818", &err), -1);
    assert_string_equal (err.text, "munge token was made for 127.0.1.7:6818, "
                                   "not 127.0.1.8:6818");
    assert_int_equal (session_from_payload (&b, "ARS1", 4, "x", &err), -1);
    assert_string_equal (err.text, "munge token does not carry a session key");
}

/* ---- a responder conn and a raw client --------------------------------- */

struct srv {
    struct ev_loop *loop;
    struct auth_pool *pool;
    struct conn *c;
    int frames;
    uid_t uid;
    bool closed, refused;
    char why[256];
};

struct raw {
    int fd;
    struct session s;
};

static void srv_frame (struct conn *c, const struct frame *f, void *arg)
{
    struct srv *sv = arg;

    sv->frames++;
    sv->uid = f->uid;
    ev_break (sv->loop, EVBREAK_ONE);
}

static void srv_closed (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct srv *sv = arg;

    sv->closed = true;
    sv->refused = conn_refused (c);
    snprintf (sv->why, sizeof (sv->why), "%s", err->text);
    sv->c = NULL;
    ev_break (sv->loop, EVBREAK_ONE);
}

static const struct conn_ops srv_ops = { srv_frame, srv_closed };

static void timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    ev_break (loop, EVBREAK_ALL);
}

/* Run until the conn delivers or closes (5 s at most). */
static void srv_run (struct srv *sv)
{
    ev_timer t;

    ev_timer_init (&t, timeout_cb, 5., 0.);
    ev_timer_start (sv->loop, &t);
    ev_run (sv->loop, 0);
    ev_timer_stop (sv->loop, &t);
}

/* A TCP pair: the raw client's fd, and a responder conn on the other. */
static void pair (struct fixture *fx, struct srv *sv, struct raw *r,
                  const struct conn_auth *a)
{
    arbor_error_t err;
    uint16_t port;
    int lfd = net_listen_tcp ("127.0.0.1", 0, &port, &err);

    memset (sv, 0, sizeof (*sv));
    memset (r, 0, sizeof (*r));
    sv->loop = ev_loop_new (EVFLAG_AUTO);
    if (fx && fx->have_munge)
        sv->pool = auth_pool_create (sv->loop, fx->m.socket, 1, &err);
    assert_true (lfd >= 0);
    r->fd = net_connect_tcp ("127.0.0.1", port, 2000, &err);
    assert_true (r->fd >= 0);
    fd_set_nonblock (lfd, 0);
    int sfd = accept (lfd, NULL, NULL);
    assert_true (sfd >= 0);
    close (lfd);
    struct conn_auth ca = *a;
    ca.pool = sv->pool;
    assert_non_null (sv->c = conn_create (sv->loop, sfd, &ca, &srv_ops, sv));
}

static void pair_free (struct srv *sv, struct raw *r)
{
    conn_destroy (sv->c);
    auth_pool_destroy (sv->pool);
    ev_loop_destroy (sv->loop);
    close (r->fd);
}

/* Seal 'msg' as the next frame of r's session into buf; returns its size. */
static size_t seal (struct session *s, int type, const void *msg, char *buf,
                    size_t cap)
{
    char *body;
    size_t blen;

    assert_int_equal (proto_encode (type, msg, &body, &blen), 0);
    assert_true (PROTO_HEADER_SIZE + SESSION_TRAILER + blen <= cap);
    session_frame_head (s, type, 1, 0, body, blen, (unsigned char *)buf,
                        (unsigned char *)buf + PROTO_HEADER_SIZE);
    memcpy (buf + PROTO_HEADER_SIZE + SESSION_TRAILER, body, blen);
    free (body);
    return PROTO_HEADER_SIZE + SESSION_TRAILER + blen;
}

static void put (struct raw *r, const char *buf, size_t len)
{
    assert_int_equal (fd_write_full (r->fd, buf, len), 0);
}

/* The munge HELLO: a key for 'uid', bound to 'dest' (NULL: the address
 * really dialled), with 'ttl'. */
static void hello_munge (struct fixture *fx, struct raw *r, uid_t uid, int ttl,
                         const char *dest)
{
    char payload[SESSION_PAYLOAD_MAX], peer[64], buf[8192];
    struct msg_conn_hello m = { 0 };
    arbor_error_t err;
    size_t plen;

    assert_int_equal (session_init_random (&r->s), 0);
    net_peer_name (r->fd, peer, sizeof (peer));
    plen =
        session_payload (&r->s, dest ? dest : peer, payload, sizeof (payload));
    assert_int_equal (
        auth_encode_for (fx->auth, payload, plen, ttl, uid, &m.munge, &err), 0);
    put (r, buf, seal (&r->s, MSG_CONN_HELLO, &m, buf, sizeof (buf)));
    free (m.munge);
}

static void send_signal (struct raw *r, int sig)
{
    struct msg_step_signal m = { .signal = sig };
    char buf[256];

    put (r, buf, seal (&r->s, MSG_STEP_SIGNAL, &m, buf, sizeof (buf)));
}

static void expect_refused (struct srv *sv, const char *why)
{
    srv_run (sv);
    assert_true (sv->closed);
    assert_true (sv->refused);
    if (!strstr (sv->why, why))
        fail_msg ("refused with '%s', expected '%s'", sv->why, why);
}

static const struct conn_auth munge_responder = { .mode = CONN_AUTH_MUNGE };

static void test_good_session (void **state)
{
    struct fixture *fx = *state;
    struct srv sv;
    struct raw r;

    NEED_MUNGE (fx);
    pair (fx, &sv, &r, &munge_responder);
    hello_munge (fx, &r, geteuid (), 0, NULL);
    send_signal (&r, 15);
    srv_run (&sv);
    assert_int_equal (sv.frames, 1);
    assert_int_equal (sv.uid, getuid ());
    assert_false (sv.closed);
    assert_true (conn_authenticated (sv.c));
    pair_free (&sv, &r);
}

static void test_tampered_byte (void **state)
{
    struct fixture *fx = *state;
    struct msg_step_signal m = { .signal = 15 };
    char buf[256];
    struct srv sv;
    struct raw r;

    NEED_MUNGE (fx);
    pair (fx, &sv, &r, &munge_responder);
    hello_munge (fx, &r, geteuid (), 0, NULL);
    size_t len = seal (&r.s, MSG_STEP_SIGNAL, &m, buf, sizeof (buf));
    buf[len - 1] ^= 0x01; /* the last byte of the body */
    put (&r, buf, len);
    expect_refused (&sv, "frame MAC does not verify");
    assert_int_equal (sv.frames, 0);
    pair_free (&sv, &r);
}

static void test_replayed_frame (void **state)
{
    struct fixture *fx = *state;
    struct msg_step_signal m = { .signal = 15 };
    char buf[256];
    struct srv sv;
    struct raw r;

    NEED_MUNGE (fx);
    pair (fx, &sv, &r, &munge_responder);
    hello_munge (fx, &r, geteuid (), 0, NULL);
    size_t len = seal (&r.s, MSG_STEP_SIGNAL, &m, buf, sizeof (buf));
    put (&r, buf, len);
    put (&r, buf, len);
    srv_run (&sv); /* the first is delivered */
    assert_int_equal (sv.frames, 1);
    expect_refused (&sv, "replayed frame (sequence 1, expected 2)");
    pair_free (&sv, &r);
}

static void test_reordered_frames (void **state)
{
    struct fixture *fx = *state;
    struct msg_step_signal m = { .signal = 15 };
    char a[256], b[256];
    struct srv sv;
    struct raw r;

    NEED_MUNGE (fx);
    pair (fx, &sv, &r, &munge_responder);
    hello_munge (fx, &r, geteuid (), 0, NULL);
    size_t alen = seal (&r.s, MSG_STEP_SIGNAL, &m, a, sizeof (a));
    size_t blen = seal (&r.s, MSG_STEP_SIGNAL, &m, b, sizeof (b));
    put (&r, b, blen);
    put (&r, a, alen);
    expect_refused (&sv, "frame out of order (sequence 2, expected 1)");
    assert_int_equal (sv.frames, 0);
    pair_free (&sv, &r);
}

static void test_other_connections_key (void **state)
{
    struct fixture *fx = *state;
    struct session other;
    struct srv sv;
    struct raw r;

    NEED_MUNGE (fx);
    pair (fx, &sv, &r, &munge_responder);
    hello_munge (fx, &r, geteuid (), 0, NULL);
    assert_int_equal (session_init_random (&other), 0);
    other.send_seq = 1; /* the right place, the wrong key */
    r.s = other;
    send_signal (&r, 15);
    expect_refused (&sv, "frame MAC does not verify");
    pair_free (&sv, &r);
}

static void test_token_for_another_uid (void **state)
{
    struct fixture *fx = *state;
    struct srv sv;
    struct raw r;

    NEED_MUNGE (fx);
    pair (fx, &sv, &r, &munge_responder);
    hello_munge (fx, &r, geteuid () + 1, 0, NULL);
    send_signal (&r, 15);
    /* munged refuses it ("Unauthorized credential"), or, if it let us
     * decode it, the conn's own check names the uid */
    srv_run (&sv);
    assert_true (sv.closed && sv.refused);
    if (!strstr (sv.why, "Unauthorized") && !strstr (sv.why, "is for uid"))
        fail_msg ("refused with '%s'", sv.why);
    assert_int_equal (sv.frames, 0);
    pair_free (&sv, &r);

    /* a token nobody restricted is not this daemon's alone */
    pair (fx, &sv, &r, &munge_responder);
    hello_munge (fx, &r, (uid_t)-1, 0, NULL);
    expect_refused (&sv, "not restricted to this daemon's uid");
    pair_free (&sv, &r);
}

static void test_expired_token (void **state)
{
    struct fixture *fx = *state;
    struct srv sv;
    struct raw r;

    NEED_MUNGE (fx);
    pair (fx, &sv, &r, &munge_responder);
    hello_munge (fx, &r, geteuid (), 1, NULL);
    sleep (2);
    expect_refused (&sv, "munge: Expired credential");
    pair_free (&sv, &r);
}

static void test_replayed_hello (void **state)
{
    struct fixture *fx = *state;
    struct srv sv;
    struct raw r;

    NEED_MUNGE (fx);
    /* a token made for another daemon's address */
    pair (fx, &sv, &r, &munge_responder);
    hello_munge (fx, &r, geteuid (), 0, "127.0.0.1:1");
    expect_refused (&sv, "munge token was made for 127.0.0.1:1, not");
    pair_free (&sv, &r);

    /* anything but a HELLO first */
    pair (fx, &sv, &r, &munge_responder);
    assert_int_equal (session_init_random (&r.s), 0);
    send_signal (&r, 15);
    expect_refused (&sv, "first frame is STEP_SIGNAL, not CONN_HELLO");
    pair_free (&sv, &r);
}

/* I/O connections: the key from the step's I/O key. */
static void hello_stepkey (struct raw *r, const char *key, uint32_t job,
                           uint32_t step)
{
    unsigned char nonce[SESSION_NONCE_SIZE];
    struct msg_conn_hello m = { .job_id = job,
                                .step_id = step,
                                .nonce = (char *)nonce,
                                .nonce_len = sizeof (nonce) };
    char buf[512];

    assert_int_equal (session_nonce (nonce), 0);
    assert_int_equal (
        session_from_step_key (&r->s, true, key, job, step, nonce), 0);
    put (r, buf, seal (&r->s, MSG_CONN_HELLO, &m, buf, sizeof (buf)));
}

static void test_step_key (void **state)
{
    struct conn_auth a = {
        .mode = CONN_AUTH_STEPKEY, .io_key = IO_KEY, .job_id = 7, .step_id = 2
    };
    struct srv sv;
    struct raw r;

    pair (NULL, &sv, &r, &a);
    hello_stepkey (&r, IO_KEY, 7, 2);
    send_signal (&r, 15);
    srv_run (&sv);
    assert_int_equal (sv.frames, 1);
    assert_int_equal (sv.uid, (uid_t)-1);
    pair_free (&sv, &r);

    pair (NULL, &sv, &r, &a);
    hello_stepkey (&r, "fedcba9876543210fedcba9876543210", 7, 2);
    expect_refused (&sv, "frame MAC does not verify");
    pair_free (&sv, &r);

    pair (NULL, &sv, &r, &a);
    hello_stepkey (&r, IO_KEY, 7, 3);
    expect_refused (&sv, "CONN_HELLO for step 7.3, not 7.2");
    pair_free (&sv, &r);
}

/* A launcher's HELLO to node zero: the ticket, and a key derived from
 * 'key' for the launch (or, with io_purpose, as an I/O connection's). */
static void hello_ticket (struct raw *r, const char *ticket, const char *key,
                          uint32_t job, uint32_t step, bool io_purpose)
{
    unsigned char nonce[SESSION_NONCE_SIZE];
    struct msg_conn_hello m = { .job_id = job,
                                .step_id = step,
                                .nonce = (char *)nonce,
                                .nonce_len = sizeof (nonce),
                                .ticket = (char *)ticket };
    char buf[512];

    assert_int_equal (session_nonce (nonce), 0);
    assert_int_equal ((io_purpose ? session_from_step_key
                                  : session_from_launch_key) (&r->s, true, key,
                                                              job, step, nonce),
                      0);
    put (r, buf, seal (&r->s, MSG_CONN_HELLO, &m, buf, sizeof (buf)));
}

/* Node zero's side, for the test: "ticket-7.2" opens (step 7.2 of uid
 * 4242, I/O key IO_KEY); anything else is refused as expired. While
 * ticket_key_missing, nothing opens yet (EAGAIN). */
static bool ticket_key_missing;
static int open_test_ticket (struct conn *c, const char *ticket,
                             struct conn_ticket *t, arbor_error_t *err,
                             void *arg)
{
    (void)c;
    (void)arg;
    if (ticket_key_missing) {
        errno = EAGAIN;
        return errprintf (err, "launch ticket: no credential key yet");
    }
    if (strcmp (ticket, "ticket-7.2") != 0)
        return errprintf (err, "launch ticket: credential expired");
    *t = (struct conn_ticket){
        .job_id = 7, .step_id = 2, .uid = 4242, .gid = 4243
    };
    snprintf (t->io_key, sizeof (t->io_key), "%s", IO_KEY);
    return 0;
}

static void test_launch_ticket (void **state)
{
    struct fixture *fx = *state;
    struct conn_auth a = { .mode = CONN_AUTH_MUNGE,
                           .open_ticket = open_test_ticket };
    uint32_t job = 0, step = 0;
    struct srv sv;
    struct raw r;

    NEED_MUNGE (fx);
    pair (fx, &sv, &r, &a);
    hello_ticket (&r, "ticket-7.2", IO_KEY, 7, 2, false);
    send_signal (&r, 15);
    srv_run (&sv);
    assert_int_equal (sv.frames, 1);
    assert_int_equal (sv.uid, 4242);
    assert_true (conn_step_scope (sv.c, &job, &step));
    assert_int_equal (job, 7);
    assert_int_equal (step, 2);
    pair_free (&sv, &r);

    pair (fx, &sv, &r, &a); /* a ticket node zero does not open */
    hello_ticket (&r, "ticket-9.9", IO_KEY, 7, 2, false);
    expect_refused (&sv, "launch ticket: credential expired");
    pair_free (&sv, &r);

    pair (fx, &sv, &r, &a); /* another step than the ticket's */
    hello_ticket (&r, "ticket-7.2", IO_KEY, 7, 3, false);
    expect_refused (&sv, "CONN_HELLO for step 7.3 with the ticket of 7.2");
    pair_free (&sv, &r);

    pair (fx, &sv, &r, &a); /* not the step's I/O key */
    hello_ticket (&r, "ticket-7.2", "fedcba9876543210fedcba9876543210", 7, 2,
                  false);
    expect_refused (&sv, "frame MAC does not verify");
    pair_free (&sv, &r);

    pair (fx, &sv, &r, &a); /* an I/O connection's key is not a launch's */
    hello_ticket (&r, "ticket-7.2", IO_KEY, 7, 2, true);
    expect_refused (&sv, "frame MAC does not verify");
    pair_free (&sv, &r);

    pair (fx, &sv, &r, &munge_responder); /* a daemon that takes none */
    hello_ticket (&r, "ticket-7.2", IO_KEY, 7, 2, false);
    expect_refused (&sv, "without a munge token");
    pair_free (&sv, &r);

    /* No key yet: the HELLO waits, nothing is delivered, until a retry
     * finds the key (a retry without it waits on). */
    pair (fx, &sv, &r, &a);
    ticket_key_missing = true;
    hello_ticket (&r, "ticket-7.2", IO_KEY, 7, 2, false);
    send_signal (&r, 15);
    for (int i = 0; i < 20; i++) {
        ev_run (sv.loop, EVRUN_NOWAIT);
        usleep (1000);
    }
    conn_ticket_retry (sv.c);
    assert_int_equal (sv.frames, 0);
    assert_false (sv.closed);
    ticket_key_missing = false;
    conn_ticket_retry (sv.c); /* delivers what was buffered, if it can */
    if (sv.frames == 0)
        srv_run (&sv);
    assert_int_equal (sv.frames, 1);
    assert_int_equal (sv.uid, 4242);
    pair_free (&sv, &r);

    pair (fx, &sv, &r, &a); /* waited, then found bad */
    ticket_key_missing = true;
    hello_ticket (&r, "ticket-9.9", IO_KEY, 7, 2, false);
    for (int i = 0; i < 20; i++) {
        ev_run (sv.loop, EVRUN_NOWAIT);
        usleep (1000);
    }
    ticket_key_missing = false;
    conn_ticket_retry (sv.c);
    if (!sv.closed)
        srv_run (&sv); /* the refusal's close comes from the loop */
    assert_true (sv.closed);
    assert_true (sv.refused);
    assert_non_null (strstr (sv.why, "credential expired"));
    pair_free (&sv, &r);

    pair (fx, &sv, &r, &a); /* munge sessions are not scoped */
    hello_munge (fx, &r, getuid (), 0, NULL);
    send_signal (&r, 15);
    srv_run (&sv);
    assert_int_equal (sv.frames, 1);
    assert_false (conn_step_scope (sv.c, &job, &step));
    pair_free (&sv, &r);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_seal_open),
        cmocka_unit_test (test_payload),
        cmocka_unit_test (test_secret),
        cmocka_unit_test (test_step_key),
        cmocka_unit_test (test_launch_ticket),
        cmocka_unit_test (test_good_session),
        cmocka_unit_test (test_tampered_byte),
        cmocka_unit_test (test_replayed_frame),
        cmocka_unit_test (test_reordered_frames),
        cmocka_unit_test (test_other_connections_key),
        cmocka_unit_test (test_token_for_another_uid),
        cmocka_unit_test (test_expired_token),
        cmocka_unit_test (test_replayed_hello),
    };
    int failed = cmocka_run_group_tests (tests, group_setup, group_teardown);

    return arbor_test_exit (failed);
}
