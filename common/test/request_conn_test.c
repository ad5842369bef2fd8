/* request_conn_test.c - requests on a held connection (request_conn.h,
 * conn_wait.h) and retry as an option of a request (request.h).
 *
 * The held conn is one end of a socketpair, its owner's: a frame counter
 * stands for the owner's own handler. The other end is a scripted peer
 * (answer, refuse, stay silent for the first N requests, close). The
 * retry of a failed connect uses a unix socket path that appears (or
 * not) while the request waits. Everything runs on one loop.
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

#include "conn.h"
#include "net.h"
#include "proto.h"
#include "request.h"
#include "request_conn.h"

enum peer_script {
    PEER_ANSWER,  /* RC 0 "ok" */
    PEER_REFUSE,  /* RC EPERM "not yours" */
    PEER_SILENT,  /* never answers */
    PEER_REVERSE, /* holds the first request, answers it after the second */
    PEER_NOISE,   /* a frame that is no answer, a foreign answer, then RC 0 */
};

struct peer {
    enum peer_script script;
    int silent_first; /* answer nothing to the first N requests */
    int requests;
    uint32_t held_tag;
    struct conn *conn;
};

struct fixture {
    struct ev_loop *loop;
    struct conn *own; /* the owner's end */
    struct peer peer; /* the other end */
    int owner_frames; /* frames that reached the owner's handler */
    int owner_closed; /* ... and its ops->closed */
    int calls_at_owner_closed;
    char path[128];
    char dir[64];
};

struct outcome {
    struct fixture *fx;
    int calls;
    int again_calls;
    bool again_answer; /* what the again hook returns */
    struct request_result res;
    char text[160];
    int order; /* completion order, 1-based */
};

static int completions;

/* ---- the peer ------------------------------------------------------------ */

static void peer_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct peer *p = arg;
    struct msg_step_signal sig = { .signal = 9 };

    if (f->flags & FRAME_F_RESPONSE)
        return;
    if (++p->requests <= p->silent_first)
        return;
    switch (p->script) {
    case PEER_ANSWER:
        conn_send_rc (c, f->matchtag, 0, "ok %u", f->matchtag);
        break;
    case PEER_REFUSE: conn_send_rc (c, f->matchtag, EPERM, "not yours"); break;
    case PEER_SILENT: break;
    case PEER_REVERSE:
        if (!p->held_tag) {
            p->held_tag = f->matchtag;
            break;
        }
        conn_send_rc (c, f->matchtag, 0, "second");
        conn_send_rc (c, p->held_tag, 0, "first");
        break;
    case PEER_NOISE:
        conn_send (c, MSG_STEP_SIGNAL, f->matchtag, 0, &sig); /* a request */
        conn_send_rc (c, f->matchtag + 100, 0, "not an answer of ours");
        conn_send_rc (c, f->matchtag, 0, "ok");
        break;
    }
}

static void peer_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    ((struct peer *)arg)->conn = NULL;
}

static const struct conn_ops peer_ops = { peer_frame_cb, peer_closed_cb };

/* ---- the owner ----------------------------------------------------------- */

static void own_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    ((struct fixture *)arg)->owner_frames++;
}

static void own_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct fixture *fx = arg;

    fx->own = NULL;
    fx->owner_closed++;
    fx->calls_at_owner_closed = completions;
}

static const struct conn_ops own_ops = { own_frame_cb, own_closed_cb };

