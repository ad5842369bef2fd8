/* frame_test.c - munge tokens, conns on a libev loop, and rpc.
 *
 * Uses a private munged (munged_fixture); tests that need it are skipped,
 * saying why, when it cannot be started. Conn tests run both ends on one
 * loop: unix socketpairs (SO_PEERCRED) and TCP loopback pairs (munge
 * sessions; their refusals are in session_test.c).
 * rpc_call() is tested against a conn + rpc_dispatch server running its own
 * loop in a thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
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
#include "rpc.h"

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
        if (!(fx->auth = auth_create (fx->m.socket, &err))) {
            fprintf (stderr, "auth_create: %s\n", err.text);
            return -1;
        }
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

/* ---- auth -----------------------------------------------------------------
 */

/* A token restricted to another uid: munged refuses it to us, and a
 * decoded token reports its restriction. */
static void test_auth_restriction (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;
    void *payload;
    size_t len;
    char *tok;

    NEED_MUNGE (fx);
    assert_int_equal (
        auth_encode_for (fx->auth, "k", 1, 0, geteuid (), &tok, &err), 0);
    assert_int_equal (auth_decode (fx->auth, tok, strlen (tok), &payload, &len,
                                   NULL, NULL, &err),
                      0);
    assert_int_equal (auth_last_restriction (fx->auth), geteuid ());
    free (payload);
    free (tok);
    assert_int_equal (
        auth_encode_for (fx->auth, "k", 1, 0, geteuid () + 1, &tok, &err), 0);
    errno = 0;
    assert_int_equal (auth_decode (fx->auth, tok, strlen (tok), &payload, &len,
                                   NULL, NULL, &err),
                      -1);
    assert_int_equal (errno, EPERM);
    assert_non_null (strstr (err.text, "Unauthorized"));
    free (tok);
}

static void test_auth_replay_refused (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;
    char *tok;
    void *payload;
    size_t len;
    uid_t uid;

    NEED_MUNGE (fx);
    assert_int_equal (auth_encode (fx->auth, "claims", 6, 60, &tok, &err), 0);
    assert_int_equal (auth_decode (fx->auth, tok, strlen (tok), &payload, &len,
                                   &uid, NULL, &err),
                      0);
    assert_int_equal (len, 6);
    assert_memory_equal (payload, "claims", 6);
    assert_int_equal (uid, getuid ());
    free (payload);
    /* a token decodes once: munged refuses the replay */
    assert_int_equal (auth_decode (fx->auth, tok, strlen (tok), &payload, &len,
                                   &uid, NULL, &err),
                      -1);
    assert_int_equal (errno, EPERM);
    free (tok);

    /* empty payload: NULL, 0 */
    assert_int_equal (auth_encode (fx->auth, NULL, 0, 0, &tok, &err), 0);
    assert_int_equal (auth_decode (fx->auth, tok, strlen (tok), &payload, &len,
                                   NULL, NULL, &err),
                      0);
    assert_null (payload);
    assert_int_equal (len, 0);
    free (tok);
}

static void test_auth_no_munged (void **state)
{
    arbor_error_t err;
    struct auth *a = auth_create ("/nonexistent/arbor/munge.sock", &err);
    char *tok = NULL;

    assert_non_null (a);
    errno = 0;
    assert_int_equal (auth_encode (a, "x", 1, 0, &tok, &err), -1);
    assert_int_equal (errno, EIO);
    assert_string_equal (err.text, "munge: Socket communication error");
    assert_null (tok);
    auth_destroy (a);
}

/* ---- conn on one loop ------------------------------------------------------
 */

struct peer {
    struct ev_loop *loop;
    struct conn *c;
    int nframes;
    int last_type;
    uint32_t last_tag;
    int last_flags;
    uid_t last_uid;
    union msg_any last; /* decoded last frame */
    bool closed;
    arbor_error_t close_err;
    int destroy_after; /* conn_destroy at this frame count (0: never) */
    bool echo;         /* answer every request with RC */
    bool flush_close;  /* after answering, conn_close_after_flush */
    size_t bytes;      /* IO_DATA payload received */
    bool stop_on_frame;
    int stop_at; /* break the loop at this many frames */
};

