/* term_test.c - job and step termination of a real noded, in one process.
 *
 * One noded (node1) runs on this test's libev loop with a private munged.
 * Around it, on the same loop: a fake ctld (TCP, munge) that records every
 * EPILOG_COMPLETE and answers RC 0, an error, or nothing, as the test
 * says; and fake stepds, unix sockets in the spool that answer
 * STEPD_TERMINATE with RC 0, ETIME, or "unknown message" (a stepd from
 * before protocol 1.1), now or after a delay. The Epilog is a shell script
 * that records its environment, process group and stdin, and fails or
 * hangs when the job's environment asks it to.
 * The relay of a stepd's STEP_COMPLETE is checked on the path a noded
 * restart takes: the new noded attaches to the fake stepds' sockets
 * (STEPD_ATTACH), a fake stepd sends STEP_COMPLETE there and the fake
 * ctld must get it from the noded; a report naming another step is
 * refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "skip.h"

#include "authpool.h"
#include "conf.h"
#include "epilog.h"
#include "log.h"
#include "munged_fixture.h"
#include "net.h"
#include "noded.h"
#include "revoke.h"
#include "rpc.h"
#include "stepd_info.h"
#include "stepd_table.h"
#include "stepd_term.h"
#include "stepd_track.h"
#include "term.h"

#define MAX_COMPLETES 8
#define MAX_STEPDS 4
#define MAX_CTLD_CONNS 8

/* ---- fake stepds ------------------------------------------------------ */

enum fake_mode { FAKE_OK, FAKE_ETIME, FAKE_OLD };

/* munged could not be started: every test is skipped (skip.h). */
static bool no_munged;

struct fake_stepd {
    struct world *w;
    uint32_t job, step;
    enum fake_mode mode;
    double delay; /* seconds before answering */
    int listen_fd;
    ev_io accept_w;
    struct conn *conn;
    ev_timer delay_w;
    uint32_t matchtag;
    int terminates; /* STEPD_TERMINATE received */
    char reason[32];
    int signal;       /* STEP_SIGNAL received (FAKE_OLD) */
    bool attached;    /* STEPD_ATTACH received (and answered RC 0) */
    int relay_errnum; /* the noded's answer to our STEP_COMPLETE, -1 none */
    char path[PATH_MAX];
};

struct world {
    struct munged_fixture munge;
    char dir[PATH_MAX];
    char conf_path[PATH_MAX + 16];
    struct ev_loop *loop;
    struct conf *conf;
    struct noded *nd;
    struct auth_pool *pool; /* the test's munge calls (client, fake ctld) */
    uint16_t port, ctld_port;
    /* the client's answer */
    bool answered;
    struct msg_rc rc;
    /* the fake ctld */
    int ctld_fd;
    ev_io ctld_w;
    /* the fake ctld's accepted conns: closed by ctld_down, so the
     * noded's kept connection to it sees the ctld go */
    struct conn *ctld_conns[MAX_CTLD_CONNS];
    int ctld_refuse; /* answer EAGAIN this many times */
    int ctld_silent; /* then ignore this many */
    int ncompletes;
    struct msg_epilog_complete completes[MAX_COMPLETES];
    int nsteps_done; /* STEP_COMPLETEs received */
    struct msg_step_complete steps_done[MAX_COMPLETES];
    struct fake_stepd stepds[MAX_STEPDS];
    int nstepds;
};

static void fake_answer (struct fake_stepd *fs)
{
    struct msg_rc rc = { .errnum = 0, .text = "" };
    char path[PATH_MAX + 32];
    FILE *fp;

    if (fs->mode == FAKE_ETIME) {
        rc.errnum = ETIME;
        rc.text = "unkillable step: pids 123 456";
    }
    /* the Epilog checks that this file exists when it runs */
    snprintf (path, sizeof (path), "%s/answered.%u.%u", fs->w->dir, fs->job,
              fs->step);
    if ((fp = fopen (path, "w")))
        fclose (fp);
    assert_int_equal (
        conn_send (fs->conn, MSG_RC, fs->matchtag, FRAME_F_RESPONSE, &rc), 0);
    if (fs->mode == FAKE_OLD) {
        conn_close_after_flush (fs->conn); /* the old stepd exits */
        fs->conn = NULL;
    }
}

static void fake_delay_cb (struct ev_loop *loop, ev_timer *t, int revents)
{
    fake_answer (t->data);
}