static int setup (void **state)
{
    struct fixture *fx = calloc (1, sizeof (*fx));
    int sv[2];

    assert_non_null (fx);
    fx->loop = ev_loop_new (EVFLAG_AUTO);
    assert_int_equal (socketpair (AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fx->own = conn_create_unix (fx->loop, sv[0], &own_ops, fx);
    fx->peer.conn = conn_create_unix (fx->loop, sv[1], &peer_ops, &fx->peer);
    assert_non_null (fx->own);
    assert_non_null (fx->peer.conn);
    snprintf (fx->dir, sizeof (fx->dir), "/tmp/reqconn.XXXXXX");
    assert_non_null (mkdtemp (fx->dir));
    snprintf (fx->path, sizeof (fx->path), "%s/sock", fx->dir);
    completions = 0;
    *state = fx;
    return 0;
}

static int teardown (void **state)
{
    struct fixture *fx = *state;

    conn_destroy (fx->own);
    conn_destroy (fx->peer.conn);
    unlink (fx->path);
    rmdir (fx->dir);
    ev_loop_destroy (fx->loop);
    free (fx);
    return 0;
}

static void done_cb (const struct request_result *res, void *arg)
{
    struct outcome *o = arg;

    o->calls++;
    o->order = ++completions;
    o->res = *res;
    o->res.msg = NULL; /* borrowed */
    if (res->outcome == REQUEST_ANSWERED || res->outcome == REQUEST_REFUSED) {
        const struct msg_rc *rc = res->msg;
        snprintf (o->text, sizeof (o->text), "%s", rc->text ? rc->text : "");
    } else {
        snprintf (o->text, sizeof (o->text), "%s", res->err.text);
    }
}

static bool again_cb (const struct request_result *res, void *arg)
{
    struct outcome *o = arg;

    o->again_calls++;
    return o->again_answer;
}

/* Run the loop until 'o' completed (or 'secs' passed). */
static void run_until (struct fixture *fx, struct outcome *o, double secs)
{
    double end = ev_time () + secs;

    while ((!o || o->calls == 0) && ev_time () < end)
        ev_run (fx->loop, EVRUN_ONCE | EVRUN_NOWAIT), usleep (1000);
}

static struct request *ask (struct fixture *fx, const struct request_opts *o,
                            struct outcome *out)
{
    struct msg_step_signal m = { .signal = 0 };

    out->fx = fx;
    return request_conn (fx->own, MSG_STEP_SIGNAL, &m, o, done_cb, out);
}

/* ---- held conn ----------------------------------------------------------- */

static void test_held_answer (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 5 };
    struct outcome a = { 0 };

    fx->peer.script = PEER_NOISE;
    assert_non_null (ask (fx, &o, &a));
    assert_int_equal (a.calls, 0); /* never inside the starting call */
    run_until (fx, &a, 5);
    assert_int_equal (a.calls, 1);
    assert_int_equal (a.res.outcome, REQUEST_ANSWERED);
    assert_string_equal (a.text, "ok");
    run_until (fx, NULL, 0.05);
    /* the peer's request and the foreign answer went to the owner */
    assert_int_equal (fx->owner_frames, 2);
    assert_int_equal (a.calls, 1);
}

static void test_held_two_in_flight (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 5 };
    struct outcome a = { 0 }, b = { 0 };

    fx->peer.script = PEER_REVERSE;
    assert_non_null (ask (fx, &o, &a));
    assert_non_null (ask (fx, &o, &b));
    run_until (fx, &a, 5);
    run_until (fx, &b, 5);
    assert_string_equal (a.text, "first");
    assert_string_equal (b.text, "second");
    assert_int_equal (b.order, 1); /* answered in the peer's order */
    assert_int_equal (a.order, 2);
    assert_int_equal (fx->owner_frames, 0);
}

static void test_held_timeout (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 0.05 };
    struct outcome a = { 0 }, b = { 0 };

    fx->peer.script = PEER_SILENT;
    assert_non_null (ask (fx, &o, &a));
    run_until (fx, &a, 5);
    assert_int_equal (a.res.outcome, REQUEST_TIMEDOUT);
    assert_int_equal (a.res.errnum, ETIMEDOUT);
    assert_non_null (fx->own); /* the owner's conn lives on */
    fx->peer.script = PEER_ANSWER;
    assert_non_null (ask (fx, &o, &b));
    run_until (fx, &b, 5);
    assert_int_equal (b.res.outcome, REQUEST_ANSWERED);
    assert_int_equal (a.calls, 1);
}

/* A request's time counts from its start, not from the loop's cached
 * time: a caller that blocked a while (a command waiting for its
 * allocation) before asking must not see it time out at once. */
