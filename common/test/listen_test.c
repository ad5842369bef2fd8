/* listen_test.c - the listener's limits, on a unix socket (SO_PEERCRED, so
 * no munged is needed; the "address" is the peer's uid): per-address and
 * total caps on unauthenticated connections (the oldest pending one is
 * closed for a newcomer), the authentication timeout, a conn that
 * authenticates, session caps per uid and the reserve for root (refused
 * with a reason the client reads), idle sessions closed when the daemon
 * agrees, and backing off on EMFILE instead of spinning. Sessions of an
 * ordinary uid are opened by a child that drops to nobody when we are
 * root and hands its sockets back (SCM_RIGHTS). */
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
#include <sys/wait.h>
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
    int fd = net_listen_unix (t->path, 0666, NULL);
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
                                 .auth_timeout = 0.3,
                                 .evict_age = 0.01 };
    struct t t;
    int fds[3];

    /* A third silent connection from one peer: the oldest silent one is
     * closed to make room, the newcomer is kept. */
    t_start (&t, &lim);
    for (int i = 0; i < 3; i++) {
        assert_true ((fds[i] = net_connect_unix (t.path, NULL)) >= 0);
        t_spin (&t, 0.02);
    }
    t_spin (&t, 0.05);
    assert_int_equal (t.accepted, 3);
    assert_int_equal (t.refused, 1);
    assert_non_null (strstr (t.why, "closed the oldest connection that had "
                                    "not authenticated"));
    assert_true (peer_closed (fds[0]));
    assert_false (peer_closed (fds[1]));
    assert_false (peer_closed (fds[2]));
    assert_int_equal (listener_unauth (t.l), 2);

    /* fds[1] authenticates (a frame over SO_PEERCRED); fds[2] stays
     * silent and is closed when the timeout passes. */
    struct msg_rc rc = { 0, "" };
    struct rpc_chan ch;
    rpc_chan_unix (&ch, fds[1]);
    assert_int_equal (rpc_send (&ch, MSG_RC, 1, &rc, NULL), 0);
    t_spin (&t, 0.5);
    assert_int_equal (t.frames, 1);
    assert_false (peer_closed (fds[1]));
    assert_true (peer_closed (fds[2]));
    assert_int_equal (listener_count (t.l), 1);
    assert_int_equal (listener_unauth (t.l), 0);
    for (int i = 0; i < 3; i++)
        close (fds[i]);
    t_spin (&t, 0.1);
    assert_int_equal (listener_count (t.l), 0);
    t_stop (&t);
}

/* A flood of silent connections cannot keep out a peer that sends its
 * first frame at once: each newcomer pushes out the oldest silent one. */
static void test_flood_cannot_lock_out (void **state)
{
    struct listen_limits lim = { .max_unauth = 8,
                                 .max_unauth_peer = 4,
                                 .evict_age = 0.05 };
    struct t t;
    int flood[32], good;
    struct msg_rc rc = { 0, "" };
    struct rpc_chan ch;

    t_start (&t, &lim);
    for (int i = 0; i < 16; i++)
        assert_true ((flood[i] = net_connect_unix (t.path, NULL)) >= 0);
    t_spin (&t, 0.1);
    assert_true ((good = net_connect_unix (t.path, NULL)) >= 0);
    rpc_chan_unix (&ch, good);
    assert_int_equal (rpc_send (&ch, MSG_RC, 1, &rc, NULL), 0);
    for (int i = 16; i < 32; i++) /* the flood goes on */
        assert_true ((flood[i] = net_connect_unix (t.path, NULL)) >= 0);
    t_spin (&t, 0.1);
    assert_int_equal (t.frames, 1);
    assert_false (peer_closed (good));
    assert_true (listener_unauth (t.l) <= 4);
    for (int i = 0; i < 32; i++)
        close (flood[i]);
    close (good);
    t_stop (&t);
}

/* Send fd over a unix socket (SCM_RIGHTS). */
static void fd_pass (int sock, int fd)
{
    char c = 0, cbuf[CMSG_SPACE (sizeof (int))] = { 0 };
    struct iovec iov = { &c, 1 };
    struct msghdr mh = { .msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = cbuf,
                         .msg_controllen = sizeof (cbuf) };
    struct cmsghdr *cm = CMSG_FIRSTHDR (&mh);

    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN (sizeof (int));
    memcpy (CMSG_DATA (cm), &fd, sizeof (int));
    if (sendmsg (sock, &mh, 0) != 1)
        _exit (3);
}

static int fd_take (int sock)
{
    char c, cbuf[CMSG_SPACE (sizeof (int))];
    struct iovec iov = { &c, 1 };
    struct msghdr mh = { .msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = cbuf,
                         .msg_controllen = sizeof (cbuf) };
    int fd = -1;

    if (recvmsg (sock, &mh, 0) != 1 || !CMSG_FIRSTHDR (&mh))
        return -1;
    memcpy (&fd, CMSG_DATA (CMSG_FIRSTHDR (&mh)), sizeof (int));
    return fd;
}

/* n connections made by an ordinary uid (nobody, when we are root); its
 * uid in *uid. */
static void user_connect (const char *path, int n, int *fds, uid_t *uid)
{
    int sp[2], status;
    pid_t pid;

    assert_int_equal (socketpair (AF_UNIX, SOCK_STREAM, 0, sp), 0);
    *uid = geteuid () == 0 ? 65534 : geteuid ();
    if ((pid = fork ()) == 0) {
        if (geteuid () == 0 && setuid (65534) < 0)
            _exit (2);
        for (int i = 0; i < n; i++) {
            int fd = net_connect_unix (path, NULL);
            if (fd < 0)
                _exit (1);
            fd_pass (sp[1], fd);
            close (fd);
        }
        _exit (0);
    }
    assert_true (pid > 0);
    for (int i = 0; i < n; i++)
        assert_true ((fds[i] = fd_take (sp[0])) >= 0);
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_int_equal (status, 0);
    close (sp[0]);
    close (sp[1]);
}