static void fake_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct fake_stepd *fs = arg;
    union msg_any m;

    assert_int_equal (proto_decode (f->type, f->body, f->body_len, &m, NULL),
                      0);
    if (f->flags & FRAME_F_RESPONSE) { /* to our STEP_COMPLETE */
        assert_int_equal (f->type, MSG_RC);
        fs->relay_errnum = m.rc.errnum;
        proto_clear (f->type, &m);
        return;
    }
    fs->matchtag = f->matchtag;
    if (f->type == MSG_STEPD_ATTACH) {
        assert_string_equal (m.stepd_attach.node, "node1");
        fs->attached = true;
        conn_send_rc (c, f->matchtag, 0, "%s", "");
    } else if (f->type == MSG_STEPD_TERMINATE) {
        fs->terminates++;
        snprintf (fs->reason, sizeof (fs->reason), "%s",
                  m.stepd_terminate.reason);
        if (fs->mode == FAKE_OLD)
            conn_send_rc (c, f->matchtag, EPROTO, "unknown message type %d",
                          f->type);
        else if (fs->delay > 0)
            ev_timer_start (fs->w->loop, &fs->delay_w);
        else
            fake_answer (fs);
    } else if (f->type == MSG_STEP_SIGNAL) {
        fs->signal = m.step_signal.signal;
        ev_timer_start (fs->w->loop, &fs->delay_w);
    }
    proto_clear (f->type, &m);
}

static void fake_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    ((struct fake_stepd *)arg)->conn = NULL;
}

static const struct conn_ops fake_ops = {
    .frame = fake_frame_cb,
    .closed = fake_closed_cb,
};

static void fake_accept_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct fake_stepd *fs = w->data;
    int fd = accept4 (w->fd, NULL, NULL, SOCK_CLOEXEC);

    assert_true (fd >= 0);
    fs->conn = conn_create_unix (loop, fd, &fake_ops, fs);
    assert_non_null (fs->conn);
}

static struct fake_stepd *fake_stepd (struct world *w, uint32_t job,
                                      uint32_t step, enum fake_mode mode,
                                      double delay)
{
    struct fake_stepd *fs = &w->stepds[w->nstepds++];

    memset (fs, 0, sizeof (*fs));
    fs->w = w;
    fs->job = job;
    fs->step = step;
    fs->mode = mode;
    fs->delay = delay;
    fs->relay_errnum = -1;
    snprintf (fs->path, sizeof (fs->path), "%s/stepd.%u.%u.sock", w->nd->spool,
              job, step);
    fs->listen_fd = net_listen_unix (fs->path, 0600, NULL);
    assert_true (fs->listen_fd >= 0);
    ev_io_init (&fs->accept_w, fake_accept_cb, fs->listen_fd, EV_READ);
    fs->accept_w.data = fs;
    ev_io_start (w->loop, &fs->accept_w);
    ev_timer_init (&fs->delay_w, fake_delay_cb, delay, 0.);
    fs->delay_w.data = fs;
    return fs;
}

/* A socket left by a stepd that crashed: nobody listens on it. */
static void stale_socket (struct world *w, uint32_t job, uint32_t step,
                          char *path, size_t len)
{
    int fd;

    snprintf (path, len, "%s/stepd.%u.%u.sock", w->nd->spool, job, step);
    fd = net_listen_unix (path, 0600, NULL);
    assert_true (fd >= 0);
    close (fd);
}

static void fakes_clear (struct world *w)
{
    for (int i = 0; i < w->nstepds; i++) {
        struct fake_stepd *fs = &w->stepds[i];
        ev_io_stop (w->loop, &fs->accept_w);
        ev_timer_stop (w->loop, &fs->delay_w);
        conn_destroy (fs->conn);
        close (fs->listen_fd);
        unlink (fs->path);
    }
    w->nstepds = 0;
}

/* ---- fake ctld ---------------------------------------------------------- */

static void ctld_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct world *w = arg;
    struct msg_epilog_complete *m = &w->completes[w->ncompletes];

    if (f->type == MSG_STEP_COMPLETE) {
        assert_true (w->nsteps_done < MAX_COMPLETES);
        assert_int_equal (proto_decode (f->type, f->body, f->body_len,
                                        &w->steps_done[w->nsteps_done], NULL),
                          0);
        w->nsteps_done++;
        conn_send_rc (c, f->matchtag, 0, "%s", "");
        return;
    }
    assert_int_equal (f->type, MSG_EPILOG_COMPLETE);
    assert_true (w->ncompletes < MAX_COMPLETES);
    assert_int_equal (proto_decode (f->type, f->body, f->body_len, m, NULL), 0);
    w->ncompletes++;
    if (w->ctld_refuse > 0) {
        w->ctld_refuse--;
        conn_send_rc (c, f->matchtag, EAGAIN, "%s", "not now");
    } else if (w->ctld_silent > 0) {
        w->ctld_silent--;
    } else {
        conn_send_rc (c, f->matchtag, 0, "%s", "");
    }
}

static void ctld_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct world *w = arg;

    for (int i = 0; i < MAX_CTLD_CONNS; i++)
        if (w->ctld_conns[i] == c)
            w->ctld_conns[i] = NULL;
}

static const struct conn_ops ctld_ops = {
    .frame = ctld_frame_cb,
    .closed = ctld_closed_cb,
};

