/* stepd_run_test.c - the real arbor-stepd, end to end, in one process.
 *
 * The test plays the noded (a socketpair on the stepd's fd 0 carrying
 * STEPD_INIT, then the stepd's STEP_COMPLETE, answered RC 0 as the noded
 * does once it takes the report over; or, as a noded started after the
 * stepd, a connection on the step socket named with STEPD_ATTACH), the
 * launcher (a TCP listener taking the I/O connection: CONN_HELLO keyed by
 * the step's I/O key, IO_HELLO, IO_DATA, TASK_EXIT) and the controller (a
 * TCP listener taking a munge-keyed CONN_HELLO and the STEP_COMPLETE a
 * stepd without a noded sends itself), with a private munged. It checks
 * where the report goes (noded, attached noded, or the controller when
 * the noded is gone or refuses it). It checks what issue 3 asks of
 * the stepd: a setsid() grandchild does not outlive the step and its
 * cgroup is removed; STEPD_TERMINATE on a task ignoring SIGTERM prints the
 * banner, SIGKILLs after KillWait and answers RC 0; a task over its
 * memory limit is reported oom in TASK_EXIT and STEP_COMPLETE; tasks are
 * bound to the step's cores; the stepd's environment and fds do not leak
 * into tasks. STEP_COMPLETE says how the worst task ended (exit code or
 * signal) and what the tasks used (CPU time, peak RSS and whose, from
 * wait4), zeros for the extern step. The cgroup cases need root and the
 * v1 freezer (memory for OOM); without them they are skipped with the
 * reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "skip.h"
#include "spawnmsg.h"

#include "auth.h"
#include "munged_fixture.h"
#include "net.h"
#include "proto.h"
#include "rpc.h"
#include "session.h"

#define FREEZER "/sys/fs/cgroup/freezer"
#define MEMORY "/sys/fs/cgroup/memory"

/* munged could not be started: every test is skipped (skip.h). */
static bool no_munged;

struct world {
    struct munged_fixture munge;
    struct auth *auth;
    char dir[64];
    char conf[128];
    char root[64]; /* CgroupRoot of this run */
    bool spawn;    /* stepds come from an arbor-stepd --spawner */
    /* The next run's step: tasks on n1 (0: one) and id (0: step 0;
     * STEP_ID_EXTERN: no task, no I/O connection). */
    uint32_t ntasks;
    uint32_t step_id;
};

/* The step's I/O key: long enough to key a session (session.h). */
#define IO_KEY "k3y-of-step-42.0-for-its-io"

/* What one stepd run produced. */
struct run {
    pid_t stepd;
    pid_t spawner;  /* its spawner (w->spawn), else 0 */
    int spawner_fd; /* our end of the spawner's socket */
    int io_lfd, ctld_lfd;
    struct rpc_chan noded, io, ctld, term, attach; /* fd -1 when closed */
    uint16_t io_port, ctld_port;
    int noded_errnum; /* the fake noded's answer to STEP_COMPLETE */
    const char *via;  /* where STEP_COMPLETE arrived: noded, attach, ctld */
    int reports;      /* STEP_COMPLETEs received, anywhere */
    char out[8192], err[8192]; /* task 0's stdout / stderr */
    int eofs;                  /* streams that reached EOF */
    uint32_t ntasks;           /* of the step here */
    int exits, exit_code, exit_signal;
    bool task_oom;
    bool complete, step_oom;
    int step_rc;
    struct msg_step_complete sc; /* the report's numbers (node NULL) */
    int term_errnum;             /* -1 until the RC arrived */
    char term_text[256];
    double term_secs;
    struct timespec term_sent;
};

