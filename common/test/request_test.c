/* request_test.c - the asynchronous request (common/wire/request.h).
 *
 * Both ends run on one loop: a tiny server accepts on a unix socket
 * (SO_PEERCRED) or on TCP loopback (munge) and answers according to the
 * test's script (answer, RC error, silence, close, wrong type, a frame of
 * another matchtag first). "request_test" runs the unix-socket tests,
 * which need no munged; "request_test munge" runs the TCP ones against a
 * private munged (munged_fixture) and exits 77 (SKIP; a failure under
 * CI=true, skip.h) when munged cannot be started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include <ev.h>

#include "auth.h"
#include "authpool.h"
#include "peers.h"
#include "conn.h"
#include "munged_fixture.h"
#include "net.h"
#include "proto.h"
#include "request.h"
#include "skip.h"

enum script {
    SRV_ANSWER,   /* RC 0 "ok", or LAUNCH_REPLY when asked for one */
    SRV_RC_ERROR, /* RC EPERM "not yours" */
    SRV_SILENT,
    SRV_CLOSE,          /* close at the request, without answering */
    SRV_WRONG_TYPE,     /* answer STEP_SIGNAL */
    SRV_OTHER_TAG,      /* an answer with another matchtag, then RC 0 */
    SRV_OTHER_TAG_ONLY, /* only the answer with another matchtag */
    SRV_ANSWER_CLOSE,   /* RC 0, then close a little later */
};

struct server {
    struct ev_loop *loop;
    int lfd;
    ev_io accept_w;
    ev_timer close_w;
    enum conn_auth_mode mode;
    struct auth_pool *pool;
    enum script script;
    int accepts; /* connections accepted */
    struct conn *conn;
    int requests; /* frames received */
    int last_type;
};

struct outcome {
    int calls;
    struct request_result res;
    char text[160];
    int rc_errnum;
    bool closed_seen; /* UNTIL_CLOSE: the server had closed by then */
};

struct fixture {
    struct ev_loop *loop;
    char dir[64];
    char path[128];
    struct server srv;
    struct munged_fixture m;
    bool have_munge;
    struct auth_pool *pool;
    struct peers *peers;
    uint16_t port;
};

/* ---- the server ------------------------------------------------------------
 */

static void srv_close_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct server *s = w->data;

    conn_destroy (s->conn);
    s->conn = NULL;
}

static void srv_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct server *s = arg;
    struct msg_launch_reply lr = { .errnum = 0, .text = "started" };
    struct msg_step_signal sig = { .signal = 9 };

    s->requests++;
    s->last_type = f->type;
    switch (s->script) {
    case SRV_ANSWER:
        if (f->type == MSG_LAUNCH)
            conn_send (c, MSG_LAUNCH_REPLY, f->matchtag, FRAME_F_RESPONSE, &lr);
        else
            conn_send_rc (c, f->matchtag, 0, "ok");
        break;
    case SRV_RC_ERROR: conn_send_rc (c, f->matchtag, EPERM, "not yours"); break;
    case SRV_SILENT: break;
    case SRV_CLOSE:
        conn_destroy (c);
        s->conn = NULL;
        break;
    case SRV_WRONG_TYPE:
        conn_send (c, MSG_STEP_SIGNAL, f->matchtag, FRAME_F_RESPONSE, &sig);
        break;
    case SRV_OTHER_TAG:
        conn_send_rc (c, f->matchtag + 7, EPERM, "someone else's");
        conn_send (c, MSG_STEP_SIGNAL, f->matchtag, 0, &sig); /* no flag */
        conn_send_rc (c, f->matchtag, 0, "ok");
        break;
    case SRV_OTHER_TAG_ONLY:
        conn_send_rc (c, f->matchtag + 7, EPERM, "someone else's");
        break;
    case SRV_ANSWER_CLOSE:
        conn_send_rc (c, f->matchtag, 0, "ok");
        ev_timer_start (s->loop, &s->close_w);
        break;
    }
}

static void srv_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct server *s = arg;

    s->conn = NULL;
}

static const struct conn_ops srv_ops = {
    .frame = srv_frame_cb,
    .closed = srv_closed_cb,
};

static void srv_accept_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct server *s = w->data;
    int fd = accept4 (s->lfd, NULL, NULL, SOCK_CLOEXEC);

    if (fd < 0)
        return;
    struct conn_auth a = { .mode = CONN_AUTH_MUNGE, .pool = s->pool };

    conn_destroy (s->conn);
    s->accepts++;
    s->conn = s->mode == CONN_AUTH_PEERCRED
                  ? conn_create_unix (loop, fd, &srv_ops, s)
                  : conn_create (loop, fd, &a, &srv_ops, s);
    assert_non_null (s->conn);
}