static void ctld_accept_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct world *wd = w->data;
    struct conn_auth a = { .mode = CONN_AUTH_MUNGE, .pool = wd->pool };
    int fd = accept4 (w->fd, NULL, NULL, SOCK_CLOEXEC);
    int i;

    assert_true (fd >= 0);
    for (i = 0; i < MAX_CTLD_CONNS && wd->ctld_conns[i]; i++)
        ;
    assert_true (i < MAX_CTLD_CONNS);
    wd->ctld_conns[i] = conn_create (loop, fd, &a, &ctld_ops, wd);
    assert_non_null (wd->ctld_conns[i]);
}

static void ctld_up (struct world *w)
{
    w->ctld_fd = net_listen_tcp ("127.0.0.1", w->ctld_port, NULL, NULL);
    assert_true (w->ctld_fd >= 0);
    ev_io_init (&w->ctld_w, ctld_accept_cb, w->ctld_fd, EV_READ);
    w->ctld_w.data = w;
    ev_io_start (w->loop, &w->ctld_w);
}

static void ctld_down (struct world *w)
{
    if (w->ctld_fd < 0)
        return;
    ev_io_stop (w->loop, &w->ctld_w);
    close (w->ctld_fd);
    w->ctld_fd = -1;
    for (int i = 0; i < MAX_CTLD_CONNS; i++) {
        conn_destroy (w->ctld_conns[i]);
        w->ctld_conns[i] = NULL;
    }
}

/* ---- the world ---------------------------------------------------------- */

static const char epilog_script[] =
    "#!/bin/sh\n"
    "out=\"$OUTDIR/epilog.$SLURM_JOB_ID\"\n"
    "env > \"$out.env\"\n"
    "set -- $(cat /proc/$$/stat)\n"
    "echo \"$1 $5\" > \"$out.pgid\"\n"
    "readlink /proc/$$/fd/0 > \"$out.stdin\"\n"
    "if [ -e \"$OUTDIR/answered.$SLURM_JOB_ID.0\" ]; then echo after; "
    "else echo before; fi > \"$out.order\"\n"
    "echo ran >> \"$out.count\"\n"
    "case \"$EPILOG_MODE\" in\n"
    "fail) exit 3 ;;\n"
    "hang) sleep 30 ;;\n"
    "esac\n"
    "exit 0\n";

static uint16_t free_port (const char *addr)
{
    uint16_t port = 0;
    int fd = net_listen_tcp (addr, 0, &port, NULL);

    if (fd >= 0)
        close (fd);
    return port;
}

static int write_files (struct world *w)
{
    char path[PATH_MAX + 16];
    FILE *fp;

    snprintf (path, sizeof (path), "%s/epilog.sh", w->dir);
    if (!(fp = fopen (path, "w")))
        return -1;
    fputs (epilog_script, fp);
    if (fclose (fp) < 0 || chmod (path, 0755) < 0)
        return -1;
    if (!(fp = fopen (w->conf_path, "w")))
        return -1;
    fprintf (fp,
             "ClusterName=term\nControlAddr=127.0.0.1\nCtldPort=%u\n"
             "NodedPort=%u\nArborUser=%u\nNodedUser=%u\nKillWait=0\n"
             "UnkillableStepTimeout=1\nPrologEpilogTimeout=1\n"
             "StepdPath=/bin/false\n"
             "Epilog=%s\nSpoolDir=%s/spool/%%n\nMungeSocket=%s\n"
             "NodeName=node1 NodeAddr=127.0.1.1 CPUs=2\n",
             w->ctld_port, w->port, (unsigned)geteuid (), (unsigned)geteuid (),
             path, w->dir, w->munge.socket);
    return fclose (fp);
}

/* node1, assembled as the daemon assembles it; the test keeps its own
 * log level and shortens the EPILOG_COMPLETE resend interval. */
static int noded_up (struct world *w)
{
    arbor_error_t err;
    int level = log_get_level ();

    if (!(w->nd = noded_create (w->conf_path, "node1", 0, false, &err))) {
        fprintf (stderr, "%s\n", err.text);
        return -1;
    }
    log_set_level (level);
    w->nd->term_resend = 0.2;
    return 0;
}