static void peer_frame (struct conn *c, const struct frame *f, void *arg)
{
    struct peer *p = arg;
    arbor_error_t err;

    proto_clear (p->last_type, &p->last);
    p->nframes++;
    p->last_type = f->type;
    p->last_tag = f->matchtag;
    p->last_flags = f->flags;
    p->last_uid = f->uid;
    if (proto_decode (f->type, f->body, f->body_len, &p->last, &err) < 0)
        fail_msg ("decode: %s", err.text);
    if (f->type == MSG_IO_DATA)
        p->bytes += p->last.io_data.data_len;
    if (p->echo && !(f->flags & FRAME_F_RESPONSE)) {
        assert_int_equal (conn_send_rc (c, f->matchtag, 0, "got %s",
                                        proto_msg_name (f->type)),
                          0);
        if (p->flush_close)
            conn_close_after_flush (c);
    }
    if (p->destroy_after && p->nframes == p->destroy_after) {
        conn_destroy (c);
        p->c = NULL;
        conn_destroy (c); /* twice inside a callback: harmless */
    }
    if (p->stop_at && p->nframes >= p->stop_at)
        ev_break (p->loop, EVBREAK_ONE);
}

static void peer_closed (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct peer *p = arg;

    assert_false (p->closed);
    p->closed = true;
    p->close_err = *err;
    p->c = NULL;
    ev_break (p->loop, EVBREAK_ONE);
}

static const struct conn_ops peer_ops = { peer_frame, peer_closed };

static void timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    *(bool *)w->data = true;
    ev_break (loop, EVBREAK_ALL);
}

/* Run the loop until a callback breaks it; fail after 10 s. */
static void run_loop (struct ev_loop *loop)
{
    ev_timer t;
    bool timed_out = false;

    ev_timer_init (&t, timeout_cb, 10., 0.);
    t.data = &timed_out;
    ev_timer_start (loop, &t);
    ev_run (loop, 0);
    ev_timer_stop (loop, &t);
    assert_false (timed_out);
}

static void peer_free (struct peer *p)
{
    conn_destroy (p->c);
    proto_clear (p->last_type, &p->last);
    p->c = NULL;
}

/* Exchange frames both ways between two conns; 'big' IO_DATA frames fill
 * the socket buffers so that output is queued and written by the watcher. */
static void exchange (struct ev_loop *loop, struct peer *a, struct peer *b)
{
    char *argv[] = { "hostname", "-s" };
    struct msg_launch l = { .cred = "cred",
                            .job_id = 9,
                            .argv = argv,
                            .argv_count = 2,
                            .stdin_task = STDIN_ALL };
    size_t chunk = 1 << 20;
    char *data = calloc (1, chunk);

    b->echo = true;
    a->stop_at = 1;
    assert_int_equal (conn_send (a->c, MSG_LAUNCH, 77, 0, &l), 0);
    run_loop (loop);
    /* b got the LAUNCH, a got b's RC */
    assert_int_equal (b->last_type, MSG_LAUNCH);
    assert_int_equal (b->last_tag, 77);
    assert_int_equal (b->last_uid, getuid ());
    assert_int_equal (b->last.launch.job_id, 9);
    assert_string_equal (b->last.launch.argv[1], "-s");
    assert_int_equal (a->last_type, MSG_RC);
    assert_int_equal (a->last_tag, 77);
    assert_int_equal (a->last_flags, FRAME_F_RESPONSE);
    assert_string_equal (a->last.rc.text, "got LAUNCH");

    /* 8 MB from b to a: more than the socket takes at once */
    struct msg_io_data io = {
        .task = 1, .stream = 1, .data = data, .data_len = (uint32_t)chunk
    };
    data[chunk - 1] = 'z';
    a->nframes = 0;
    a->stop_at = 8;
    for (int i = 0; i < 8; i++)
        assert_int_equal (
            conn_send (b->c, MSG_IO_DATA, (uint32_t)i, FRAME_F_RESPONSE, &io),
            0);
    assert_true (conn_outq_len (b->c) > 0);
    run_loop (loop);
    assert_int_equal (a->nframes, 8);
    assert_int_equal (a->bytes, 8 * chunk);
    assert_int_equal (a->last_tag, 7);
    assert_int_equal (a->last.io_data.data[chunk - 1], 'z');
    assert_int_equal (conn_outq_len (b->c), 0);
    free (data);
}