static void srv_start (struct fixture *fx, int lfd, enum conn_auth_mode mode,
                       enum script script)
{
    struct server *s = &fx->srv;

    memset (s, 0, sizeof (*s));
    s->loop = fx->loop;
    s->lfd = lfd;
    s->mode = mode;
    s->pool = fx->pool;
    s->script = script;
    ev_io_init (&s->accept_w, srv_accept_cb, lfd, EV_READ);
    s->accept_w.data = s;
    ev_io_start (fx->loop, &s->accept_w);
    ev_timer_init (&s->close_w, srv_close_cb, 0.05, 0.);
    s->close_w.data = s;
}

static void srv_stop (struct fixture *fx)
{
    struct server *s = &fx->srv;

    ev_io_stop (fx->loop, &s->accept_w);
    ev_timer_stop (fx->loop, &s->close_w);
    conn_destroy (s->conn);
    s->conn = NULL;
    if (s->lfd >= 0)
        close (s->lfd);
    s->lfd = -1;
}

static void srv_start_unix (struct fixture *fx, enum script script)
{
    arbor_error_t err;
    int lfd = net_listen_unix (fx->path, 0600, &err);

    assert_true (lfd >= 0);
    srv_start (fx, lfd, CONN_AUTH_PEERCRED, script);
}

/* ---- the client
 * -------------------------------------------------------------- */

static void done_cb (const struct request_result *res, void *arg)
{
    struct outcome *o = arg;

    o->calls++;
    o->res = *res;
    snprintf (o->text, sizeof (o->text), "%s", res->err.text);
    if (res->type == MSG_RC && res->msg)
        o->rc_errnum = ((const struct msg_rc *)res->msg)->errnum;
    o->res.msg = NULL; /* borrowed: not valid after the callback */
}

/* Run the loop until the callback ran or 'secs' passed. */
static void tick_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
}

static void run_until (struct fixture *fx, struct outcome *o, double secs)
{
    ev_tstamp end = ev_time () + secs;
    ev_timer tick; /* so that an idle loop wakes up to see the time */

    ev_timer_init (&tick, tick_cb, 0.05, 0.05);
    ev_timer_start (fx->loop, &tick);
    while (o->calls == 0 && ev_time () < end)
        ev_run (fx->loop, EVRUN_ONCE);
    ev_timer_stop (fx->loop, &tick);
}

static struct request *start_unix (struct fixture *fx, double timeout,
                                   int resp_type, int flags, struct outcome *o)
{
    struct msg_step_signal m = { .signal = 15 };
    struct request_opts opts = { .timeout = timeout,
                                 .resp_type = resp_type,
                                 .flags = flags };

    memset (o, 0, sizeof (*o));
    return request_unix (fx->loop, fx->path, MSG_STEP_SIGNAL, &m, &opts,
                         done_cb, o);
}

/* ---- setup
 * ------------------------------------------------------------------- */

static int setup (void **state)
{
    struct fixture *fx = calloc (1, sizeof (*fx));

    snprintf (fx->dir, sizeof (fx->dir), "/tmp/request_test.XXXXXX");
    if (!fx || !mkdtemp (fx->dir))
        return -1;
    snprintf (fx->path, sizeof (fx->path), "%s/sock", fx->dir);
    fx->loop = ev_loop_new (EVFLAG_AUTO);
    fx->srv.lfd = -1;
    *state = fx;
    return 0;
}

static int teardown (void **state)
{
    struct fixture *fx = *state;

    srv_stop (fx);
    unlink (fx->path);
    rmdir (fx->dir);
    peers_destroy (fx->peers);
    auth_pool_destroy (fx->pool);
    ev_loop_destroy (fx->loop);
    if (fx->have_munge)
        munged_fixture_stop (&fx->m);
    free (fx);
    return 0;
}

/* ---- unix socket tests
 * ------------------------------------------------------- */

static void test_answer (void **state)
{
    struct fixture *fx = *state;
    struct outcome o;

    srv_start_unix (fx, SRV_ANSWER);
    assert_non_null (start_unix (fx, 5.0, 0, 0, &o));
    assert_int_equal (o.calls, 0);
    run_until (fx, &o, 5.0);
    assert_int_equal (o.calls, 1);
    assert_int_equal (o.res.outcome, REQUEST_ANSWERED);
    assert_int_equal (o.res.errnum, 0);
    assert_int_equal (o.res.type, MSG_RC);
    assert_int_equal (o.res.uid, getuid ());
    assert_true (request_answered (&o.res));
    assert_int_equal (fx->srv.last_type, MSG_STEP_SIGNAL);
}