/* The answer to a request on fd, read while the listener's loop turns. */
static int ask (struct t *t, int fd, struct msg_rc *out)
{
    struct msg_rc rc = { 0, "" };
    struct rpc_chan ch;
    union msg_any m;
    int type = 0;

    rpc_chan_unix (&ch, fd);
    if (rpc_send (&ch, MSG_RC, 7, &rc, NULL) < 0)
        return -1;
    t_spin (t, 0.1);
    if (rpc_recv (&ch, 1000, &type, &m, NULL, NULL) < 0 || type != MSG_RC)
        return -1;
    out->errnum = m.rc.errnum;
    out->text = m.rc.text ? strdup (m.rc.text) : NULL;
    proto_clear (MSG_RC, &m);
    return 0;
}

/* The frame callback answers every request (as a daemon would). */
static void answer_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct t *t = arg;

    t->frames++;
    conn_send_rc (c, f->matchtag, 0, "ok");
}

static const struct conn_ops answer_ops = { .frame = answer_frame_cb,
                                            .closed = closed_cb };

static void t_start_answering (struct t *t, const struct listen_limits *lim)
{
    memset (t, 0, sizeof (*t));
    t->loop = ev_loop_new (EVFLAG_AUTO);
    snprintf (t->path, sizeof (t->path), "/tmp/listen_test.%d", (int)getpid ());
    int fd = net_listen_unix (t->path, 0666, NULL);
    assert_true (fd >= 0);
    t->l = listener_create (t->loop, fd, NULL, lim, &answer_ops, &lops, t);
    assert_non_null (t->l);
}

/* One uid over its cap is refused with the reason, as an answer its
 * client prints; root is still served from the reserve when the ordinary
 * uids have used their whole budget. */
static void test_session_caps_and_reserve (void **state)
{
    struct listen_limits lim = {
        .max_conns = 4, .reserve = 1, .max_uid_sessions = 2, .name = "test"
    };
    struct t t;
    int u[3], r;
    uid_t uid;
    struct msg_rc a;
    char want[128];

    t_start_answering (&t, &lim);
    user_connect (t.path, 3, u, &uid);
    assert_int_equal (ask (&t, u[0], &a), 0);
    assert_int_equal (a.errnum, 0);
    free (a.text);
    assert_int_equal (ask (&t, u[1], &a), 0);
    assert_int_equal (a.errnum, 0);
    free (a.text);
    assert_int_equal (ask (&t, u[2], &a), 0);
    assert_int_equal (a.errnum, EUSERS);
    snprintf (want, sizeof (want),
              "test refused the connection: too many sessions for uid %lu "
              "(limit 2)",
              (unsigned long)uid);
    assert_string_equal (a.text, want);
    free (a.text);
    assert_int_equal (t.frames, 2);
    close (u[2]);
    t_spin (&t, 0.1);
    assert_int_equal (listener_sessions (t.l), 2);

    if (geteuid () == 0) { /* root: exempt, and max_conns is not reached */
        assert_true ((r = net_connect_unix (t.path, NULL)) >= 0);
        assert_int_equal (ask (&t, r, &a), 0);
        assert_int_equal (a.errnum, 0);
        free (a.text);
        close (r);
    }
    close (u[0]);
    close (u[1]);
    t_spin (&t, 0.1);
    assert_int_equal (listener_count (t.l), 0);
    t_stop (&t);
}

static unsigned idle_calls;

/* Keep the first idle session (it "holds a job"), let the others go. */
static void idle_keep_first (struct listener *l, struct conn **conns, size_t n,
                             void *arg)
{
    idle_calls++;
    conns[0] = NULL;
}

static void test_idle_sessions_closed (void **state)
{
    static const struct listen_ops idle_lops = { .accepted = accepted_cb,
                                                 .refused = refused_cb,
                                                 .idle = idle_keep_first };
    struct listen_limits lim = { .idle_timeout = 0.3 };
    struct t t;
    int u[3];
    uid_t uid;
    struct msg_rc a;

    memset (&t, 0, sizeof (t));
    t.loop = ev_loop_new (EVFLAG_AUTO);
    snprintf (t.path, sizeof (t.path), "/tmp/listen_test.%d", (int)getpid ());
    int fd = net_listen_unix (t.path, 0666, NULL);
    assert_true (fd >= 0);
    t.l = listener_create (t.loop, fd, NULL, &lim, &answer_ops, &idle_lops, &t);
    user_connect (t.path, 3, u, &uid);
    for (int i = 0; i < 3; i++) {
        assert_int_equal (ask (&t, u[i], &a), 0);
        free (a.text);
    }
    assert_int_equal (listener_sessions (t.l), 3);
    t_spin (&t, 0.8);
    assert_true (idle_calls >= 1);
    assert_int_equal ((int)peer_closed (u[0]) + (int)peer_closed (u[1])
                          + (int)peer_closed (u[2]),
                      2);
    for (int i = 0; i < 3; i++)
        close (u[i]);
    t_spin (&t, 0.1);
    assert_int_equal (listener_sessions (t.l), 0);
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
        cmocka_unit_test (test_flood_cannot_lock_out),
        cmocka_unit_test (test_session_caps_and_reserve),
        cmocka_unit_test (test_idle_sessions_closed),
        cmocka_unit_test (test_emfile_backs_off),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