static void test_held_timeout_counts_from_start (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 0.2 };
    struct outcome a = { 0 };

    fx->peer.script = PEER_ANSWER;
    run_until (fx, NULL, 0.01); /* the loop's clock is set ... */
    usleep (500 * 1000);        /* ... and stale by more than the timeout */
    assert_non_null (ask (fx, &o, &a));
    run_until (fx, &a, 5);
    assert_int_equal (a.res.outcome, REQUEST_ANSWERED);
}

static void test_held_peer_closes (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 5 };
    struct outcome a = { 0 }, b = { 0 };

    fx->peer.script = PEER_SILENT;
    assert_non_null (ask (fx, &o, &a));
    assert_non_null (ask (fx, &o, &b));
    run_until (fx, NULL, 0.02);
    conn_destroy (fx->peer.conn);
    fx->peer.conn = NULL;
    run_until (fx, &a, 5);
    run_until (fx, &b, 5);
    assert_int_equal (fx->owner_closed, 1);
    assert_int_equal (fx->calls_at_owner_closed, 0); /* owner told first */
    assert_int_equal (a.calls, 1);
    assert_int_equal (b.calls, 1);
    assert_int_equal (a.res.outcome, REQUEST_CLOSED);
    assert_int_equal (b.res.errnum, ECONNRESET);
}

static void test_held_owner_destroys (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 5 };
    struct outcome a = { 0 };

    fx->peer.script = PEER_SILENT;
    assert_non_null (ask (fx, &o, &a));
    conn_destroy (fx->own);
    fx->own = NULL;
    assert_int_equal (a.calls, 0); /* not inside conn_destroy */
    run_until (fx, &a, 5);
    assert_int_equal (a.calls, 1);
    assert_int_equal (a.res.outcome, REQUEST_CLOSED);
}

static void test_held_cancel (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 5 };
    struct outcome a = { 0 }, b = { 0 };
    struct request *r;

    fx->peer.script = PEER_ANSWER;
    assert_non_null (r = ask (fx, &o, &a));
    request_cancel (r);
    assert_non_null (ask (fx, &o, &b));
    run_until (fx, &b, 5);
    run_until (fx, NULL, 0.05);
    assert_int_equal (a.calls, 0);
    assert_int_equal (b.calls, 1);
    assert_int_equal (fx->owner_frames, 1); /* the cancelled one's answer */
}

/* ---- retry --------------------------------------------------------------- */

static void test_retry_until_answered (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = {
        .timeout = 0.03,
        .retry = { .interval = 0.01 },
    };
    struct outcome a = { 0 };

    fx->peer.script = PEER_ANSWER;
    fx->peer.silent_first = 2;
    assert_non_null (ask (fx, &o, &a));
    run_until (fx, &a, 5);
    assert_int_equal (a.calls, 1);
    assert_int_equal (a.res.outcome, REQUEST_ANSWERED);
    assert_int_equal (fx->peer.requests, 3);
}

static void test_retry_limit (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = {
        .timeout = 0.02,
        .retry = { .interval = 0.01, .limit = 3, .again = again_cb },
    };
    struct outcome a = { .again_answer = true };

    fx->peer.script = PEER_SILENT;
    assert_non_null (ask (fx, &o, &a));
    run_until (fx, &a, 5);
    run_until (fx, NULL, 0.1);
    assert_int_equal (a.calls, 1);
    assert_int_equal (a.res.outcome, REQUEST_TIMEDOUT);
    assert_int_equal (fx->peer.requests, 3);
    assert_int_equal (a.again_calls, 2); /* not after the last attempt */
}

static void test_retry_refusal_ends (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 1, .retry = { .interval = 0.01 } };
    struct outcome a = { 0 };

    fx->peer.script = PEER_REFUSE;
    assert_non_null (ask (fx, &o, &a));
    run_until (fx, &a, 5);
    assert_int_equal (a.res.outcome, REQUEST_REFUSED);
    assert_int_equal (fx->peer.requests, 1);
}