static void test_answer_of_resp_type (void **state)
{
    struct fixture *fx = *state;
    struct outcome o = { 0 };
    struct msg_launch m = { .job_id = 3 };
    struct request_opts opts = { .timeout = 5.0,
                                 .resp_type = MSG_LAUNCH_REPLY };

    srv_start_unix (fx, SRV_ANSWER);
    assert_non_null (
        request_unix (fx->loop, fx->path, MSG_LAUNCH, &m, &opts, done_cb, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.calls, 1);
    assert_int_equal (o.res.outcome, REQUEST_ANSWERED);
    assert_int_equal (o.res.type, MSG_LAUNCH_REPLY);

    /* a plain RC 0 where a LAUNCH_REPLY is due is a refusal (EPROTO) */
    fx->srv.script = SRV_ANSWER_CLOSE;
    memset (&o, 0, sizeof (o));
    assert_non_null (
        request_unix (fx->loop, fx->path, MSG_LAUNCH, &m, &opts, done_cb, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.res.outcome, REQUEST_REFUSED);
    assert_int_equal (o.res.errnum, EPROTO);
    assert_string_equal (o.text, "ok");
}

static void test_rc_error (void **state)
{
    struct fixture *fx = *state;
    struct outcome o;

    srv_start_unix (fx, SRV_RC_ERROR);
    assert_non_null (start_unix (fx, 5.0, 0, 0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.calls, 1);
    assert_int_equal (o.res.outcome, REQUEST_REFUSED);
    assert_int_equal (o.res.errnum, EPERM);
    assert_int_equal (o.rc_errnum, EPERM);
    assert_string_equal (o.text, "not yours");
    assert_true (request_answered (&o.res));
}

static void test_refused (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;
    struct outcome o;
    int lfd = net_listen_unix (fx->path, 0600, &err);

    close (lfd); /* the socket stays, nobody listens */
    assert_non_null (start_unix (fx, 5.0, 0, 0, &o));
    assert_int_equal (o.calls, 0); /* never inside the starting call */
    run_until (fx, &o, 5.0);
    assert_int_equal (o.calls, 1);
    assert_int_equal (o.res.outcome, REQUEST_UNREACHED);
    assert_int_equal (o.res.errnum, ECONNREFUSED);
    assert_string_equal (o.text, "connection refused");
    assert_false (request_answered (&o.res));

    /* the same, failing the call */
    errno = 0;
    assert_null (start_unix (fx, 5.0, 0, REQUEST_F_CONNECT_NOW, &o));
    assert_int_equal (errno, ECONNREFUSED);

    unlink (fx->path); /* no socket at all */
    assert_non_null (start_unix (fx, 5.0, 0, 0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.res.outcome, REQUEST_UNREACHED);
    assert_int_equal (o.res.errnum, ENOENT);
    errno = 0;
    assert_null (start_unix (fx, 5.0, 0, REQUEST_F_CONNECT_NOW, &o));
    assert_int_equal (errno, ENOENT);
    run_until (fx, &o, 0.2);
    assert_int_equal (o.calls, 0);
}

static void test_timeout (void **state)
{
    struct fixture *fx = *state;
    struct outcome o;
    ev_tstamp t0;

    srv_start_unix (fx, SRV_SILENT);
    assert_non_null (start_unix (fx, 0.2, 0, 0, &o));
    t0 = ev_time ();
    run_until (fx, &o, 5.0);
    assert_int_equal (o.calls, 1);
    assert_int_equal (o.res.outcome, REQUEST_TIMEDOUT);
    assert_int_equal (o.res.errnum, ETIMEDOUT);
    assert_string_equal (o.text, "no answer within 0.2 s");
    assert_true (ev_time () - t0 < 2.0);
    assert_int_equal (fx->srv.requests, 1);
}

static void test_closed (void **state)
{
    struct fixture *fx = *state;
    struct outcome o;

    srv_start_unix (fx, SRV_CLOSE);
    assert_non_null (start_unix (fx, 5.0, 0, 0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.calls, 1);
    assert_int_equal (o.res.outcome, REQUEST_CLOSED);
    assert_int_equal (o.res.errnum, ECONNRESET);
    assert_non_null (strstr (o.text, "connection closed before answering"));
}

static void test_cancel (void **state)
{
    struct fixture *fx = *state;
    struct outcome o, o2;
    struct request *r;

    srv_start_unix (fx, SRV_ANSWER);
    r = start_unix (fx, 0.3, 0, 0, &o);
    assert_non_null (r);
    request_cancel (r);
    run_until (fx, &o, 0.6);
    assert_int_equal (o.calls, 0);

    /* a failure already waiting to be reported is not reported either */
    srv_stop (fx);
    unlink (fx->path);
    r = start_unix (fx, 0.3, 0, 0, &o2);
    request_cancel (r);
    run_until (fx, &o2, 0.6);
    assert_int_equal (o2.calls, 0);
    request_cancel (NULL);
}

static void test_wrong_type (void **state)
{
    struct fixture *fx = *state;
    struct outcome o;

    srv_start_unix (fx, SRV_WRONG_TYPE);
    assert_non_null (start_unix (fx, 5.0, 0, 0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.calls, 1);
    assert_int_equal (o.res.outcome, REQUEST_BAD_ANSWER);
    assert_int_equal (o.res.errnum, EPROTO);
    assert_string_equal (o.text, "unexpected STEP_SIGNAL answer");
    assert_true (request_answered (&o.res));
}

static void test_other_matchtag_ignored (void **state)
{
    struct fixture *fx = *state;
    struct outcome o;

    srv_start_unix (fx, SRV_OTHER_TAG);
    assert_non_null (start_unix (fx, 5.0, 0, 0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.calls, 1);
    assert_int_equal (o.res.outcome, REQUEST_ANSWERED);

    fx->srv.script = SRV_OTHER_TAG_ONLY;
    assert_non_null (start_unix (fx, 0.2, 0, 0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.calls, 1);
    assert_int_equal (o.res.outcome, REQUEST_TIMEDOUT);
}

static void test_until_close (void **state)
{
    struct fixture *fx = *state;
    struct outcome o;
    ev_tstamp t0 = ev_time ();

    srv_start_unix (fx, SRV_ANSWER_CLOSE);
    assert_non_null (start_unix (fx, 5.0, 0, REQUEST_F_UNTIL_CLOSE, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.calls, 1);
    assert_int_equal (o.res.outcome, REQUEST_ANSWERED);
    assert_int_equal (o.res.type, MSG_RC);
    assert_true (ev_time () - t0 >= 0.04); /* waited for the close */

    /* an error answer completes at once */
    fx->srv.script = SRV_RC_ERROR;
    assert_non_null (start_unix (fx, 5.0, 0, REQUEST_F_UNTIL_CLOSE, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.res.outcome, REQUEST_REFUSED);
}

/* ---- TCP with munge
 * ---------------------------------------------------------- */

static void srv_start_tcp (struct fixture *fx, enum script script)
{
    arbor_error_t err;
    int lfd = net_listen_tcp ("127.0.0.1", 0, &fx->port, &err);

    assert_true (lfd >= 0);
    srv_start (fx, lfd, CONN_AUTH_MUNGE, script);
}

static struct request *start_tcp (struct fixture *fx, uint16_t port,
                                  double timeout, struct outcome *o)
{
    struct msg_step_signal m = { .signal = 15 };
    struct request_opts opts = { .peers = fx->peers,
                                 .peer_uid = geteuid (),
                                 .timeout = timeout };

    memset (o, 0, sizeof (*o));
    return request_tcp (fx->loop, "127.0.0.1", port, MSG_STEP_SIGNAL, &m, &opts,
                        done_cb, o);
}

static void test_tcp_answer_and_error (void **state)
{
    struct fixture *fx = *state;
    struct outcome o;

    srv_start_tcp (fx, SRV_ANSWER);
    assert_non_null (start_tcp (fx, fx->port, 5.0, &o));
    assert_int_equal (o.calls, 0);
    run_until (fx, &o, 5.0);
    assert_int_equal (o.res.outcome, REQUEST_ANSWERED);
    assert_int_equal (o.res.uid, getuid ());

    fx->srv.script = SRV_RC_ERROR;
    assert_non_null (start_tcp (fx, fx->port, 5.0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.res.outcome, REQUEST_REFUSED);
    assert_string_equal (o.text, "not yours");
    srv_stop (fx);
}

static void test_tcp_refused_timeout_closed (void **state)
{
    struct fixture *fx = *state;
    struct outcome o;
    uint16_t dead;
    arbor_error_t err;
    int fd = net_listen_tcp ("127.0.0.1", 0, &dead, &err);

    close (fd); /* a port nobody listens on */
    assert_non_null (start_tcp (fx, dead, 5.0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.res.outcome, REQUEST_UNREACHED);
    assert_int_equal (o.res.errnum, ECONNREFUSED);
    assert_string_equal (o.text, "connection refused");

    srv_start_tcp (fx, SRV_SILENT);
    assert_non_null (start_tcp (fx, fx->port, 0.2, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.res.outcome, REQUEST_TIMEDOUT);

    fx->srv.script = SRV_CLOSE;
    assert_non_null (start_tcp (fx, fx->port, 5.0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.res.outcome, REQUEST_CLOSED);

    /* cancelled while connecting */
    fx->srv.script = SRV_ANSWER;
    request_cancel (start_tcp (fx, fx->port, 0.3, &o));
    run_until (fx, &o, 0.6);
    assert_int_equal (o.calls, 0);
    srv_stop (fx);
}

/* Requests to one peer ride one kept connection; a peer that closes it
 * (a restart) is dialled again by the next request. */
static void test_tcp_kept_connection (void **state)
{
    struct fixture *fx = *state;
    struct outcome o;

    srv_start_tcp (fx, SRV_ANSWER);
    for (int i = 0; i < 3; i++) {
        assert_non_null (start_tcp (fx, fx->port, 5.0, &o));
        run_until (fx, &o, 5.0);
        assert_int_equal (o.res.outcome, REQUEST_ANSWERED);
    }
    assert_int_equal (fx->srv.accepts, 1);
    assert_int_equal (peers_count (fx->peers), 1);

    /* the server drops the conn (as a restarted daemon would) */
    conn_destroy (fx->srv.conn);
    fx->srv.conn = NULL;
    o.calls = 0;
    run_until (fx, &o, 0.2); /* the client sees the EOF */
    assert_non_null (start_tcp (fx, fx->port, 5.0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (o.res.outcome, REQUEST_ANSWERED);
    assert_int_equal (fx->srv.accepts, 2);

    /* closed under a request on a conn that had served: one retry on a
     * fresh conn, which the server answers */
    fx->srv.script = SRV_CLOSE;
    assert_non_null (start_tcp (fx, fx->port, 5.0, &o));
    run_until (fx, &o, 5.0);
    assert_int_equal (fx->srv.accepts, 3);
    assert_int_equal (o.res.outcome, REQUEST_CLOSED);
    srv_stop (fx);
}

static int setup_munge (void **state)
{
    struct fixture *fx;
    arbor_error_t err;

    if (setup (state) < 0)
        return -1;
    fx = *state;
    if (munged_fixture_start (&fx->m) < 0)
        return 0;
    fx->have_munge = true;
    if (!(fx->pool = auth_pool_create (fx->loop, fx->m.socket, 0, &err))
        || !(fx->peers = peers_create (fx->loop, fx->pool, NULL))) {
        fprintf (stderr, "auth_pool_create: %s\n", err.text);
        return -1;
    }
    return 0;
}

int main (int argc, char **argv)
{
    const struct CMUnitTest unix_tests[] = {
        cmocka_unit_test_setup_teardown (test_answer, setup, teardown),
        cmocka_unit_test_setup_teardown (test_answer_of_resp_type, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_rc_error, setup, teardown),
        cmocka_unit_test_setup_teardown (test_refused, setup, teardown),
        cmocka_unit_test_setup_teardown (test_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown (test_closed, setup, teardown),
        cmocka_unit_test_setup_teardown (test_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown (test_wrong_type, setup, teardown),
        cmocka_unit_test_setup_teardown (test_other_matchtag_ignored, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_until_close, setup, teardown),
    };
    struct fixture *fx = NULL;
    int rc;

    signal (SIGPIPE, SIG_IGN);
    if (argc < 2 || strcmp (argv[1], "munge") != 0)
        return cmocka_run_group_tests (unix_tests, NULL, NULL);
    /* One munged for the group; without it the group is a SKIP. */
    if (setup_munge ((void **)&fx) < 0)
        return 1;
    if (!fx->have_munge) {
        teardown ((void **)&fx);
        return arbor_skip_all ("munged could not be started");
    }
    const struct CMUnitTest munge_tests[] = {
        cmocka_unit_test_prestate (test_tcp_answer_and_error, fx),
        cmocka_unit_test_prestate (test_tcp_refused_timeout_closed, fx),
        cmocka_unit_test_prestate (test_tcp_kept_connection, fx),
    };
    rc = cmocka_run_group_tests (munge_tests, NULL, NULL);
    teardown ((void **)&fx);
    return arbor_test_exit (rc);
}