static int setup (void **state)
{
    static struct world w;
    arbor_error_t err;

    memset (&w, 0, sizeof (w));
    w.ctld_fd = -1;
    if (getenv ("NODED_TEST_DEBUG"))
        log_open ("arbor-noded[test]", LOG_LVL_DEBUG2, NULL);
    else
        log_set_level (LOG_LVL_QUIET);
    if (munged_fixture_start (&w.munge) < 0) {
        no_munged = true;
        return -1;
    }
    snprintf (w.dir, sizeof (w.dir), "%s", w.munge.dir);
    snprintf (w.conf_path, sizeof (w.conf_path), "%s/arbor.conf", w.dir);
    w.port = free_port ("127.0.1.1");
    w.ctld_port = free_port ("127.0.0.1");
    w.loop = ev_default_loop (0);
    signal (SIGPIPE, SIG_IGN);
    *state = &w; /* teardown stops munged even if the rest fails */
    if (write_files (&w) < 0) {
        fprintf (stderr, "cannot write %s: %s\n", w.dir, strerror (errno));
        return -1;
    }
    if (!(w.conf = conf_load (w.conf_path, &err))) {
        fprintf (stderr, "%s\n", err.text);
        return -1;
    }
    if (noded_up (&w) < 0
        || !(w.pool =
                 auth_pool_create (w.loop, w.conf->munge_socket, 0, &err))) {
        fprintf (stderr, "cannot start node1: %s\n", strerror (errno));
        return -1;
    }
    return 0;
}

static int teardown (void **state)
{
    struct world *w = *state;

    if (!w)
        return 0;
    fakes_clear (w);
    ctld_down (w);
    noded_destroy (w->nd);
    auth_pool_destroy (w->pool); /* after the conns that use it */
    conf_destroy (w->conf);
    munged_fixture_stop (&w->munge);
    return 0;
}

/* Before each test: no fakes, a ctld that answers at once. */
static int reset (void **state)
{
    struct world *w = *state;

    fakes_clear (w);
    for (int i = 0; i < w->ncompletes; i++)
        proto_clear (MSG_EPILOG_COMPLETE, &w->completes[i]);
    w->ncompletes = 0;
    for (int i = 0; i < w->nsteps_done; i++)
        proto_clear (MSG_STEP_COMPLETE, &w->steps_done[i]);
    w->nsteps_done = 0;
    w->ctld_refuse = w->ctld_silent = 0;
    if (w->ctld_fd < 0)
        ctld_up (w);
    return 0;
}

/* ---- driving the loop --------------------------------------------------- */

static void client_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct world *w = arg;

    assert_int_equal (f->type, MSG_RC);
    assert_int_equal (proto_decode (MSG_RC, f->body, f->body_len, &w->rc, NULL),
                      0);
    w->answered = true;
    conn_destroy (c);
    ev_break (w->loop, EVBREAK_ONE);
}

static void client_closed_cb (struct conn *c, const arbor_error_t *err,
                              void *arg)
{
    ev_break (((struct world *)arg)->loop, EVBREAK_ONE);
}

static const struct conn_ops client_ops = {
    .frame = client_frame_cb,
    .closed = client_closed_cb,
};

/* Send one request to node1 as the "ctld" and run until it is answered.
 * node1 runs as we do: the session's token is for our uid. */
static void request (struct world *w, int type, const void *msg)
{
    struct conn_auth a = { .mode = CONN_AUTH_MUNGE,
                           .initiator = true,
                           .pool = w->pool,
                           .peer_uid = geteuid () };
    int fd = net_connect_tcp ("127.0.1.1", w->port, 1000, NULL);
    struct conn *c;

    assert_true (fd >= 0);
    c = conn_create (w->loop, fd, &a, &client_ops, w);
    assert_non_null (c);
    if (w->answered)
        proto_clear (MSG_RC, &w->rc);
    w->answered = false;
    assert_int_equal (conn_send (c, type, 7, 0, msg), 0);
    ev_run (w->loop, 0);
    assert_true (w->answered);
    assert_int_equal (w->rc.errnum, 0);
}

static void terminate (struct world *w, uint32_t job, const char *state,
                       const char *mode)
{
    char outdir[PATH_MAX + 16], emode[64];
    char *env[] = { outdir, emode, "PATH=/nonexistent", "FOO=bar" };
    struct msg_job_terminate m = {
        .job_id = job,
        .uid = 1234,
        .gid = 1235,
        .user = "alice",
        .state = (char *)state,
        .env = env,
        .env_count = 4,
    };

    snprintf (outdir, sizeof (outdir), "OUTDIR=%s", w->dir);
    snprintf (emode, sizeof (emode), "EPILOG_MODE=%s", mode);
    request (w, MSG_JOB_TERMINATE, &m);
}

struct waiter {
    struct world *w;
    bool (*done) (struct world *w, void *arg);
    void *arg;
    bool met;
};

static void poll_cb (struct ev_loop *loop, ev_timer *t, int revents)
{
    struct waiter *wt = t->data;

    if (wt->done (wt->w, wt->arg)) {
        wt->met = true;
        ev_break (loop, EVBREAK_ONE);
    }
}

static void deadline_cb (struct ev_loop *loop, ev_timer *t, int revents)
{
    ev_break (loop, EVBREAK_ONE);
}