static void test_conn_socketpair (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    struct peer a = { .loop = loop }, b = { .loop = loop };
    int sv[2];

    assert_int_equal (socketpair (AF_UNIX, SOCK_STREAM, 0, sv), 0);
    a.c = conn_create_unix (loop, sv[0], &peer_ops, &a);
    b.c = conn_create_unix (loop, sv[1], &peer_ops, &b);
    assert_non_null (a.c);
    assert_non_null (b.c);
    assert_string_equal (conn_peer (a.c), "unix");
    assert_ptr_equal (conn_get_arg (a.c), &a);
    exchange (loop, &a, &b);

    /* b closes: a learns of it */
    peer_free (&b);
    run_loop (loop);
    assert_true (a.closed);
    assert_string_equal (a.close_err.text, "connection closed by peer");
    assert_null (a.c);
    peer_free (&a);
    ev_loop_destroy (loop);
}

/* A connected TCP pair on loopback: *cfd client side, *sfd server side. */
static void tcp_pair (int *cfd, int *sfd)
{
    arbor_error_t err;
    uint16_t port;
    int lfd = net_listen_tcp ("127.0.0.1", 0, &port, &err);

    assert_true (lfd >= 0);
    *cfd = net_connect_tcp ("127.0.0.1", port, 2000, &err);
    assert_true (*cfd >= 0);
    fd_set_nonblock (lfd, 0);
    *sfd = accept (lfd, NULL, NULL);
    assert_true (*sfd >= 0);
    close (lfd);
}

static void test_conn_tcp_munge (void **state)
{
    struct fixture *fx = *state;
    struct ev_loop *loop;
    struct peer a = { 0 }, b = { 0 };
    int cfd, sfd;

    NEED_MUNGE (fx);
    loop = ev_loop_new (EVFLAG_AUTO);
    struct auth_pool *pool = auth_pool_create (loop, fx->m.socket, 0, NULL);
    struct conn_auth ca = { .mode = CONN_AUTH_MUNGE,
                            .initiator = true,
                            .pool = pool,
                            .peer_uid = geteuid () };
    struct conn_auth sa = { .mode = CONN_AUTH_MUNGE, .pool = pool };
    a.loop = b.loop = loop;
    tcp_pair (&cfd, &sfd);
    a.c = conn_create (loop, cfd, &ca, &peer_ops, &a);
    b.c = conn_create (loop, sfd, &sa, &peer_ops, &b);
    assert_non_null (a.c);
    assert_non_null (b.c);
    assert_non_null (strstr (conn_peer (a.c), "127.0.0.1:"));
    exchange (loop, &a, &b);

    /* b answers the next request, then closes after the flush */
    b.flush_close = true;
    a.nframes = 0;
    a.stop_at = 1;
    struct msg_step_signal sig = { .signal = 15 };
    assert_int_equal (conn_send (a.c, MSG_STEP_SIGNAL, 5, 0, &sig), 0);
    run_loop (loop);
    assert_int_equal (a.last_type, MSG_RC);
    assert_string_equal (a.last.rc.text, "got STEP_SIGNAL");
    /* b half-closes after its flush and waits for a's EOF, which comes
     * when a sees b's and closes: both end, in either order. */
    for (int i = 0; i < 4 && !(a.closed && b.closed); i++)
        run_loop (loop);
    assert_true (b.closed);
    assert_string_equal (b.close_err.text, "closed");
    assert_true (a.closed);
    peer_free (&a);
    peer_free (&b);
    auth_pool_destroy (pool);
    ev_loop_destroy (loop);
}