static void test_retry_hook_decides (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = {
        .timeout = 1,
        .retry = { .interval = 0.01, .limit = 4, .again = again_cb },
    };
    struct outcome a = { .again_answer = true };

    fx->peer.script = PEER_REFUSE; /* a refusal the hook retries */
    assert_non_null (ask (fx, &o, &a));
    run_until (fx, &a, 5);
    assert_int_equal (a.res.outcome, REQUEST_REFUSED);
    assert_int_equal (fx->peer.requests, 4);
    assert_int_equal (a.again_calls, 3);
}

static void test_retry_cancel_in_pause (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 0.02, .retry = { .interval = 10 } };
    struct outcome a = { 0 };
    struct request *r;

    fx->peer.script = PEER_SILENT;
    assert_non_null (r = ask (fx, &o, &a));
    run_until (fx, NULL, 0.1); /* the first attempt timed out: pausing */
    assert_int_equal (fx->peer.requests, 1);
    assert_int_equal (a.calls, 0);
    request_cancel (r);
    run_until (fx, NULL, 0.1);
    assert_int_equal (a.calls, 0);
    assert_int_equal (fx->peer.requests, 1);
}

static void test_retry_deadline (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = {
        .timeout = 0.01,
        .retry = { .interval = 0.005, .interval_max = 0.02, .deadline = 0.15 },
    };
    struct outcome a = { 0 };
    double t0 = ev_time ();

    fx->peer.script = PEER_SILENT;
    assert_non_null (ask (fx, &o, &a));
    run_until (fx, &a, 5);
    assert_int_equal (a.res.outcome, REQUEST_TIMEDOUT);
    assert_true (ev_time () - t0 >= 0.15);
    assert_true (ev_time () - t0 < 1.0);
    assert_true (fx->peer.requests >= 4);
}

static void test_retry_now (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 0.02, .retry = { .interval = 10 } };
    struct outcome a = { 0 };
    struct request *r;

    fx->peer.script = PEER_ANSWER;
    fx->peer.silent_first = 1;
    assert_non_null (r = ask (fx, &o, &a));
    assert_int_equal (request_retry_now (r), -1); /* in flight */
    assert_int_equal (errno, EBUSY);
    run_until (fx, NULL, 0.1); /* timed out: pausing 10 s */
    assert_int_equal (a.calls, 0);
    assert_int_equal (request_retry_now (r), 0);
    run_until (fx, &a, 1);
    assert_int_equal (a.calls, 1);
    assert_int_equal (a.res.outcome, REQUEST_ANSWERED);
    assert_int_equal (fx->peer.requests, 2);
}

/* The callback destroys the held conn: its result stays as it was. */
static struct fixture *destroy_fx;
static void destroy_cb (const struct request_result *res, void *arg)
{
    conn_destroy (destroy_fx->own);
    destroy_fx->own = NULL;
    done_cb (res, arg);
}

static void test_held_destroy_in_callback (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = { .timeout = 0.02 };
    struct msg_step_signal m = { .signal = 0 };
    struct outcome a = { 0 };

    destroy_fx = fx;
    fx->peer.script = PEER_SILENT;
    assert_non_null (
        request_conn (fx->own, MSG_STEP_SIGNAL, &m, &o, destroy_cb, &a));
    run_until (fx, &a, 5);
    run_until (fx, NULL, 0.05);
    assert_int_equal (a.calls, 1);
    assert_int_equal (a.res.outcome, REQUEST_TIMEDOUT);
}

/* The pause doubles up to interval_max: 0.02, 0.04, 0.08 s between
 * four attempts of 0.01 s each. */
static void test_retry_backoff (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = {
        .timeout = 0.01,
        .retry = { .interval = 0.02, .interval_max = 0.08, .limit = 4 },
    };
    struct outcome a = { 0 };
    double t0 = ev_time ();

    fx->peer.script = PEER_SILENT;
    assert_non_null (ask (fx, &o, &a));
    run_until (fx, &a, 5);
    assert_int_equal (a.res.outcome, REQUEST_TIMEDOUT);
    assert_int_equal (fx->peer.requests, 4);
    assert_true (ev_time () - t0 >= 0.17);
}