/* Run the loop until done() or 'timeout' seconds. Returns done(). */
static bool run_until (struct world *w, bool (*done) (struct world *, void *),
                       void *arg, double timeout)
{
    struct waiter wt = { .w = w, .done = done, .arg = arg };
    ev_timer poll_w, deadline_w;

    ev_timer_init (&poll_w, poll_cb, 0.01, 0.01);
    poll_w.data = &wt;
    ev_timer_init (&deadline_w, deadline_cb, timeout, 0.);
    ev_timer_start (w->loop, &poll_w);
    ev_timer_start (w->loop, &deadline_w);
    ev_run (w->loop, 0);
    ev_timer_stop (w->loop, &poll_w);
    ev_timer_stop (w->loop, &deadline_w);
    return wt.met || done (w, arg);
}

static bool completes_reach (struct world *w, void *arg)
{
    return w->ncompletes >= *(int *)arg;
}

static void wait_completes (struct world *w, int n, double timeout)
{
    assert_true (run_until (w, completes_reach, &n, timeout));
}

static bool phase_done (struct world *w, void *arg)
{
    return term_job_phase (w->nd, *(uint32_t *)arg) == TERM_DONE;
}

static void wait_done (struct world *w, uint32_t job, double timeout)
{
    assert_true (run_until (w, phase_done, &job, timeout));
}

static bool group_gone (struct world *w, void *arg)
{
    return kill (-*(int *)arg, 0) < 0 && errno == ESRCH;
}

static bool never (struct world *w, void *arg)
{
    return false;
}

/* Read the first line of <dir>/epilog.<job>.<what> into buf. */
static char *epilog_file (struct world *w, uint32_t job, const char *what,
                          char *buf, size_t len)
{
    char path[PATH_MAX + 64];
    FILE *fp;

    snprintf (path, sizeof (path), "%s/epilog.%u.%s", w->dir, job, what);
    buf[0] = '\0';
    if (!(fp = fopen (path, "r")))
        return NULL;
    if (fgets (buf, (int)len, fp))
        buf[strcspn (buf, "\n")] = '\0';
    fclose (fp);
    return buf;
}

static int epilog_runs (struct world *w, uint32_t job)
{
    char path[PATH_MAX + 64], line[16];
    int n = 0;
    FILE *fp;

    snprintf (path, sizeof (path), "%s/epilog.%u.count", w->dir, job);
    if (!(fp = fopen (path, "r")))
        return 0;
    while (fgets (line, sizeof (line), fp))
        n++;
    fclose (fp);
    return n;
}

static bool env_file_has (struct world *w, uint32_t job, const char *entry)
{
    char path[PATH_MAX + 64], line[512];
    bool found = false;
    FILE *fp;

    snprintf (path, sizeof (path), "%s/epilog.%u.env", w->dir, job);
    if (!(fp = fopen (path, "r")))
        return false;
    while (!found && fgets (line, sizeof (line), fp)) {
        line[strcspn (line, "\n")] = '\0';
        found = !strcmp (line, entry);
    }
    fclose (fp);
    return found;
}

static void check_complete (struct world *w, int i, uint32_t job, int rc,
                            const char *drain)
{
    assert_true (i < w->ncompletes);
    assert_int_equal (w->completes[i].job_id, job);
    assert_string_equal (w->completes[i].node, "node1");
    assert_int_equal (w->completes[i].rc, rc);
    assert_string_equal (w->completes[i].drain_reason, drain);
}

/* ---- the tests ---------------------------------------------------------- */

/* Every stepd answers; the Epilog runs after them, as its own group, with
 * the job's environment and ours; one EPILOG_COMPLETE, no drain. */
static void test_job_clean (void **state)
{
    struct world *w = *state;
    struct fake_stepd *s0 = fake_stepd (w, 5, 0, FAKE_OK, 0.3);
    struct fake_stepd *s1 = fake_stepd (w, 5, 1, FAKE_OK, 0);
    struct fake_stepd *other = fake_stepd (w, 55, 0, FAKE_OK, 0);
    char stale[PATH_MAX + 32], buf[256];
    struct stat st;
    int pid, pgid;

    stale_socket (w, 5, 2, stale, sizeof (stale));
    terminate (w, 5, "CANCELLED", "ok");
    assert_true (revoke_check (w->nd->revoked, 5, 0, 7, time (NULL)));
    assert_false (revoke_check (w->nd->revoked, 55, 0, 0, time (NULL)));
    wait_completes (w, 1, 5.0);
    check_complete (w, 0, 5, 0, "");
    assert_int_equal (s0->terminates, 1);
    assert_int_equal (s1->terminates, 1);
    assert_int_equal (other->terminates, 0);
    assert_string_equal (s0->reason, "CANCELLED");
    assert_int_equal (stat (stale, &st), -1); /* removed: the stepd is gone */
    assert_string_equal (epilog_file (w, 5, "order", buf, sizeof (buf)),
                         "after");
    assert_string_equal (epilog_file (w, 5, "stdin", buf, sizeof (buf)),
                         "/dev/null");
    assert_non_null (epilog_file (w, 5, "pgid", buf, sizeof (buf)));
    assert_int_equal (sscanf (buf, "%d %d", &pid, &pgid), 2);
    assert_int_equal (pid, pgid);
    assert_int_not_equal (pgid, getpgrp ());
    assert_true (env_file_has (w, 5, "SLURMD_NODENAME=node1"));
    assert_true (env_file_has (w, 5, "SLURM_SCRIPT_CONTEXT=epilog_slurmd"));
    assert_true (env_file_has (w, 5, EPILOG_PATH));
    assert_false (env_file_has (w, 5, "PATH=/nonexistent"));
    assert_true (env_file_has (w, 5, "FOO=bar"));
    assert_true (env_file_has (w, 5, "SLURM_JOB_ID=5"));
    assert_true (env_file_has (w, 5, "SLURM_JOB_UID=1234"));
    assert_true (env_file_has (w, 5, "SLURM_JOB_USER=alice"));
    wait_done (w, 5, 2.0);
}