/* A MUNGE conn refuses frames without a token, or with a token minted for
 * another frame; a PEERCRED conn refuses garbage. */
static void raw_frame (int fd, int type, const char *token, const char *body,
                       size_t blen)
{
    unsigned char hdr[PROTO_HEADER_SIZE];
    size_t tlen = token ? strlen (token) : 0;
    struct frame_header h = {
        PROTO_VERSION_MAJOR, 0, (uint16_t)type, 0, 1, (uint32_t)tlen,
        (uint32_t)blen
    };

    frame_header_pack (&h, hdr);
    assert_int_equal (fd_write_full (fd, hdr, sizeof (hdr)), 0);
    assert_int_equal (fd_write_full (fd, token, tlen), 0);
    assert_int_equal (fd_write_full (fd, body, blen), 0);
}

static void expect_closed (struct ev_loop *loop, int fd, const char *text)
{
    struct peer p = { .loop = loop };

    p.c = conn_create_unix (loop, fd, &peer_ops, &p);
    assert_non_null (p.c);
    run_loop (loop);
    assert_true (p.closed);
    assert_int_equal (p.nframes, 0);
    if (!strstr (p.close_err.text, text))
        fail_msg ("closed with '%s', expected '%s'", p.close_err.text, text);
    peer_free (&p);
}