static double since (const struct timespec *t0)
{
    struct timespec t;

    clock_gettime (CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static bool cgroup_ok (void)
{
    struct stat sb;

    return geteuid () == 0 && stat (FREEZER, &sb) == 0;
}

static bool dir_exists (const char *fmt, ...)
{
    char path[512];
    struct stat sb;
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (path, sizeof (path), fmt, ap);
    va_end (ap);
    return stat (path, &sb) == 0 && S_ISDIR (sb.st_mode);
}

static void write_conf (struct world *w, struct run *r, const char *extra)
{
    FILE *fp = fopen (w->conf, "w");
    long cpus = sysconf (_SC_NPROCESSORS_ONLN);

    assert_non_null (fp);
    fprintf (fp,
             "ControlAddr=127.0.0.1\nCtldPort=%u\nSpoolDir=%s/spool\n"
             "MungeSocket=%s\nNodedLogFile=%s/stepd.log\n"
             "NodedDebugLevel=debug\nKillWait=1\nUnkillableStepTimeout=5\n"
             "ArborUser=%u\nNodedUser=%u\n"
             "PluginDir=%s\nCgroupRoot=%s\nProctrackType=%s\n"
             "NodeName=n1 NodeAddr=127.0.0.1 CPUs=%ld\n"
             "PartitionName=p Nodes=n1 Default=YES\n%s",
             r->ctld_port, w->dir, w->munge.socket, w->dir,
             (unsigned)geteuid (), (unsigned)geteuid (), ARBOR_TEST_PLUGIN_DIR,
             w->root, cgroup_ok () ? "proctrack/cgroup" : "proctrack/pgid",
             cpus, extra ? extra : "");
    fclose (fp);
}

/* The next message from the spawner, within 5 s. */
static void spawner_next (struct run *r, struct spawnmsg *m)
{
    struct pollfd pf = { .fd = r->spawner_fd, .events = POLLIN };
    arbor_error_t err = { "" };
    int fd;

    assert_int_equal (poll (&pf, 1, 5000), 1);
    if (spawnmsg_recv (r->spawner_fd, m, &fd, &err) != 1)
        fail_msg ("spawner: %s", err.text[0] ? err.text : strerror (errno));
    assert_int_equal (fd, -1);
}

/* The stepd as the noded's spawner makes it: start a spawner (with this
 * run's configuration), wait for READY, SPAWN with 'fd', take FORKED. */
static void spawn_stepd (struct world *w, struct run *r, int fd)
{
    struct spawnmsg m = { .magic = SPAWNMSG_MAGIC,
                          .kind = SPAWNMSG_SPAWN,
                          .token = 7 };
    int sv[2];

    assert_int_equal (
        socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
    if ((r->spawner = fork ()) == 0) {
        dup2 (sv[1], 0);
        setenv ("STEPD_SECRET", "leaked", 1); /* must not reach the tasks */
        execl (ARBOR_TEST_STEPD, "arbor-stepd", "-f", w->conf, "-n", "n1",
               "--spawner", (char *)NULL);
        _exit (127);
    }
    close (sv[1]);
    r->spawner_fd = sv[0];
    spawner_next (r, &m);
    assert_int_equal (m.kind, SPAWNMSG_READY);
    m = (struct spawnmsg){ .magic = SPAWNMSG_MAGIC,
                           .kind = SPAWNMSG_SPAWN,
                           .token = 7 };
    assert_int_equal (spawnmsg_send (r->spawner_fd, &m, fd), 0);
    spawner_next (r, &m);
    assert_int_equal (m.kind, SPAWNMSG_FORKED);
    assert_int_equal (m.token, 7);
    r->stepd = m.pid;
}

static void start_stepd (struct world *w, struct run *r)
{
    int sp[2];

    assert_int_equal (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp),
                      0);
    if (w->spawn)
        spawn_stepd (w, r, sp[1]);
    else if ((r->stepd = fork ()) == 0) {
        dup2 (sp[1], 0);
        /* must not reach the tasks */
        setenv ("STEPD_SECRET", "leaked", 1);
        execl (ARBOR_TEST_STEPD, "arbor-stepd", "-f", w->conf, "-n", "n1",
               (char *)NULL);
        _exit (127);
    }
    close (sp[1]);
    rpc_chan_unix (&r->noded, sp[0]);
}

/* Read exactly len bytes within 5 s. */
static int read_full (int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len > 0) {
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        ssize_t n;
        if (poll (&pf, 1, 5000) <= 0)
            return -1;
        if ((n = read (fd, p, len)) <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The responder's half of the handshake (what conn.c does on a loop) on
 * the blocking, accepted 'fd': read CONN_HELLO, key the session from the
 * step's I/O key and the HELLO's nonce (io_key set: the launcher) or from
 * its munge token, which must be restricted to our uid (the controller),
 * check the HELLO's MAC; ch then reads the frames that follow with
 * rpc_recv(). */
static int accept_session (struct world *w, int fd, const char *io_key,
                           struct rpc_chan *ch, arbor_error_t *err)
{
    unsigned char hdr[PROTO_HEADER_SIZE], trailer[SESSION_TRAILER];
    struct frame_header h;
    struct msg_conn_hello m = { 0 };
    char *body = NULL, local[64];
    void *payload = NULL;
    size_t plen = 0;
    gid_t gid;
    int rc = -1;

    rpc_chan_unix (ch, fd);
    ch->tcp = true;
    if (read_full (fd, hdr, sizeof (hdr)) < 0
        || frame_header_unpack (hdr, &h, err) < 0)
        return errprintf (err, "no CONN_HELLO");
    if (h.type != MSG_CONN_HELLO || h.token_len != SESSION_TRAILER
        || !(body = malloc (h.body_len + 1)))
        return errprintf (err, "first frame is not a sealed CONN_HELLO");
    if (read_full (fd, trailer, sizeof (trailer)) < 0
        || read_full (fd, body, h.body_len) < 0
        || proto_decode (MSG_CONN_HELLO, body, h.body_len, &m, err) < 0) {
        errprintf (err, "CONN_HELLO unreadable");
        goto done;
    }
    if (io_key) {
        if (m.nonce_len != SESSION_NONCE_SIZE
            || session_from_step_key (&ch->sess, false, io_key, m.job_id,
                                      m.step_id, (unsigned char *)m.nonce)
                   < 0) {
            errprintf (err, "CONN_HELLO: no nonce or no usable key");
            goto done;
        }
    } else {
        if (!m.munge
            || auth_decode (w->auth, m.munge, strlen (m.munge), &payload, &plen,
                            &ch->peer_uid, &gid, err)
                   < 0)
            goto done;
        if (auth_last_restriction (w->auth) != geteuid ()) {
            errprintf (err, "CONN_HELLO: token not restricted to uid %u",
                       (unsigned)geteuid ());
            goto done;
        }
        net_local_name (fd, local, sizeof (local));
        if (session_from_payload (&ch->sess, payload, plen, local, err) < 0)
            goto done;
    }
    if (session_open (&ch->sess, hdr, trailer, body, h.body_len, err) < 0)
        goto done;
    rc = 0;
done:
    proto_clear (MSG_CONN_HELLO, &m);
    free (payload);
    free (body);
    return rc;
}

/* Start a stepd running argv as this test's uid; wait for STEPD_LAUNCHED
 * and the I/O connection's IO_HELLO. */
static void run_start (struct world *w, struct run *r, char **argv,
                       const char *extra, uint64_t mem_mb, const char *cores)
{
    char *env[] = { "PATH=/usr/bin:/bin", "FROM_LAUNCHER=yes" };
    bool ext = w->step_id == STEP_ID_EXTERN;
    uint32_t ntasks = ext ? 0 : w->ntasks ? w->ntasks : 1;
    uint32_t tasks[1] = { ntasks }, cpus[1] = { 1 };
    struct msg_stepd_init in = {
        .job_id = 42,
        .step_id = w->step_id,
        .uid = getuid (),
        .gid = getgid (),
        .user = "root",
        .home = "/home/from-the-credential",
        .io_key = IO_KEY,
        .node_id = 0,
        .argv = argv,
        .env = env,
        .env_count = 2,
        .cwd = "/",
        .io_host = "127.0.0.1",
        .step_nodelist = "n1",
        .tasks = tasks,
        .tasks_count = 1,
        .cpus = cpus,
        .cpus_count = 1,
        .job_nodelist = "n1",
        .cpus_per_task = 1,
        .stdin_task = -2,
        .job_name = "t",
        .mem_mb = mem_mb,
        .cores = (char *)(cores ? cores : ""),
    };
    arbor_error_t err = { "" };
    union msg_any m;
    int type;
    uid_t uid;

    memset (r, 0, sizeof (*r));
    r->ntasks = tasks[0];
    r->term_errnum = -1;
    r->noded.fd = r->io.fd = r->ctld.fd = r->term.fd = r->attach.fd = -1;
    r->via = "";
    while (argv[in.argv_count])
        in.argv_count++;
    r->io_lfd = net_listen_tcp ("127.0.0.1", 0, &r->io_port, &err);
    r->ctld_lfd = net_listen_tcp ("127.0.0.1", 0, &r->ctld_port, &err);
    assert_true (r->io_lfd >= 0 && r->ctld_lfd >= 0);
    in.io_port = r->io_port;
    write_conf (w, r, extra);
    start_stepd (w, r);
    if (rpc_send (&r->noded, MSG_STEPD_INIT, 0, &in, &err) < 0
        || rpc_recv (&r->noded, 10000, &type, &m, &uid, &err) < 0)
        fail_msg ("stepd: %s", err.text);
    assert_int_equal (type, MSG_STEPD_LAUNCHED);
    if (m.stepd_launched.errnum != 0)
        fail_msg ("launch: %s", m.stepd_launched.text);
    proto_clear (type, &m);
    if (ext)
        return; /* no task, no launcher */
    int fd = accept (r->io_lfd, NULL, NULL);
    assert_true (fd >= 0);
    if (accept_session (w, fd, IO_KEY, &r->io, &err) < 0
        || rpc_recv (&r->io, 5000, &type, &m, &uid, &err) < 0)
        fail_msg ("I/O: %s", err.text);
    assert_int_equal (type, MSG_IO_HELLO);
    proto_clear (type, &m);
}

static void on_io (struct world *w, struct run *r, int type, union msg_any *m)
{
    if (type == MSG_IO_DATA) {
        char *buf = m->io_data.stream == 1 ? r->out : r->err;
        size_t len = strlen (buf);
        if (m->io_data.data_len == 0)
            r->eofs++;
        else if (len + m->io_data.data_len < sizeof (r->out))
            memcpy (buf + len, m->io_data.data, m->io_data.data_len);
    } else if (type == MSG_TASK_EXIT) {
        r->exits += (int)m->task_exit.tasks_count;
        r->exit_code = m->task_exit.exit_codes[0];
        r->exit_signal = m->task_exit.signals[0];
        r->task_oom = m->task_exit.oom;
    }
}

/* Answer a request on ch with RC errnum: a response frame, sealed with the
 * channel's session over TCP, bare on a unix socket (rpc_send only sends
 * requests). */
static void send_rc (struct rpc_chan *ch, uint32_t matchtag, int errnum)
{
    struct msg_rc rc = { .errnum = errnum, .text = errnum ? "no" : "" };
    unsigned char hdr[PROTO_HEADER_SIZE], trailer[SESSION_TRAILER];
    struct session *sess = ch->tcp ? &ch->sess : NULL;
    size_t tlen = sess ? sizeof (trailer) : 0;
    char *body;
    size_t len;

    assert_int_equal (proto_encode (MSG_RC, &rc, &body, &len), 0);
    session_frame_head (sess, MSG_RC, matchtag, FRAME_F_RESPONSE, body, len,
                        hdr, trailer);
    assert_int_equal (write (ch->fd, hdr, sizeof (hdr)), (ssize_t)sizeof (hdr));
    if (tlen)
        assert_int_equal (write (ch->fd, trailer, tlen), (ssize_t)tlen);
    assert_int_equal (write (ch->fd, body, len), (ssize_t)len);
    free (body);
}

static void on_complete (struct run *r, const char *via, union msg_any *m)
{
    r->complete = true;
    r->via = via;
    r->reports++;
    r->step_oom = m->step_complete.oom;
    r->step_rc = m->step_complete.rc;
    r->sc = m->step_complete;
    r->sc.node = NULL; /* freed with m */
    assert_int_equal (m->step_complete.job_id, 42);
    assert_string_equal (m->step_complete.node, "n1");
}

/* The noded's side (fd 0 or the attached connection). */
static void on_noded (struct run *r, struct rpc_chan *ch)
{
    arbor_error_t err = { "" };
    uint32_t matchtag;
    uint16_t flags;
    union msg_any m;
    int type;
    uid_t uid;

    if (rpc_recv_tagged (ch, 5000, &type, &matchtag, &flags, &m, &uid, &err)
        < 0) {
        rpc_close (ch); /* the stepd exited */
        return;
    }
    if (type == MSG_STEP_COMPLETE && !(flags & FRAME_F_RESPONSE)) {
        if (r->noded_errnum == 0)
            on_complete (r, ch == &r->noded ? "noded" : "attach", &m);
        send_rc (ch, matchtag, r->noded_errnum);
    }
    proto_clear (type, &m);
}

/* Serve one readable fd. */
static void run_serve (struct world *w, struct run *r, int fd)
{
    arbor_error_t err = { "" };
    struct rpc_chan *ch = fd == r->io.fd     ? &r->io
                          : fd == r->ctld.fd ? &r->ctld
                                             : &r->term;
    uint32_t matchtag;
    uint16_t flags;
    union msg_any m;
    int type;
    uid_t uid;

    if (fd == r->ctld_lfd) {
        int cfd = accept (r->ctld_lfd, NULL, NULL);
        if (cfd >= 0 && accept_session (w, cfd, NULL, &r->ctld, &err) < 0) {
            fprintf (stderr, "# ctld: %s\n", err.text);
            rpc_close (&r->ctld);
        }
        return;
    }
    if (fd == r->noded.fd || fd == r->attach.fd) {
        on_noded (r, fd == r->noded.fd ? &r->noded : &r->attach);
        return;
    }
    if (rpc_recv_tagged (ch, 5000, &type, &matchtag, &flags, &m, &uid, &err)
        < 0) {
        rpc_close (ch);
        return;
    }
    if (ch == &r->io)
        on_io (w, r, type, &m);
    else if (ch == &r->term && type == MSG_RC) {
        r->term_errnum = m.rc.errnum;
        snprintf (r->term_text, sizeof (r->term_text), "%s",
                  m.rc.text ? m.rc.text : "");
        r->term_secs = since (&r->term_sent);
    } else if (ch == &r->ctld && type == MSG_STEP_COMPLETE) {
        on_complete (r, "ctld", &m);
        /* as the controller does; its request then completes at once */
        send_rc (&r->ctld, matchtag, 0);
        rpc_close (&r->ctld);
    }
    proto_clear (type, &m);
}

/* Serve until 'until' holds (NULL: the stepd completed), at most 'secs'.
 * The launcher's side of the I/O connection is closed once every exit
 * and EOF arrived, as arbor run does. */
static bool run_loop (struct world *w, struct run *r,
                      bool (*until) (struct run *), double secs)
{
    struct timespec t0;

    clock_gettime (CLOCK_MONOTONIC, &t0);
    while (since (&t0) < secs) {
        struct pollfd p[6] = {
            { r->io.fd, POLLIN, 0 },    { r->ctld_lfd, POLLIN, 0 },
            { r->ctld.fd, POLLIN, 0 },  { r->term.fd, POLLIN, 0 },
            { r->noded.fd, POLLIN, 0 }, { r->attach.fd, POLLIN, 0 }
        };
        if (until ? until (r) : r->complete)
            return true;
        if (r->io.fd >= 0 && r->exits == (int)r->ntasks
            && r->eofs == 2 * (int)r->ntasks)
            rpc_close (&r->io);
        if (poll (p, 6, 100) <= 0)
            continue;
        for (int i = 0; i < 6; i++)
            if (p[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP)))
                run_serve (w, r, p[i].fd);
    }
    return false;
}

/* A spawned stepd's exit status, from its spawner's EXITED; then the
 * spawner, told EOF, must exit 0 (its stepds outlive it). */
static int spawned_status (struct run *r)
{
    struct spawnmsg m;
    int status = -1;

    spawner_next (r, &m);
    assert_int_equal (m.kind, SPAWNMSG_EXITED);
    assert_int_equal (m.pid, r->stepd);
    close (r->spawner_fd);
    assert_int_equal (waitpid (r->spawner, &status, 0), r->spawner);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    return m.value;
}

/* Wait for the stepd to exit 0 and close everything. */
static void run_end (struct run *r)
{
    int status = -1;

    if (r->spawner)
        status = spawned_status (r);
    for (int i = 0;
         !r->spawner && i < 100 && waitpid (r->stepd, &status, WNOHANG) == 0;
         i++)
        usleep (50000);
    if (status == -1) {
        kill (r->stepd, SIGKILL);
        waitpid (r->stepd, &status, 0);
    }
    int fds[] = { r->io_lfd, r->ctld_lfd };
    for (size_t i = 0; i < sizeof (fds) / sizeof (fds[0]); i++)
        if (fds[i] >= 0)
            close (fds[i]);
    rpc_close (&r->noded);
    rpc_close (&r->io);
    rpc_close (&r->ctld);
    rpc_close (&r->term);
    rpc_close (&r->attach);
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
}

static bool pid_gone (pid_t pid)
{
    char path[64], buf[256];
    FILE *fp;
    bool gone = true;

    snprintf (path, sizeof (path), "/proc/%ld/stat", (long)pid);
    if ((fp = fopen (path, "r"))) {
        char *p = fgets (buf, sizeof (buf), fp) ? strrchr (buf, ')') : NULL;
        gone = p && p[2] == 'Z';
        fclose (fp);
    }
    return gone;
}

static void test_leftover_killed (void **state)
{
    struct world *w = *state;
    char *argv[] = { "sh", "-c", "setsid sleep 300 & echo $!; echo done",
                     NULL };
    struct run r;
    long pid;

    if (!cgroup_ok ())
        ARBOR_SKIP ("needs root and a writable cgroup tree");
    run_start (w, &r, argv, NULL, 0, NULL);
    assert_true (dir_exists ("%s/%s/node_n1/uid_%u/job_42/step_0", FREEZER,
                             w->root, getuid ()));
    assert_true (run_loop (w, &r, NULL, 15));
    run_end (&r);
    assert_int_equal (sscanf (r.out, "%ld", &pid), 1);
    assert_non_null (strstr (r.out, "done"));
    assert_int_equal (r.exit_code, 0);
    assert_int_equal (r.step_rc, 0);
    assert_false (r.step_oom);
    assert_true (pid_gone ((pid_t)pid));
    /* The job's level went with the step; the user's level stays. */
    assert_false (dir_exists ("%s/%s/node_n1/uid_%u/job_42", FREEZER, w->root,
                              getuid ()));
    assert_true (
        dir_exists ("%s/%s/node_n1/uid_%u", FREEZER, w->root, getuid ()));
}

static bool got_ready (struct run *r)
{
    return strstr (r->out, "ready") != NULL;
}

static bool got_answer (struct run *r)
{
    return r->term_errnum >= 0;
}

/* STEPD_TERMINATE {reason} on a new step socket connection (r->term), as
 * the noded sends it (step 'step'). */
static void send_terminate (struct world *w, struct run *r, uint32_t step,
                            const char *reason)
{
    struct msg_stepd_terminate t = { .reason = (char *)reason };
    arbor_error_t err = { "" };
    char sock[256];
    int fd;

    snprintf (sock, sizeof (sock), "%s/spool/stepd.42.%u.sock", w->dir, step);
    if ((fd = net_connect_unix (sock, &err)) < 0)
        fail_msg ("%s", err.text);
    rpc_chan_unix (&r->term, fd);
    if (rpc_send (&r->term, MSG_STEPD_TERMINATE, 9, &t, &err) < 0)
        fail_msg ("%s", err.text);
    clock_gettime (CLOCK_MONOTONIC, &r->term_sent);
}

static void test_terminate (void **state)
{
    struct world *w = *state;
    char *argv[] = { "sh", "-c", "trap '' TERM; echo ready; sleep 300", NULL };
    struct run r;

    run_start (w, &r, argv, NULL, 0, NULL);
    assert_true (run_loop (w, &r, got_ready, 10));
    send_terminate (w, &r, 0, "CANCELLED");
    assert_true (run_loop (w, &r, got_answer, 10));
    assert_int_equal (r.term_errnum, 0);
    /* SIGTERM was ignored: the answer waited for KillWait=1 and SIGKILL */
    assert_true (r.term_secs >= 1.0 && r.term_secs < 4.0);
    assert_true (run_loop (w, &r, NULL, 10));
    run_end (&r);
    assert_non_null (strstr (r.err, "arbor-stepd: error: *** STEP 42.0 ON "
                                    "n1 CANCELLED AT "));
    assert_int_equal (r.exit_signal, SIGKILL);
    assert_false (r.task_oom);
}

static void test_oom (void **state)
{
    struct world *w = *state;
    char *argv[] = { "python3", "-c", "x = bytearray(96 << 20)", NULL };
    struct run r;

    if (!cgroup_ok () || !dir_exists (MEMORY)
        || access ("/usr/bin/python3", X_OK) != 0) {
        ARBOR_SKIP ("needs root, the v1 memory controller and python3");
    }
    run_start (w, &r, argv, NULL, 16, NULL);
    assert_true (run_loop (w, &r, NULL, 20));
    run_end (&r);
    assert_int_equal (r.exit_signal, SIGKILL);
    assert_true (r.task_oom);
    assert_true (r.step_oom);
    assert_int_equal (r.step_rc, 128 + SIGKILL);
    assert_false (
        dir_exists ("%s/%s/node_n1/uid_%u/job_42", MEMORY, w->root, getuid ()));
}

static void test_affinity_identity (void **state)
{
    struct world *w = *state;
    char *argv[] = { "sh", "-c",
                     "grep Cpus_allowed_list: /proc/self/status;"
                     "echo env=${STEPD_SECRET:-none},$FROM_LAUNCHER;"
                     "echo home=$HOME;"
                     "for f in 3 4 5 6 7 8 9 10; do test -e /proc/$$/fd/$f"
                     " && echo fd$f; done;"
                     "grep -E 'Sig(Blk|Ign)' /proc/self/status",
                     NULL };
    char want[64];
    struct run r;
    int core = sysconf (_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;

    snprintf (want, sizeof (want), "%d", core);
    run_start (w, &r, argv, "TaskPlugin=task/affinity\n", 0, want);
    assert_true (run_loop (w, &r, NULL, 10));
    run_end (&r);
    snprintf (want, sizeof (want), "Cpus_allowed_list:\t%d\n", core);
    assert_non_null (strstr (r.out, want));
    assert_non_null (strstr (r.out, "env=none,yes\n"));
    assert_non_null (strstr (r.out, "home=/home/from-the-credential\n"));
    assert_null (strstr (r.out, "fd"));
    if (!strstr (r.out, "SigBlk:\t0000000000000000")
        || !strstr (r.out, "SigIgn:\t0000000000000000"))
        fail_msg ("task output: %s", r.out);
}

/* The same through a spawner: a forked stepd starts as clean as an
 * exec'd one (no fd, no signal mask, no environment of the spawner's). */
static void test_spawned_identity (void **state)
{
    struct world *w = *state;

    w->spawn = true;
    test_affinity_identity (state);
    w->spawn = false;
}

/* A spawned stepd is its own session's leader, and its command line is an
 * exec'd stepd's (no --spawner). */
static void test_spawned_stepd (void **state)
{
    struct world *w = *state;
    char *argv[] = { "sh", "-c",
                     "tr '\\0' ' ' < /proc/$PPID/cmdline; echo;"
                     "set -- $(cut -d')' -f2 /proc/$PPID/stat);"
                     "echo \"sid=$4 stepd=$PPID\"",
                     NULL };
    char want[64];
    struct run r;

    w->spawn = true;
    run_start (w, &r, argv, NULL, 0, NULL);
    w->spawn = false;
    assert_true (run_loop (w, &r, NULL, 10));
    run_end (&r);
    assert_int_equal (r.exit_code, 0);
    assert_null (strstr (r.out, "--spawner"));
    assert_non_null (strstr (r.out, "-n n1"));
    snprintf (want, sizeof (want), "sid=%d stepd=%d\n", (int)r.stepd,
              (int)r.stepd);
    if (!strstr (r.out, want))
        fail_msg ("task output: %s", r.out);
}

/* The report goes to the noded over fd 0, answered there. */
static void test_report_noded (void **state)
{
    struct world *w = *state;
    char *argv[] = { "sh", "-c", "exit 3", NULL };
    struct run r;

    run_start (w, &r, argv, NULL, 0, NULL);
    assert_true (run_loop (w, &r, NULL, 10));
    run_end (&r);
    assert_string_equal (r.via, "noded");
    assert_int_equal (r.reports, 1);
    assert_int_equal (r.step_rc, 3);
    /* how it ended: exit status 3, no signal; one task measured */
    assert_int_equal (r.sc.exit_code, 3);
    assert_int_equal (r.sc.signal, 0);
    assert_true (r.sc.usage);
    assert_int_equal (r.sc.ntasks, 1);
    assert_int_equal (r.sc.max_rss_task, 0);
    assert_true (r.sc.max_rss_kb > 0);
    assert_int_equal (r.sc.sum_rss_kb, r.sc.max_rss_kb);
}

/* Two tasks: rank 0 exits 3, rank 1 is killed by SIGKILL. The highest rc
 * is rank 1's (128 + 9): STEP_COMPLETE says signal 9, exit code 0. */
static void test_report_killed (void **state)
{
    struct world *w = *state;
    char *argv[] = { "sh", "-c",
                     "if [ \"$SLURM_PROCID\" = 1 ]; then kill -9 $$; fi; "
                     "exit 3",
                     NULL };
    struct run r;

    w->ntasks = 2;
    run_start (w, &r, argv, NULL, 0, NULL);
    w->ntasks = 0;
    assert_true (run_loop (w, &r, NULL, 10));
    run_end (&r);
    assert_int_equal (r.exits, 2);
    assert_int_equal (r.step_rc, 128 + SIGKILL);
    assert_int_equal (r.sc.exit_code, 0);
    assert_int_equal (r.sc.signal, SIGKILL);
    assert_int_equal (r.sc.ntasks, 2);
}

/* Two python3 tasks: rank 0 burns CPU, rank 1 holds 50 MB of bytes.
 * STEP_COMPLETE: usage measured for both, CPU time, rank 1 the largest
 * peak RSS, which is 50 MB above rank 0's (the interpreter's baseline:
 * the sum less the largest) within 10%. */
static void test_usage (void **state)
{
    struct world *w = *state;
    char *argv[] = { "python3", "-c",
                     "import os\n"
                     "if os.environ['SLURM_PROCID'] == '1':\n"
                     "    b = b'x' * (50 << 20)\n"
                     "else:\n"
                     "    i = 0\n"
                     "    while i < 2000000: i += 1\n",
                     NULL };
    uint64_t base, want;
    struct run r;

    if (access ("/usr/bin/python3", X_OK) != 0)
        ARBOR_SKIP ("needs python3");
    w->ntasks = 2;
    run_start (w, &r, argv, NULL, 0, NULL);
    w->ntasks = 0;
    assert_true (run_loop (w, &r, NULL, 30));
    run_end (&r);
    assert_int_equal (r.step_rc, 0);
    assert_int_equal (r.sc.exit_code, 0);
    assert_int_equal (r.sc.signal, 0);
    assert_true (r.sc.usage);
    assert_int_equal (r.sc.ntasks, 2);
    assert_true (r.sc.user_usec >= 50000); /* 2M iterations: 0.1 s or so */
    assert_int_equal (r.sc.max_rss_task, 1);
    assert_true (r.sc.max_rss_kb >= 50 << 10);
    base = r.sc.sum_rss_kb - r.sc.max_rss_kb; /* rank 0's peak */
    want = base + (50 << 10);
    if (r.sc.max_rss_kb * 10 < want * 9 || r.sc.max_rss_kb * 10 > want * 11)
        fail_msg ("peak RSS %llu KB, expected %llu KB (baseline %llu KB)",
                  (unsigned long long)r.sc.max_rss_kb, (unsigned long long)want,
                  (unsigned long long)base);
}

/* The extern step has no task: usage is reported, every measure 0. */
static void test_extern_usage (void **state)
{
    struct world *w = *state;
    char *argv[] = { "sleep", "300", NULL }; /* never run */
    struct run r;

    w->step_id = STEP_ID_EXTERN;
    run_start (w, &r, argv, NULL, 0, NULL);
    w->step_id = 0;
    send_terminate (w, &r, STEP_ID_EXTERN, "COMPLETED");
    assert_true (run_loop (w, &r, NULL, 10));
    run_end (&r);
    assert_int_equal (r.term_errnum, 0);
    assert_int_equal (r.step_rc, 0);
    assert_true (r.sc.usage);
    assert_int_equal (r.sc.ntasks, 0);
    assert_int_equal (r.sc.exit_code, 0);
    assert_int_equal (r.sc.signal, 0);
    assert_int_equal (r.sc.user_usec + r.sc.sys_usec, 0);
    assert_int_equal (r.sc.max_rss_kb + r.sc.sum_rss_kb, 0);
}

/* No noded (fd 0 closed): the stepd tells the controller itself. */
static void test_report_no_noded (void **state)
{
    struct world *w = *state;
    char *argv[] = { "sh", "-c", "sleep 0.5", NULL };
    struct run r;

    run_start (w, &r, argv, NULL, 0, NULL);
    rpc_close (&r.noded);
    assert_true (run_loop (w, &r, NULL, 10));
    run_end (&r);
    assert_string_equal (r.via, "ctld");
}

/* The noded refuses the report: the controller gets it from the stepd. */
static void test_report_refused (void **state)
{
    struct world *w = *state;
    char *argv[] = { "true", NULL };
    struct run r;

    run_start (w, &r, argv, NULL, 0, NULL);
    r.noded_errnum = EPERM;
    assert_true (run_loop (w, &r, NULL, 10));
    run_end (&r);
    assert_string_equal (r.via, "ctld");
    assert_int_equal (r.reports, 1);
}

/* Send STEPD_ATTACH {node} on a new step socket connection, opened on ch;
 * its RC. */
static int attach (struct world *w, const char *node, struct rpc_chan *ch)
{
    struct msg_stepd_attach a = { .node = (char *)node };
    arbor_error_t err = { "" };
    char sock[256];
    union msg_any m;
    int fd, type, errnum;
    uid_t uid;

    snprintf (sock, sizeof (sock), "%s/spool/stepd.42.0.sock", w->dir);
    if ((fd = net_connect_unix (sock, &err)) < 0)
        fail_msg ("attach: %s", err.text);
    rpc_chan_unix (ch, fd);
    if (rpc_send (ch, MSG_STEPD_ATTACH, 3, &a, &err) < 0
        || rpc_recv (ch, 5000, &type, &m, &uid, &err) < 0)
        fail_msg ("attach: %s", err.text);
    assert_int_equal (type, MSG_RC);
    errnum = m.rc.errnum;
    proto_clear (type, &m);
    return errnum;
}

/* A noded started after the stepd (fd 0 is gone) attaches through the
 * step socket: the report goes there; a noded of another node may not. */
static void test_report_attached (void **state)
{
    struct world *w = *state;
    char *argv[] = { "sh", "-c", "echo ready; sleep 1", NULL };
    struct rpc_chan other;
    struct run r;

    run_start (w, &r, argv, NULL, 0, NULL);
    assert_true (run_loop (w, &r, got_ready, 10));
    rpc_close (&r.noded); /* the noded that spawned it stops */
    assert_int_equal (attach (w, "n2", &other), EINVAL);
    rpc_close (&other);
    assert_int_equal (attach (w, "n1", &r.attach), 0);
    assert_true (run_loop (w, &r, NULL, 10));
    run_end (&r);
    assert_string_equal (r.via, "attach");
    assert_int_equal (r.reports, 1);
}

static int group_setup (void **state)
{
    static struct world w;

    if (munged_fixture_start (&w.munge) < 0) {
        no_munged = true;
        return -1;
    }
    if (!(w.auth = auth_create (w.munge.socket, NULL)))
        return -1;
    snprintf (w.dir, sizeof (w.dir), "/tmp/stepd-run-XXXXXX");
    if (!mkdtemp (w.dir))
        return -1;
    chmod (w.dir, 0755);
    snprintf (w.conf, sizeof (w.conf), "%s/arbor.conf", w.dir);
    snprintf (w.root, sizeof (w.root), "arbor-stepdtest-%d", (int)getpid ());
    *state = &w;
    return 0;
}

static int group_teardown (void **state)
{
    struct world *w = *state;
    char cmd[256];

    if (getenv ("STEPD_TEST_KEEP"))
        fprintf (stderr, "# kept %s\n", w->dir);
    else {
        snprintf (cmd, sizeof (cmd), "rm -rf '%s'", w->dir);
        if (system (cmd) != 0)
            fprintf (stderr, "# could not remove %s\n", w->dir);
    }
    for (int i = 0; i < 2; i++) { /* the user's and node's levels stay */
        const char *mnt = i ? MEMORY : FREEZER;
        snprintf (cmd, sizeof (cmd), "%s/%s/node_n1/uid_%u", mnt, w->root,
                  (unsigned)getuid ());
        rmdir (cmd);
        snprintf (cmd, sizeof (cmd), "%s/%s/node_n1", mnt, w->root);
        rmdir (cmd);
        snprintf (cmd, sizeof (cmd), "%s/%s", mnt, w->root);
        rmdir (cmd);
    }
    auth_destroy (w->auth);
    munged_fixture_stop (&w->munge);
    return 0;
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_leftover_killed),
        cmocka_unit_test (test_terminate),
        cmocka_unit_test (test_oom),
        cmocka_unit_test (test_affinity_identity),
        cmocka_unit_test (test_spawned_identity),
        cmocka_unit_test (test_spawned_stepd),
        cmocka_unit_test (test_report_noded),
        cmocka_unit_test (test_report_killed),
        cmocka_unit_test (test_usage),
        cmocka_unit_test (test_extern_usage),
        cmocka_unit_test (test_report_no_noded),
        cmocka_unit_test (test_report_refused),
        cmocka_unit_test (test_report_attached),
    };

    signal (SIGPIPE, SIG_IGN);
    int failed = cmocka_run_group_tests (tests, group_setup, group_teardown);

    if (no_munged)
        return arbor_skip_all ("munged could not be started");
    return arbor_test_exit (failed);
}