static void test_unkillable (void **state)
{
    struct world *w = *state;

    fake_stepd (w, 6, 0, FAKE_OK, 0);
    fake_stepd (w, 6, 1, FAKE_ETIME, 0.1);
    terminate (w, 6, "TIMEOUT", "ok");
    wait_completes (w, 1, 5.0);
    check_complete (w, 0, 6, 0, TERM_KILL_FAILED);
    assert_int_equal (epilog_runs (w, 6), 1); /* the Epilog still runs */
}

static void test_epilog_error (void **state)
{
    struct world *w = *state;

    terminate (w, 7, "COMPLETED", "fail"); /* no stepd at all */
    wait_completes (w, 1, 5.0);
    check_complete (w, 0, 7, 3, EPILOG_ERROR);
}

static void test_epilog_timeout (void **state)
{
    struct world *w = *state;
    char buf[64];
    int pid, pgid;

    terminate (w, 8, "COMPLETED", "hang"); /* PrologEpilogTimeout=1 */
    assert_false (run_until (w, completes_reach, &(int){ 1 }, 0.7));
    assert_int_equal (term_job_phase (w->nd, 8), TERM_EPILOG);
    wait_completes (w, 1, 3.0);
    check_complete (w, 0, 8, 128 + SIGKILL, EPILOG_TIMED_OUT);
    /* the whole group went, the sleep too */
    assert_non_null (epilog_file (w, 8, "pgid", buf, sizeof (buf)));
    assert_int_equal (sscanf (buf, "%d %d", &pid, &pgid), 2);
    /* (its last zombie may take a moment to be reaped by init) */
    assert_true (run_until (w, group_gone, &pgid, 2.0));
}

/* The ctld is down, then refuses, then does not answer: EPILOG_COMPLETE
 * is sent again until it answers RC 0, and then no more. */
static void test_resend (void **state)
{
    struct world *w = *state;

    ctld_down (w);
    w->ctld_refuse = 1;
    w->ctld_silent = 1;
    terminate (w, 9, "CANCELLED", "ok");
    run_until (w, never, NULL, 0.5); /* two or three refused connects */
    assert_int_equal (w->ncompletes, 0);
    assert_int_equal (term_job_phase (w->nd, 9), TERM_NOTIFYING);
    ctld_up (w);
    wait_done (w, 9, 3.0);
    assert_int_equal (w->ncompletes, 3); /* refused, ignored, acknowledged */
    for (int i = 0; i < 3; i++)
        check_complete (w, i, 9, 0, "");
    run_until (w, never, NULL, 0.5);
    assert_int_equal (w->ncompletes, 3);
    assert_int_equal (epilog_runs (w, 9), 1);
}

/* A repeated JOB_TERMINATE: ignored while in progress; once done, it
 * brings EPILOG_COMPLETE again without killing or running the Epilog. */
static void test_duplicates (void **state)
{
    struct world *w = *state;
    struct fake_stepd *s0 = fake_stepd (w, 10, 0, FAKE_OK, 0.4);

    terminate (w, 10, "CANCELLED", "ok");
    terminate (w, 10, "CANCELLED", "ok");
    assert_int_equal (term_job_phase (w->nd, 10), TERM_KILLING);
    wait_done (w, 10, 5.0);
    terminate (w, 10, "CANCELLED", "ok");
    wait_completes (w, 2, 3.0);
    wait_done (w, 10, 3.0);
    run_until (w, never, NULL, 0.5);
    assert_int_equal (w->ncompletes, 2);
    check_complete (w, 1, 10, 0, "");
    assert_int_equal (s0->terminates, 1);
    assert_int_equal (epilog_runs (w, 10), 1);
}

/* A stepd from before STEPD_TERMINATE: SIGKILL, then awaited until it
 * exits (closes). */
