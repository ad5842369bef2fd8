/* listen_test.c - the listener's limits, on a unix socket (SO_PEERCRED, so
 * no munged is needed): per-address and total caps on unauthenticated
 * connections, the authentication timeout, a conn that authenticates, and
 * backing off on EMFILE instead of spinning. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include <ev.h>

#include "listen.h"
#include "net.h"
#include "proto.h"
#include "rpc.h"

struct t {
    struct ev_loop *loop;
    struct listener *l;
    char path[64];
    unsigned accepted, refused, frames, closed;
    char why[256];
};

static void frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct t *t = arg;

    t->frames++;
}

static void closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct t *t = arg;

    t->closed++;
}

static const struct conn_ops cops = { .frame = frame_cb, .closed = closed_cb };

static void accepted_cb (struct listener *l, struct conn *c, void *arg)
{
    struct t *t = arg;

    t->accepted++;
    conn_set_arg (c, t);
}

static void refused_cb (struct listener *l, const char *peer, const char *why,
                        void *arg)
{
    struct t *t = arg;

    t->refused++;
    snprintf (t->why, sizeof (t->why), "%s", why);
}

static const struct listen_ops lops = { .accepted = accepted_cb,
                                        .refused = refused_cb };

static void t_start (struct t *t, const struct listen_limits *lim)
{
    memset (t, 0, sizeof (*t));
    t->loop = ev_loop_new (EVFLAG_AUTO);
    snprintf (t->path, sizeof (t->path), "/tmp/listen_test.%d", (int)getpid ());
    int fd = net_listen_unix (t->path, 0600, NULL);
    assert_true (fd >= 0);
    t->l = listener_create (t->loop, fd, NULL, lim, &cops, &lops, t);
    assert_non_null (t->l);
}

static void t_spin (struct t *t, double secs)
{
    double end = ev_time () + secs;

    while (ev_time () < end) {
        ev_now_update (t->loop);
        ev_run (t->loop, EVRUN_NOWAIT);
        usleep (1000);
    }
}

static void t_stop (struct t *t)
{
    listener_destroy (t->l);
    ev_loop_destroy (t->loop);
    unlink (t->path);
}

static bool peer_closed (int fd)
{
    char c;
    return recv (fd, &c, 1, MSG_DONTWAIT) == 0;
}

static void test_unauth_caps_and_timeout (void **state)
{
    struct listen_limits lim = { .max_unauth = 3,
                                 .max_unauth_peer = 2,
                                 .auth_timeout = 0.3 };
    struct t t;
    int fds[3];

    t_start (&t, &lim);
    for (int i = 0; i < 3; i++)
        assert_true ((fds[i] = net_connect_unix (t.path, NULL)) >= 0);
    t_spin (&t, 0.1);
    assert_int_equal (t.accepted, 2);
    assert_int_equal (t.refused, 1);
    assert_string_equal (t.why, "too many unauthenticated connections "
                                "from this address");
    assert_true (peer_closed (fds[2]));
    assert_int_equal (listener_unauth (t.l), 2);

    /* fds[0] authenticates (a frame over SO_PEERCRED); fds[1] stays
     * silent and is closed when the timeout passes. */
    struct msg_rc rc = { 0, "" };
    struct rpc_chan ch;
    rpc_chan_unix (&ch, fds[0]);
    assert_int_equal (rpc_send (&ch, MSG_RC, 1, &rc, NULL), 0);
    t_spin (&t, 0.5);
    assert_int_equal (t.frames, 1);
    assert_int_equal (t.closed, 1);
    assert_false (peer_closed (fds[0]));
    assert_true (peer_closed (fds[1]));
    assert_int_equal (listener_count (t.l), 1);
    assert_int_equal (listener_unauth (t.l), 0);
    for (int i = 0; i < 3; i++)
        close (fds[i]);
    t_spin (&t, 0.1);
    assert_int_equal (listener_count (t.l), 0);
    t_stop (&t);
}

/* Out of descriptors: one report and a pause, not a busy loop. */
static void test_emfile_backs_off (void **state)
{
    struct rlimit old, rl;
    struct t t;
    int fds[64], n = 0, hog[64], nhog = 0;

    t_start (&t, NULL);
    assert_int_equal (getrlimit (RLIMIT_NOFILE, &old), 0);
    /* Connect first, then take the table down to zero free slots. */
    for (n = 0; n < 4; n++)
        assert_true ((fds[n] = net_connect_unix (t.path, NULL)) >= 0);
    int probe = dup (0);
    rl = old;
    rl.rlim_cur = (rlim_t)probe + 1;
    close (probe);
    assert_int_equal (setrlimit (RLIMIT_NOFILE, &rl), 0);
    while (nhog < 64 && (hog[nhog] = dup (0)) >= 0)
        nhog++;
    t_spin (&t, 0.3);
    unsigned reports = t.refused;
    assert_true (reports >= 1 && reports <= 2);
    assert_non_null (strstr (t.why, "not accepting for 1 s"));
    for (int i = 0; i < nhog; i++)
        close (hog[i]);
    assert_int_equal (setrlimit (RLIMIT_NOFILE, &old), 0);
    t_spin (&t, 1.3); /* the pause ends; what is left is accepted */
    assert_true (t.accepted >= 1);
    for (int i = 0; i < n; i++)
        close (fds[i]);
    t_stop (&t);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_unauth_caps_and_timeout),
        cmocka_unit_test (test_emfile_backs_off),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