/* A failed connect is retried; the socket appears during the pause. */
static void test_retry_connect (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = {
        .timeout = 1,
        .retry = { .interval = 0.05, .limit = 10, .again = again_cb },
    };
    struct msg_step_signal m = { .signal = 0 };
    struct outcome a = { .again_answer = true };
    arbor_error_t err;
    int lfd = -1, fd;

    assert_non_null (request_unix (fx->loop, fx->path, MSG_STEP_SIGNAL, &m, &o,
                                   done_cb, &a));
    while (a.calls == 0 && a.again_calls < 30) {
        run_until (fx, &a, 0.01);
        if (a.again_calls >= 2 && lfd < 0) {
            assert_true ((lfd = net_listen_unix (fx->path, 0600, &err)) >= 0);
        }
        if (lfd >= 0 && (fd = accept4 (lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
            conn_destroy (fx->peer.conn);
            fx->peer.conn =
                conn_create_unix (fx->loop, fd, &peer_ops, &fx->peer);
        }
    }
    close (lfd);
    assert_int_equal (a.calls, 1);
    assert_int_equal (a.res.outcome, REQUEST_ANSWERED);
    assert_true (a.again_calls >= 2);
    assert_int_equal (a.again_calls, 2);
}

static void test_retry_connect_limit (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = {
        .timeout = 1,
        .retry = { .interval = 0.01, .limit = 3 },
    };
    struct msg_step_signal m = { .signal = 0 };
    struct outcome a = { 0 };

    assert_non_null (request_unix (fx->loop, fx->path, MSG_STEP_SIGNAL, &m, &o,
                                   done_cb, &a));
    run_until (fx, &a, 5);
    assert_int_equal (a.calls, 1);
    assert_int_equal (a.res.outcome, REQUEST_UNREACHED);
    assert_int_equal (a.res.errnum, ENOENT);
}

/* request_conn_follow: no conn at first, then the owner's new one. */
static void test_follow (void **state)
{
    struct fixture *fx = *state;
    struct request_opts o = {
        .timeout = 1,
        .retry = { .interval = 0.02, .again = again_cb },
    };
    struct msg_step_signal m = { .signal = 0 };
    struct outcome a = { .again_answer = true };
    struct conn *link = NULL;

    fx->peer.script = PEER_ANSWER;
    assert_non_null (request_conn_follow (fx->loop, &link, MSG_STEP_SIGNAL, &m,
                                          &o, done_cb, &a));
    run_until (fx, NULL, 0.01);
    assert_int_equal (a.calls, 0);
    assert_true (a.again_calls >= 1);
    link = fx->own;
    run_until (fx, &a, 5);
    assert_int_equal (a.res.outcome, REQUEST_ANSWERED);
    assert_int_equal (fx->peer.requests, 1);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_held_answer, setup, teardown),
        cmocka_unit_test_setup_teardown (test_held_two_in_flight, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_held_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown (test_held_timeout_counts_from_start,
                                         setup, teardown),
        cmocka_unit_test_setup_teardown (test_held_peer_closes, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_held_owner_destroys, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_held_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown (test_retry_until_answered, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_retry_limit, setup, teardown),
        cmocka_unit_test_setup_teardown (test_retry_refusal_ends, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_retry_hook_decides, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_retry_cancel_in_pause, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_retry_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown (test_retry_connect, setup, teardown),
        cmocka_unit_test_setup_teardown (test_retry_connect_limit, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_follow, setup, teardown),
        cmocka_unit_test_setup_teardown (test_retry_now, setup, teardown),
        cmocka_unit_test_setup_teardown (test_retry_backoff, setup, teardown),
        cmocka_unit_test_setup_teardown (test_held_destroy_in_callback, setup,
                                         teardown),
    };

    signal (SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests (tests, NULL, NULL);
}