static void test_old_stepd (void **state)
{
    struct world *w = *state;
    struct fake_stepd *s0 = fake_stepd (w, 11, 0, FAKE_OLD, 0.3);

    terminate (w, 11, "CANCELLED", "ok");
    wait_completes (w, 1, 5.0);
    check_complete (w, 0, 11, 0, "");
    assert_int_equal (s0->signal, SIGKILL);
    assert_int_equal (epilog_runs (w, 11), 1);
    assert_string_equal (epilog_file (w, 11, "order", (char[16]){ 0 }, 16),
                         "after");
}

static struct stepd_rec *starting_stepd (struct world *w, uint32_t job,
                                         uint32_t step)
{
    struct stepd_rec *s = calloc (1, sizeof (*s));

    assert_non_null (s);
    s->nd = w->nd;
    s->job_id = job;
    s->step_id = step;
    s->state = STEPD_STARTING;
    ev_child_init (&s->child_w, NULL, 0, 0);
    stepd_table_insert (w->nd->stepds, s);
    return s;
}

/* Stepds of ours still starting: one gets STEPD_TERMINATE once it has
 * started, the other fails to start and counts as gone. */
static void test_starting (void **state)
{
    struct world *w = *state;
    struct stepd_rec *a = starting_stepd (w, 12, 0);
    struct stepd_rec *b = starting_stepd (w, 12, 1);
    struct fake_stepd *fs;

    terminate (w, 12, "CANCELLED", "ok");
    run_until (w, never, NULL, 0.3);
    assert_int_equal (term_job_phase (w->nd, 12), TERM_KILLING);
    stepd_term_gone (b);
    stepd_table_remove (w->nd->stepds, b);
    assert_int_equal (term_job_phase (w->nd, 12), TERM_KILLING);
    fs = fake_stepd (w, 12, 0, FAKE_OK, 0);
    a->state = STEPD_RUNNING;
    stepd_running (a);
    wait_completes (w, 1, 5.0);
    check_complete (w, 0, 12, 0, "");
    assert_int_equal (fs->terminates, 1);
    stepd_table_remove (w->nd->stepds, a);
}

/* STEP_TERMINATE: that step only, no Epilog, no EPILOG_COMPLETE. */
static void test_step_terminate (void **state)
{
    struct world *w = *state;
    struct fake_stepd *s0 = fake_stepd (w, 13, 0, FAKE_OK, 0);
    struct fake_stepd *s1 = fake_stepd (w, 13, 1, FAKE_OK, 0);
    struct msg_step_terminate m = { .job_id = 13,
                                    .step_id = 1,
                                    .reason = "TIMEOUT" };

    request (w, MSG_STEP_TERMINATE, &m);
    assert_string_equal (w->rc.text, "1 stepd terminating");
    run_until (w, never, NULL, 0.3);
    assert_int_equal (s1->terminates, 1);
    assert_string_equal (s1->reason, "TIMEOUT");
    assert_int_equal (s0->terminates, 0);
    assert_int_equal (w->ncompletes, 0);
    assert_int_equal (epilog_runs (w, 13), 0);
    assert_int_equal (term_job_phase (w->nd, 13), TERM_UNKNOWN);
    assert_true (revoke_check (w->nd->revoked, 13, 0, 1, time (NULL)));
    assert_false (revoke_check (w->nd->revoked, 13, 0, 0, time (NULL)));
}

static bool relay_answered_any (struct world *w, void *arg)
{
    return w->nsteps_done >= *(int *)arg;
}

static bool relay_answered (struct world *w, void *arg)
{
    struct fake_stepd **fs = arg;

    return fs[0]->relay_errnum >= 0 && fs[1]->relay_errnum >= 0
           && w->nsteps_done >= 1;
}

static bool both_attached (struct world *w, void *arg)
{
    struct fake_stepd **fs = arg;

    return fs[0]->attached && fs[1]->attached;
}

/* A noded restart finds two stepds (fakes with records) and attaches to
 * them; one reports STEP_COMPLETE and the ctld gets it from the noded,
 * the other sends one naming another step: refused, not relayed. */
static void test_relay (void **state)
{
    struct world *w = *state;
    struct stepd_info si = { .job_id = 21, .pid = getpid (), .uid = 1 };
    struct fake_stepd *fs[2];
    struct msg_step_complete good = {
        .job_id = 21, .node = "node1", .rc = 7, .oom = true
    };
    struct msg_step_complete bad = { .job_id = 22,
                                     .step_id = 1,
                                     .node = "node1" };

    fs[0] = fake_stepd (w, 21, 0, FAKE_OK, 0);
    fs[1] = fake_stepd (w, 22, 0, FAKE_OK, 0);
    assert_int_equal (stepd_info_write (w->nd, &si), 0);
    si.job_id = 22;
    assert_int_equal (stepd_info_write (w->nd, &si), 0);
    noded_destroy (w->nd); /* the noded restarts */
    assert_int_equal (noded_up (w), 0);
    assert_true (run_until (w, both_attached, fs, 5.0));
    assert_int_equal (conn_send (fs[0]->conn, MSG_STEP_COMPLETE, 5, 0, &good),
                      0);
    assert_int_equal (conn_send (fs[1]->conn, MSG_STEP_COMPLETE, 5, 0, &bad),
                      0);
    assert_true (run_until (w, relay_answered, fs, 5.0));
    assert_int_equal (fs[0]->relay_errnum, 0);
    assert_int_equal (fs[1]->relay_errnum, EPERM);
    run_until (w, never, NULL, 0.2); /* nothing else reaches the ctld */
    assert_int_equal (w->nsteps_done, 1);
    assert_int_equal (w->steps_done[0].job_id, 21);
    assert_int_equal (w->steps_done[0].step_id, 0);
    assert_string_equal (w->steps_done[0].node, "node1");
    assert_int_equal (w->steps_done[0].rc, 7);
    assert_true (w->steps_done[0].oom);
    stepd_info_remove (w->nd, 21, 0);
    stepd_info_remove (w->nd, 22, 0);
}