static void test_conn_garbage (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    int sv[2];

    assert_int_equal (socketpair (AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal (
        fd_write_full (sv[1], "GET / HTTP/1.0\r\n\r\nxxxxxxx", 25), 0);
    expect_closed (loop, sv[0], "bad frame magic");
    close (sv[1]);

    assert_int_equal (socketpair (AF_UNIX, SOCK_STREAM, 0, sv), 0);
    raw_frame (sv[1], MSG_RC, "token", "\x80", 1);
    expect_closed (loop, sv[0], "unexpected token");
    close (sv[1]);

    assert_int_equal (socketpair (AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal (fd_write_full (sv[1], "ARBR\0\1", 6), 0);
    shutdown (sv[1], SHUT_WR);
    expect_closed (loop, sv[0], "closed inside a frame");
    close (sv[1]);
    ev_loop_destroy (loop);
}

/* Several frames arrive in one read; the receiver destroys its conn in the
 * first frame callback: no more frames are delivered, nothing leaks. */
static void test_conn_destroy_in_callback (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    struct peer p = { .loop = loop, .destroy_after = 1, .stop_at = 1 };
    struct msg_step_signal sig = { .signal = 9 };
    char *body;
    size_t blen;
    int sv[2];

    assert_int_equal (socketpair (AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal (proto_encode (MSG_STEP_SIGNAL, &sig, &body, &blen), 0);
    for (int i = 0; i < 5; i++)
        raw_frame (sv[1], MSG_STEP_SIGNAL, NULL, body, blen);
    free (body);
    p.c = conn_create_unix (loop, sv[0], &peer_ops, &p);
    run_loop (loop);
    assert_int_equal (p.nframes, 1);
    assert_false (p.closed);
    assert_null (p.c);
    ev_run (loop, EVRUN_NOWAIT);
    assert_int_equal (p.nframes, 1);
    /* the fd was closed at conn_destroy: the peer sees EOF */
    char c;
    assert_int_equal (read (sv[1], &c, 1), 0);
    close (sv[1]);
    proto_clear (p.last_type, &p.last);
    ev_loop_destroy (loop);
}

/* ---- rpc ------------------------------------------------------------------
 */

/* A daemon in miniature: a TCP listener and conns on a loop in a thread,
 * every frame going through rpc_dispatch(). */
struct server {
    struct ev_loop *loop;
    struct auth_pool *pool;
    int lfd;
    uint16_t port;
    ev_io accept_w;
    ev_async stop_w;
    struct conn *conns[16];
    int nrefused; /* rpc_dispatch returned -1 */
    arbor_error_t last_err;
    pthread_t thread;
};

static void srv_job_info (struct conn *c, const struct frame *f, void *msg,
                          void *arg)
{
    struct msg_job_info *req = msg;
    uint32_t ids[] = { req->job_id, req->job_id + 1 };
    char *names[] = { "a", "b" };
    struct msg_job_info_reply r = {
        .job_ids = ids, .job_ids_count = 2, .names = names, .names_count = 2
    };
    if (req->job_id == 666)
        return; /* never answer: the caller times out */
    if (req->job_id == 16) {
        conn_send_rc (c, f->matchtag, EBUSY, "cores busy on %s", "n1");
        return;
    }
    if (req->job_id == 17) {
        conn_send_rc (c, f->matchtag, 0, NULL);
        return;
    }
    conn_send (c, MSG_JOB_INFO_REPLY, f->matchtag, FRAME_F_RESPONSE, &r);
}

static void srv_register (struct conn *c, const struct frame *f, void *msg,
                          void *arg)
{
    conn_send_rc (c, f->matchtag, 0, "registered %s",
                  ((struct msg_node_register *)msg)->name);
}

static const struct rpc_handler srv_handlers[] = {
    { MSG_JOB_INFO, srv_job_info, RPC_ANY },
    { MSG_NODE_REGISTER, srv_register, RPC_PRIV },
    { 0, NULL, 0 },
};

static void srv_frame (struct conn *c, const struct frame *f, void *arg)
{
    struct server *s = arg;

    if (rpc_dispatch (srv_handlers, c, f, getuid (), s, &s->last_err) < 0)
        s->nrefused++;
}

static void srv_closed (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct server *s = arg;

    for (int i = 0; i < 16; i++)
        if (s->conns[i] == c)
            s->conns[i] = NULL;
}

static const struct conn_ops srv_ops = { srv_frame, srv_closed };

static void srv_accept (struct ev_loop *loop, ev_io *w, int revents)
{
    struct server *s = w->data;
    int fd = accept (s->lfd, NULL, NULL);

    if (fd < 0)
        return;
    for (int i = 0; i < 16; i++) {
        if (!s->conns[i]) {
            struct conn_auth a = { .mode = CONN_AUTH_MUNGE, .pool = s->pool };
            s->conns[i] = conn_create (loop, fd, &a, &srv_ops, s);
            return;
        }
    }
    close (fd);
}

static void srv_stop (struct ev_loop *loop, ev_async *w, int revents)
{
    ev_break (loop, EVBREAK_ALL);
}

static void *srv_main (void *arg)
{
    struct server *s = arg;

    ev_run (s->loop, 0);
    for (int i = 0; i < 16; i++)
        conn_destroy (s->conns[i]);
    return NULL;
}

static void srv_start (struct server *s, const char *socket)
{
    arbor_error_t err;

    memset (s, 0, sizeof (*s));
    s->loop = ev_loop_new (EVFLAG_AUTO);
    assert_non_null (s->pool = auth_pool_create (s->loop, socket, 1, &err));
    s->lfd = net_listen_tcp ("127.0.0.1", 0, &s->port, &err);
    assert_true (s->lfd >= 0);
    ev_io_init (&s->accept_w, srv_accept, s->lfd, EV_READ);
    s->accept_w.data = s;
    ev_io_start (s->loop, &s->accept_w);
    ev_async_init (&s->stop_w, srv_stop);
    ev_async_start (s->loop, &s->stop_w);
    assert_int_equal (pthread_create (&s->thread, NULL, srv_main, s), 0);
}

static void srv_finish (struct server *s)
{
    ev_async_send (s->loop, &s->stop_w);
    pthread_join (s->thread, NULL);
    close (s->lfd);
    auth_pool_destroy (s->pool);
    ev_loop_destroy (s->loop);
}

static void test_rpc_call (void **state)
{
    struct fixture *fx = *state;
    struct server s;
    struct msg_job_info req = { .job_id = 41 };
    struct msg_job_info_reply rep;
    struct msg_rc rc;
    arbor_error_t err;

    NEED_MUNGE (fx);
    srv_start (&s, fx->m.socket);
    if (rpc_call (fx->auth, "127.0.0.1", s.port, geteuid (), MSG_JOB_INFO, &req,
                  MSG_JOB_INFO_REPLY, &rep, 5000, &err)
        < 0)
        fail_msg ("rpc_call: %s", err.text);
    assert_int_equal (rep.job_ids_count, 2);
    assert_int_equal (rep.job_ids[1], 42);
    assert_string_equal (rep.names[1], "b");
    proto_clear (MSG_JOB_INFO_REPLY, &rep);

    /* an RC error becomes errno + text */
    req.job_id = 16;
    errno = 0;
    assert_int_equal (rpc_call (fx->auth, "localhost", s.port, geteuid (),
                                MSG_JOB_INFO, &req, MSG_JOB_INFO_REPLY, &rep,
                                5000, &err),
                      -1);
    assert_int_equal (errno, EBUSY);
    assert_string_equal (err.text, "cores busy on n1");

    /* a success RC where RC is expected; and where it is not */
    req.job_id = 17;
    assert_int_equal (rpc_call (fx->auth, "127.0.0.1", s.port, geteuid (),
                                MSG_JOB_INFO, &req, MSG_RC, &rc, 5000, &err),
                      0);
    assert_int_equal (rc.errnum, 0);
    proto_clear (MSG_RC, &rc);
    assert_int_equal (rpc_call (fx->auth, "127.0.0.1", s.port, geteuid (),
                                MSG_JOB_INFO, &req, MSG_JOB_INFO_REPLY, &rep,
                                5000, &err),
                      -1);
    assert_int_equal (errno, EPROTO);

    /* privileged message from an allowed uid (we are priv_uid) */
    struct msg_node_register reg = { .name = "n1", .version = "0.1" };
    assert_int_equal (rpc_call (fx->auth, "127.0.0.1", s.port, geteuid (),
                                MSG_NODE_REGISTER, &reg, MSG_RC, &rc, 5000,
                                &err),
                      0);
    assert_string_equal (rc.text, "registered n1");
    proto_clear (MSG_RC, &rc);

    /* no handler: refused with EPROTO, named */
    struct msg_step_signal sig = { .signal = 2 };
    assert_int_equal (rpc_call (fx->auth, "127.0.0.1", s.port, geteuid (),
                                MSG_STEP_SIGNAL, &sig, MSG_RC, &rc, 5000, &err),
                      -1);
    assert_int_equal (errno, EPROTO);
    assert_string_equal (err.text, "unexpected message STEP_SIGNAL");

    /* no answer in time */
    req.job_id = 666;
    assert_int_equal (rpc_call (fx->auth, "127.0.0.1", s.port, geteuid (),
                                MSG_JOB_INFO, &req, MSG_JOB_INFO_REPLY, &rep,
                                300, &err),
                      -1);
    assert_int_equal (errno, ETIMEDOUT);
    srv_finish (&s);
    assert_int_equal (s.nrefused, 1);

    /* nobody listening */
    assert_int_equal (rpc_call (fx->auth, "127.0.0.1", s.port, geteuid (),
                                MSG_JOB_INFO, &req, MSG_JOB_INFO_REPLY, &rep,
                                1000, &err),
                      -1);
    assert_int_equal (errno, ECONNREFUSED);
    assert_non_null (strstr (err.text, "connect 127.0.0.1:"));
}

/* rpc_dispatch's role check and malformed bodies, on a socketpair with
 * rpc_recv (NULL auth: SO_PEERCRED) reading the answers. */
static void dispatch_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg)
{
    (*(int *)arg)++;
}

static void test_rpc_dispatch_refusals (void **state)
{
    static const struct rpc_handler tab[] = {
        { MSG_NODE_REGISTER, dispatch_cb, RPC_PRIV },
        { MSG_JOB_INFO, dispatch_cb, RPC_ANY },
        { 0, NULL, 0 },
    };
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    struct peer p = { .loop = loop };
    struct msg_job_info ji = { .job_id = 3 };
    union msg_any ans;
    arbor_error_t err;
    char *body;
    size_t blen;
    int sv[2], calls = 0, type;
    uid_t uid;

    assert_int_equal (socketpair (AF_UNIX, SOCK_STREAM, 0, sv), 0);
    p.c = conn_create_unix (loop, sv[0], &peer_ops, &p);
    struct rpc_chan ch;
    rpc_chan_unix (&ch, sv[1]);
    assert_int_equal (proto_encode (MSG_JOB_INFO, &ji, &body, &blen), 0);

    struct frame f = { .type = MSG_NODE_REGISTER,
                       .matchtag = 3,
                       .uid = 1234,
                       .gid = 1234,
                       .body = body,
                       .body_len = blen };
    errno = 0;
    assert_int_equal (rpc_dispatch (tab, p.c, &f, 4321, &calls, &err), -1);
    assert_int_equal (errno, EPERM);
    assert_string_equal (err.text,
                         "NODE_REGISTER: permission denied for uid 1234");
    assert_int_equal (rpc_recv (&ch, 2000, &type, &ans, &uid, &err), 0);
    assert_int_equal (type, MSG_RC);
    assert_int_equal (ans.rc.errnum, EPERM);
    assert_string_equal (ans.rc.text,
                         "NODE_REGISTER: permission denied for uid 1234");
    assert_int_equal (uid, getuid ());
    proto_clear (type, &ans);

    f.uid = 4321; /* now privileged, but the body is a JOB_INFO */
    assert_int_equal (rpc_dispatch (tab, p.c, &f, 4321, &calls, &err), -1);
    assert_int_equal (errno, EPROTO);
    assert_string_equal (err.text, "NODE_REGISTER: missing field 'name'");
    assert_int_equal (rpc_recv (&ch, 2000, &type, &ans, NULL, &err), 0);
    assert_int_equal (ans.rc.errnum, EPROTO);
    proto_clear (type, &ans);

    f.type = MSG_JOB_INFO; /* any user */
    assert_int_equal (rpc_dispatch (tab, p.c, &f, 4321, &calls, &err), 0);
    assert_int_equal (calls, 1);

    /* an unknown response is reported but not answered */
    f.type = 9999;
    f.flags = FRAME_F_RESPONSE;
    assert_int_equal (rpc_dispatch (tab, p.c, &f, 4321, &calls, &err), -1);
    assert_string_equal (err.text, "unknown message type 9999");
    assert_int_equal (conn_outq_len (p.c), 0);
    assert_int_equal (rpc_recv (&ch, 100, &type, &ans, NULL, &err), -1);
    assert_int_equal (errno, ETIMEDOUT);

    /* rpc_send on a unix socket, received by the conn */
    p.stop_at = 1;
    assert_int_equal (rpc_send (&ch, MSG_JOB_INFO, 8, &ji, &err), 0);
    run_loop (loop);
    assert_int_equal (p.last_type, MSG_JOB_INFO);
    assert_int_equal (p.last.job_info.job_id, 3);
    assert_int_equal (p.last_tag, 8);

    free (body);
    close (sv[1]);
    peer_free (&p);
    ev_loop_destroy (loop);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_auth_restriction),
        cmocka_unit_test (test_auth_replay_refused),
        cmocka_unit_test (test_auth_no_munged),
        cmocka_unit_test (test_conn_socketpair),
        cmocka_unit_test (test_conn_tcp_munge),
        cmocka_unit_test (test_conn_garbage),
        cmocka_unit_test (test_conn_destroy_in_callback),
        cmocka_unit_test (test_rpc_call),
        cmocka_unit_test (test_rpc_dispatch_refusals),
    };
    int failed = cmocka_run_group_tests (tests, group_setup, group_teardown);

    return arbor_test_exit (failed);
}