/* The ctld is down when the stepd reports: the noded answers the stepd
 * at once and delivers the report once the ctld is back. */
static void test_relay_ctld_down (void **state)
{
    struct world *w = *state;
    struct stepd_info si = { .job_id = 23, .pid = getpid (), .uid = 1 };
    struct fake_stepd *fs[2];
    struct msg_step_complete m = { .job_id = 23, .node = "node1", .rc = 0 };
    int one = 1;

    fs[0] = fs[1] = fake_stepd (w, 23, 0, FAKE_OK, 0);
    assert_int_equal (stepd_info_write (w->nd, &si), 0);
    noded_destroy (w->nd);
    assert_int_equal (noded_up (w), 0);
    assert_true (run_until (w, both_attached, fs, 5.0));
    ctld_down (w);
    assert_int_equal (conn_send (fs[0]->conn, MSG_STEP_COMPLETE, 5, 0, &m), 0);
    run_until (w, never, NULL, 0.5);
    assert_int_equal (fs[0]->relay_errnum, 0); /* taken: the stepd may go */
    assert_int_equal (w->nsteps_done, 0);
    conn_destroy (fs[0]->conn); /* the stepd exits */
    fs[0]->conn = NULL;
    ctld_up (w);
    /* the next attempt, RELAY_RESEND (5 s) after the first */
    assert_true (run_until (w, relay_answered_any, &one, 8.0));
    assert_int_equal (w->steps_done[0].job_id, 23);
    stepd_info_remove (w->nd, 23, 0);
}

/* The environment alone: message variables kept, ours override theirs;
 * KEY@NODE=value only on NODE, as KEY. */
static void test_epilog_env (void **state)
{
    char *in[] = { "SLURM_JOB_ID=99",
                   "SLURMD_NODENAME=evil",
                   "bogus",
                   "SLURM_SCRIPT_CONTEXT=x",
                   "A=1",
                   "SLURM_JOB_GPUS@n2=0",   /* another node's */
                   "SLURM_JOB_GPUS@n3=1,3", /* ours */
                   "SLURM_JOB_GPUS@n33=2" };
    struct msg_job_terminate m = { .job_id = 5,
                                   .uid = 1,
                                   .gid = 2,
                                   .user = "bob",
                                   .env = in,
                                   .env_count = 8 };
    const char *want[] = {
        "SLURM_JOB_ID=99",    "A=1",
        "SLURM_JOB_GPUS=1,3", "SLURM_JOB_UID=1",
        "SLURM_JOB_GID=2",    "SLURM_JOB_USER=bob",
        "SLURMD_NODENAME=n3", "SLURM_SCRIPT_CONTEXT=epilog_slurmd",
        EPILOG_PATH,          NULL
    };
    char **env = epilog_env (&m, "n3");
    int i;

    (void)state;
    assert_non_null (env);
    for (i = 0; want[i]; i++) {
        assert_non_null (env[i]);
        assert_string_equal (env[i], want[i]);
    }
    assert_null (env[i]);
    epilog_env_free (env);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_epilog_env),
        cmocka_unit_test_setup (test_job_clean, reset),
        cmocka_unit_test_setup (test_unkillable, reset),
        cmocka_unit_test_setup (test_epilog_error, reset),
        cmocka_unit_test_setup (test_epilog_timeout, reset),
        cmocka_unit_test_setup (test_resend, reset),
        cmocka_unit_test_setup (test_duplicates, reset),
        cmocka_unit_test_setup (test_old_stepd, reset),
        cmocka_unit_test_setup (test_starting, reset),
        cmocka_unit_test_setup (test_step_terminate, reset),
        cmocka_unit_test_setup (test_relay, reset),
        cmocka_unit_test_setup (test_relay_ctld_down, reset),
    };
    int failed = cmocka_run_group_tests (tests, setup, teardown);

    if (no_munged)
        return arbor_skip_all ("munged could not be started");
    return arbor_test_exit (failed);
}
