/* launch_flow_test.c - the launch path of real nodeds, in one process.
 *
 * Two nodeds (node1 on 127.0.1.1, node2 on 127.0.1.2) run on this test's
 * libev loop with a private munged; node3 (127.0.1.3) is either absent
 * (connection refused) or a socket that accepts and never answers. A
 * client connection sends LAUNCH to node1 and the test checks the one
 * fan-in answer. StepdPath is this very binary: started as
 * "launch_flow_test -f CONF -n NODE" it plays a stepd (fake_stepd below),
 * whose behaviour the FAKE_STEPD environment variable selects.
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

#include "auth.h"
#include "authpool.h"
#include "conf.h"
#include "cred.h"
#include "hostlist.h"
#include "launch.h"
#include "log.h"
#include "munged_fixture.h"
#include "net.h"
#include "noded.h"
#include "revoke.h"
#include "rpc.h"
#include "serve.h"
#include "stepd_track.h"

/* ---- the fake stepd (a child process) ------------------------------------ */

/* FAKE_STEPD: unset/"ok": answer STEPD_LAUNCHED 0 and exit; "fail":
 * answer an error; "exit3": exit 3 without answering; "signal": answer 0,
 * then serve one STEP_SIGNAL on the step socket and write the signal to
 * <spool>/signal. */
static int fake_stepd (const char *conf_path, const char *node)
{
    const char *mode = getenv ("FAKE_STEPD") ? getenv ("FAKE_STEPD") : "ok";
    struct conf *conf = conf_load (conf_path, NULL);
    struct rpc_chan ch, sch;
    union msg_any m;
    arbor_error_t err;
    int type, lfd = -1;
    uint32_t tag;
    uid_t uid;

    alarm (10);             /* never outlive a failed test */
    rpc_chan_unix (&ch, 0); /* the noded's socketpair */
    if (!conf
        || rpc_recv_tagged (&ch, 5000, &type, &tag, NULL, &m, &uid, &err) < 0
        || type != MSG_STEPD_INIT)
        return 10;
    char *spool = conf_expand (conf->spool_dir, node);
    char sock[PATH_MAX], out[PATH_MAX];
    snprintf (sock, sizeof (sock), "%s/stepd.%u.%u.sock", spool,
              m.stepd_init.job_id, m.stepd_init.step_id);
    snprintf (out, sizeof (out), "%s/init", spool);
    FILE *fp = fopen (out, "w"); /* what the noded told us */
    if (fp) {
        fprintf (fp, "%u %u %s %u %s\n", m.stepd_init.uid, m.stepd_init.node_id,
                 m.stepd_init.user, m.stepd_init.argv_count,
                 m.stepd_init.io_key);
        fclose (fp);
    }
    if (!strcmp (mode, "exit3"))
        _exit (3); /* dies as it is: no exit handlers (LeakSanitizer's
                    * would make the status its own) */
    if (!strcmp (mode, "signal")
        && (lfd = net_listen_unix (sock, 0600, NULL)) < 0)
        return 11;
    struct msg_stepd_launched l = { .errnum = 0 };
    if (!strcmp (mode, "fail")) {
        l.errnum = ENOENT;
        l.text = "execve nope: No such file or directory";
    }
    if (rpc_reply (&ch, MSG_STEPD_LAUNCHED, tag, &l, &err) < 0)
        return 12;
    if (lfd < 0)
        return 0;
    fd_set_nonblock (lfd, 0);
    int fd = accept (lfd, NULL, NULL);
    union msg_any sig;
    if (fd < 0)
        return 13;
    rpc_chan_unix (&sch, fd);
    if (rpc_recv (&sch, 5000, &type, &sig, &uid, &err) < 0
        || type != MSG_STEP_SIGNAL)
        return 13;
    snprintf (out, sizeof (out), "%s/signal", spool);
    if ((fp = fopen (out, "w"))) {
        fprintf (fp, "%d\n", sig.step_signal.signal);
        fclose (fp);
    }
    struct msg_rc rc = { .errnum = 0, .text = "" };
    rpc_send (&sch, MSG_RC, 1, &rc, &err);
    unlink (sock);
    return 0;
}

/* ---- the world: munged, conf, two nodeds, a client ----------------------- */

/* munged could not be started: every test is skipped (skip.h). */
static bool no_munged;

struct world {
    struct munged_fixture munge;
    char dir[PATH_MAX];
    char conf_path[PATH_MAX + 16];
    struct ev_loop *loop;
    struct conf *conf;
    struct noded *nd[2];
    struct auth *auth;      /* the "ctld"'s munge identity */
    struct cred_key key;    /* the "ctld"'s credential key */
    struct auth_pool *pool; /* the client's munge calls */
    int silent_fd;          /* node3 that never answers, or -1 */
    /* a fake controller answering STEP_LIVE (ctld_up) */
    int ctld_fd;
    ev_io ctld_w;
    struct conn *ctld_conns[4];
    uint32_t live_job; /* the one job whose steps it knows as live */
    uint32_t nasked;   /* STEP_LIVEs it was sent */
    uid_t cred_uid;    /* the owner sign_at and ticket put in claims */
    char asked_node[32];
    uint16_t port;
    /* the answer */
    bool answered;
    int type;
    union msg_any reply;
};

static uint16_t free_port (void)
{
    uint16_t port = 0;
    int fd = net_listen_tcp ("127.0.1.1", 0, &port, NULL);

    if (fd >= 0)
        close (fd);
    return port;
}

static int write_conf (struct world *w)
{
    char self[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof (self) - 1);
    FILE *fp;

    if (n < 0 || !(fp = fopen (w->conf_path, "w")))
        return -1;
    self[n] = '\0';
    fprintf (fp,
             "ClusterName=flow\nControlAddr=127.0.0.1\nCtldPort=1\n"
             "NodedPort=%u\nArborUser=%u\nNodedUser=%u\nLaunchTimeout=2\n"
             "SpoolDir=%s/spool/%%n\nStepdPath=%s\nMungeSocket=%s\n"
             "NodeName=node[1-3] NodeAddr=127.0.1.[1-3] CPUs=2\n",
             w->port, (unsigned)geteuid (), (unsigned)geteuid (), w->dir, self,
             w->munge.socket);
    return fclose (fp);
}

/* A noded, assembled as the daemon assembles it; the test keeps its own
 * log level. */
static struct noded *noded_up (struct world *w, const char *name)
{
    arbor_error_t err;
    int level = log_get_level ();
    struct noded *nd = noded_create (w->conf_path, name, 0, false, &err);

    if (!nd)
        fprintf (stderr, "%s: %s\n", name, err.text);
    log_set_level (level);
    return nd;
}

/* Each noded has its own configuration: set the fanout width in all. */
static void tree_width_set (struct world *w, int width)
{
    w->conf->tree_width = width;
    for (int i = 0; i < 2; i++)
        w->nd[i]->conf->tree_width = width;
}

/* What the controller's CRED_KEY gives a noded (credkey_held.c). */
static void give_key (struct world *w, int i)
{
    if (!w->nd[i]->cred_key)
        assert_non_null (w->nd[i]->cred_key = malloc (sizeof (w->key)));
    *w->nd[i]->cred_key = w->key;
}

static int setup (void **state)
{
    static struct world w;
    char cmd[PATH_MAX + 16];

    memset (&w, 0, sizeof (w));
    w.silent_fd = -1;
    w.ctld_fd = -1;
    if (getenv ("NODED_TEST_DEBUG")) /* show the nodeds' debug log */
        log_open ("arbor-noded[test]", LOG_LVL_DEBUG, NULL);
    if (munged_fixture_start (&w.munge) < 0) {
        no_munged = true;
        return -1;
    }
    snprintf (w.dir, sizeof (w.dir), "%s", w.munge.dir);
    snprintf (w.conf_path, sizeof (w.conf_path), "%s/arbor.conf", w.dir);
    snprintf (cmd, sizeof (cmd), "%s/spool", w.dir);
    w.port = free_port ();
    w.loop = ev_default_loop (0);
    if (mkdir (cmd, 0755) < 0 || write_conf (&w) < 0
        || !(w.conf = conf_load (w.conf_path, NULL))
        || !(w.nd[0] = noded_up (&w, "node1"))
        || !(w.nd[1] = noded_up (&w, "node2"))
        || !(w.auth = auth_create (w.conf->munge_socket, NULL))
        || !(w.pool = auth_pool_create (w.loop, w.conf->munge_socket, 0, NULL))
        || cred_key_new (&w.key, NULL) < 0)
        return -1;
    give_key (&w, 0);
    give_key (&w, 1);
    signal (SIGPIPE, SIG_IGN);
    *state = &w;
    return 0;
}

static int teardown (void **state)
{
    struct world *w = *state;

    if (w->answered) /* the last test's answer */
        proto_clear (w->type, &w->reply);
    noded_destroy (w->nd[0]);
    noded_destroy (w->nd[1]);
    auth_pool_destroy (w->pool);
    auth_destroy (w->auth);
    conf_destroy (w->conf);
    munged_fixture_stop (&w->munge);
    return 0;
}

static void clear_answer (struct world *w)
{
    if (w->answered)
        proto_clear (w->type, &w->reply);
    w->answered = false;
}

/* Before each test: fresh revocations and tree width, node3 absent. */
static int reset (void **state)
{
    struct world *w = *state;

    /* nodeds up long enough to know every revocation of a credential
     * signed now (revoke_unsure) */
    for (int i = 0; i < 2; i++) {
        revoke_destroy (w->nd[i]->revoked);
        w->nd[i]->revoked =
            revoke_create_at (16, time (NULL) - 2 * REVOKE_SKEW);
    }
    tree_width_set (w, 16);
    w->cred_uid = getuid ();
    if (w->silent_fd >= 0)
        close (w->silent_fd);
    w->silent_fd = -1;
    unsetenv ("FAKE_STEPD");
    if (w->answered)
        proto_clear (w->type, &w->reply);
    w->answered = false;
    return 0;
}

static void client_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct world *w = arg;

    if (w->answered) /* a test's second request: the first is done */
        proto_clear (w->type, &w->reply);
    w->type = f->type;
    assert_int_equal (
        proto_decode (f->type, f->body, f->body_len, &w->reply, NULL), 0);
    w->answered = true;
    conn_destroy (c);
    ev_break (w->loop, EVBREAK_ALL);
}

static void client_closed_cb (struct conn *c, const arbor_error_t *err,
                              void *arg)
{
    ev_break (((struct world *)arg)->loop, EVBREAK_ALL);
}

static const struct conn_ops client_ops = {
    .frame = client_frame_cb,
    .closed = client_closed_cb,
};

/* A credential of job.0 on 'nodes', sealed at 'issued'. */
static char *sign_at (struct world *w, uint32_t job, const char *nodes,
                      time_t issued)
{
    uint32_t ones[3] = { 1, 1, 1 };
    struct hostlist *hl = hostlist_create (nodes, NULL);
    struct msg_cred_claims claims = {
        .job_id = job,
        .step_id = 0,
        .uid = w->cred_uid,
        .gid = getgid (),
        .user = "root",
        .nodelist = (char *)nodes,
        .io_key = "key42",
        .expires = (uint64_t)time (NULL) + 60,
        .cluster = "flow",
        .tasks = ones,
        .cpus = ones,
        .issued = (uint64_t)issued,
    };
    char *token = NULL;

    assert_non_null (hl);
    claims.tasks_count = claims.cpus_count = (uint32_t)hostlist_count (hl);
    hostlist_destroy (hl);

    assert_int_equal (cred_seal (&w->key, &claims, &token, NULL), 0);
    return token;
}

static char *sign (struct world *w, uint32_t job, const char *nodes)
{
    return sign_at (w, job, nodes, time (NULL));
}

/* Send one request to node1 over a session opened with 'a' and run the
 * loop until it is answered or node1 closes the connection: answered? */
static bool request_with (struct world *w, const struct conn_auth *a, int type,
                          const void *msg)
{
    int fd = net_connect_tcp ("127.0.1.1", w->port, 1000, NULL);
    struct conn *c;

    assert_true (fd >= 0);
    c = conn_create (w->loop, fd, a, &client_ops, w);
    assert_non_null (c);
    assert_int_equal (conn_send (c, type, 42, 0, msg), 0);
    ev_run (w->loop, 0);
    return w->answered;
}

/* Send one request to node1 and run the loop until it is answered.
 * node1 runs as we do: the session's token is for our uid. */
static void request (struct world *w, int type, const void *msg)
{
    struct conn_auth a = { .mode = CONN_AUTH_MUNGE,
                           .initiator = true,
                           .pool = w->pool,
                           .peer_uid = geteuid () };

    assert_true (request_with (w, &a, type, msg));
}

/* The same over a session opened with a launch ticket for step job.0
 * whose I/O key is TICKET_KEY (conn.h), as arbor run opens it. */
#define TICKET_KEY "0123456789abcdef0123456789abcdef"
static bool request_ticketed (struct world *w, const char *ticket, uint32_t job,
                              int type, const void *msg)
{
    struct conn_auth a = { .mode = CONN_AUTH_STEPKEY,
                           .initiator = true,
                           .io_key = TICKET_KEY,
                           .job_id = job,
                           .ticket = ticket };

    return request_with (w, &a, type, msg);
}

/* A launch ticket of step job.0 (as the controller makes one): valid on
 * 'node' alone. */
static char *ticket (struct world *w, uint32_t job, const char *node)
{
    struct msg_cred_claims claims = {
        .job_id = job,
        .uid = w->cred_uid,
        .gid = getgid (),
        .user = "",
        .home = "",
        .nodelist = (char *)node,
        .io_key = TICKET_KEY,
        .expires = (uint64_t)time (NULL) + 60,
        .cluster = "flow",
        .issued = (uint64_t)time (NULL),
    };
    char *token = NULL;

    assert_int_equal (cred_seal (&w->key, &claims, &token, NULL), 0);
    return token;
}

/* LAUNCH of job.0 (slice = the step's nodes) to node1; over a session
 * opened with 'tkt' for step tkt_job.0 when not NULL, else munge's. Runs
 * until answered, or node1 closed the connection: answered? */
static bool launch_over (struct world *w, uint32_t job, const char *nodes,
                         char **slice, uint32_t n, const char *cred,
                         const char *tkt, uint32_t tkt_job)
{
    uint32_t tasks[3] = { 1, 1, 1 }, cpus[3] = { 1, 1, 1 };
    char *argv[] = { "true" };
    char *owned = cred ? NULL : sign (w, job, nodes);
    struct msg_launch req = {
        .cred = (char *)(cred ? cred : owned),
        .job_id = job,
        .step_id = 0,
        .slice = slice,
        .slice_count = n,
        .budget_ms = 2000,
        .argv = argv,
        .argv_count = 1,
        .cwd = "/",
        .io_host = "127.0.0.1",
        .io_port = 1,
        .step_nodelist = (char *)nodes,
        .tasks = tasks,
        .tasks_count = n,
        .cpus = cpus,
        .cpus_count = n,
        .job_nodelist = (char *)nodes,
        .cpus_per_task = 1,
        .stdin_task = STDIN_NONE,
        .job_name = "flow",
    };
    bool answered;

    if (tkt)
        answered = request_ticketed (w, tkt, tkt_job, MSG_LAUNCH, &req);
    else {
        request (w, MSG_LAUNCH, &req);
        answered = true;
    }
    free (owned);
    return answered;
}

/* Send LAUNCH (slice = the step's nodes) to node1, run until answered. */
static void launch (struct world *w, uint32_t job, const char *nodes,
                    char **slice, uint32_t n, const char *cred)
{
    launch_over (w, job, nodes, slice, n, cred, NULL, 0);
    assert_int_equal (w->type, MSG_LAUNCH_REPLY);
}

static void check_failed (struct world *w, const char *node, const char *error)
{
    const struct msg_launch_reply *r = &w->reply.launch_reply;

    for (uint32_t i = 0; i < r->failed_nodes_count; i++) {
        if (!strcmp (r->failed_nodes[i], node)) {
            assert_string_equal (r->failed_errors[i], error);
            return;
        }
    }
    fail_msg ("%s not among the failed nodes", node);
}

/* ---- a fake controller for STEP_LIVE ------------------------------------ */

static void ctld_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct world *w = arg;
    struct msg_step_live m;

    assert_int_equal (f->type, MSG_STEP_LIVE);
    assert_int_equal (proto_decode (f->type, f->body, f->body_len, &m, NULL),
                      0);
    w->nasked++;
    snprintf (w->asked_node, sizeof (w->asked_node), "%s", m.node);
    if (m.job_id == w->live_job)
        conn_send_rc (c, f->matchtag, 0, "%s", "");
    else
        conn_send_rc (c, f->matchtag, EPERM, "step %u.%u is not running",
                      m.job_id, m.step_id);
    proto_clear (MSG_STEP_LIVE, &m);
}

static void ctld_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct world *w = arg;

    for (int i = 0; i < 4; i++)
        if (w->ctld_conns[i] == c)
            w->ctld_conns[i] = NULL;
}

static const struct conn_ops ctld_ops = {
    .frame = ctld_frame_cb,
    .closed = ctld_closed_cb,
};

static void ctld_accept_cb (struct ev_loop *loop, ev_io *io, int revents)
{
    struct world *w = io->data;
    struct conn_auth a = { .mode = CONN_AUTH_MUNGE, .pool = w->pool };
    int fd = accept4 (io->fd, NULL, NULL, SOCK_CLOEXEC);
    int i;

    assert_true (fd >= 0);
    for (i = 0; i < 4 && w->ctld_conns[i]; i++)
        ;
    assert_true (i < 4);
    assert_non_null (w->ctld_conns[i] =
                         conn_create (loop, fd, &a, &ctld_ops, w));
}

/* The controller listens (on a free port the nodeds are told of), and
 * knows job 'live_job' alone as running. */
static void ctld_up (struct world *w, uint32_t live_job)
{
    uint16_t port = 0;

    w->ctld_fd = net_listen_tcp ("127.0.0.1", 0, &port, NULL);
    assert_true (w->ctld_fd >= 0);
    for (int i = 0; i < 2; i++)
        w->nd[i]->conf->ctld_port = port;
    w->live_job = live_job;
    w->nasked = 0;
    ev_io_init (&w->ctld_w, ctld_accept_cb, w->ctld_fd, EV_READ);
    w->ctld_w.data = w;
    ev_io_start (w->loop, &w->ctld_w);
}

/* No controller: its port refuses connections. */
static void ctld_down (struct world *w)
{
    if (w->ctld_fd >= 0) {
        ev_io_stop (w->loop, &w->ctld_w);
        close (w->ctld_fd);
        w->ctld_fd = -1;
    }
    for (int i = 0; i < 4; i++) {
        conn_destroy (w->ctld_conns[i]);
        w->ctld_conns[i] = NULL;
    }
    for (int i = 0; i < 2; i++)
        w->nd[i]->conf->ctld_port = 1;
}

static void test_success (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1", "node2" };
    char path[PATH_MAX + 16], line[256] = "";

    launch (w, 1, "node[1-2]", slice, 2, NULL);
    assert_int_equal (w->reply.launch_reply.errnum, 0);
    assert_int_equal (w->reply.launch_reply.failed_nodes_count, 0);
    /* node2's stepd got identity from the claims, and its index */
    snprintf (path, sizeof (path), "%s/init", w->nd[1]->spool);
    FILE *fp = fopen (path, "r");
    assert_non_null (fp);
    assert_non_null (fgets (line, sizeof (line), fp));
    fclose (fp);
    snprintf (path, sizeof (path), "%u 1 root 1 key42\n", (unsigned)getuid ());
    assert_string_equal (line, path);
}

static void test_bad_credential (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1", "node2" };
    const struct msg_launch_reply *r = &w->reply.launch_reply;

    launch (w, 2, "node[1-2]", slice, 2, "MUNGE:garbage:");
    assert_int_equal (r->errnum, EPERM);
    assert_non_null (strstr (r->text, "not an Arbor credential"));
    launch (w, 2, "node[1-2]", slice, 2, CRED_PREFIX "0123456789abcdef:x");
    assert_int_equal (r->errnum, EPERM);
    assert_true (!strncmp (r->text, "node1: credential: ", 19));
    assert_int_equal (r->failed_nodes_count, 2);
    check_failed (w, "node2", "not launched: node1 refused it");
}

/* Sealed under a key the nodes do not hold: refused, naming both. */
static void test_other_key (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1" };
    struct cred_key mine = w->key;
    char *cred;

    assert_int_equal (cred_key_new (&w->key, NULL), 0);
    cred = sign (w, 21, "node1");
    w->key = mine;
    launch (w, 21, "node1", slice, 1, cred);
    free (cred);
    assert_int_equal (w->reply.launch_reply.errnum, EPERM);
    assert_non_null (strstr (w->reply.launch_reply.text, "sealed with key"));
    assert_non_null (strstr (w->reply.launch_reply.text, mine.id));
}

/* A launch before the controller's key waits for it, then runs. */
static void key_arrives_cb (struct ev_loop *loop, ev_timer *t, int revents)
{
    struct world *w = t->data;

    give_key (w, 0);
    launch_key_arrived (w->nd[0]);
    serve_key_arrived (w->nd[0]);
}

/* node1 loses its credential key; it arrives again 0.2 s after the loop
 * next runs (t: the caller stops it). */
static void key_arrives_later (struct world *w, ev_timer *t)
{
    free (w->nd[0]->cred_key);
    w->nd[0]->cred_key = NULL;
    ev_timer_init (t, key_arrives_cb, 0.2, 0.);
    t->data = w;
    ev_timer_start (w->loop, t);
}

static void test_waits_for_key (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1" };
    ev_timer t;

    key_arrives_later (w, &t);
    launch (w, 22, "node1", slice, 1, NULL);
    ev_timer_stop (w->loop, &t);
    assert_int_equal (w->reply.launch_reply.errnum, 0);
}

/* No key within the launch's budget: refused, saying so. */
static void test_no_key (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1" };

    free (w->nd[0]->cred_key);
    w->nd[0]->cred_key = NULL;
    launch (w, 23, "node1", slice, 1, NULL);
    give_key (w, 0);
    assert_int_equal (w->reply.launch_reply.errnum, ETIMEDOUT);
    assert_non_null (strstr (w->reply.launch_reply.text,
                             "no credential key from the controller"));
}

static void test_refused_and_merged (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1", "node2", "node3" };
    const struct msg_launch_reply *r = &w->reply.launch_reply;

    for (uint32_t width = 1; width <= 2; width++) {
        reset (state);
        tree_width_set (w, width); /* 1: node3 is node2's child */
        launch (w, 3 + width, "node[1-3]", slice, 3, NULL);
        assert_int_equal (r->errnum, ECONNREFUSED);
        assert_string_equal (r->text, "node3: connection refused");
        assert_int_equal (r->failed_nodes_count, 1);
        check_failed (w, "node3", "connection refused");
    }
}

static void test_retry_through_next (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1", "node3", "node2" };
    char *nodes = "node1,node3,node2";
    const struct msg_launch_reply *r = &w->reply.launch_reply;

    /* width 1: the chunk node3,node2 fails at node3, retried via node2 */
    tree_width_set (w, 1);
    launch (w, 6, nodes, slice, 3, NULL);
    assert_int_equal (r->failed_nodes_count, 1);
    check_failed (w, "node3", "connection refused");
}

static void test_no_answer (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1", "node2", "node3" };
    const struct msg_launch_reply *r = &w->reply.launch_reply;

    long waited = 0;

    /* node3 accepts connections but never reads: budget (2000-200)*3/4 */
    w->silent_fd = net_listen_tcp ("127.0.1.3", w->port, NULL, NULL);
    assert_true (w->silent_fd >= 0);
    launch (w, 7, "node[1-3]", slice, 3, NULL);
    assert_int_equal (r->errnum, ETIMEDOUT);
    assert_int_equal (r->failed_nodes_count, 1);
    /* the wait as the loop's clock measured it: within a few ms of the
     * budget, never the whole launch's 2000 */
    assert_string_equal (r->failed_nodes[0], "node3");
    assert_int_equal (
        sscanf (r->failed_errors[0], "no answer within %ld ms", &waited), 1);
    assert_in_range (waited, 1340, 1360);
}

static void test_stepd_failures (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1" };
    const struct msg_launch_reply *r = &w->reply.launch_reply;

    setenv ("FAKE_STEPD", "exit3", 1);
    launch (w, 8, "node1", slice, 1, NULL);
    assert_int_equal (r->failed_nodes_count, 1);
    check_failed (w, "node1", "stepd exited with status 3");
    reset (state);
    setenv ("FAKE_STEPD", "fail", 1);
    launch (w, 9, "node1", slice, 1, NULL);
    assert_int_equal (r->errnum, ENOENT);
    assert_string_equal (r->text,
                         "node1: execve nope: No such file or directory");
}

static void test_revoked (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1", "node2" };
    const struct msg_launch_reply *r = &w->reply.launch_reply;

    revoke_add (w->nd[0]->revoked, 10, 0, STEP_ID_ALL, time (NULL) + 60);
    launch (w, 10, "node[1-2]", slice, 2, NULL);
    assert_int_equal (r->errnum, EPERM);
    assert_string_equal (r->text, "node1: step 10.0 has been revoked");
    /* only node2 revoked: node1 starts, node2 refuses */
    reset (state);
    revoke_add (w->nd[1]->revoked, 11, 0, 0, time (NULL) + 60);
    launch (w, 11, "node[1-2]", slice, 2, NULL);
    assert_int_equal (r->errnum, EPERM);
    assert_int_equal (r->failed_nodes_count, 1);
    check_failed (w, "node2", "step 11.0 has been revoked");
}

static void wait_cb (struct ev_loop *loop, ev_timer *t, int revents)
{
    struct noded *nd = t->data;

    if (!stepd_table_find (nd->stepds, 12, 0))
        ev_break (loop, EVBREAK_ALL);
}

static void test_step_kill (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1" };
    struct msg_step_kill kill = {
        .job_id = 12, .step_id = STEP_ID_ALL, .signal = SIGKILL, .revoke = true
    };
    char path[PATH_MAX + 16], line[32] = "";
    ev_timer t;

    setenv ("FAKE_STEPD", "signal", 1);
    launch (w, 12, "node1", slice, 1, NULL);
    assert_int_equal (w->reply.launch_reply.errnum, 0);
    /* the ctld's STEP_KILL: signal through the socket, and revoke */
    clear_answer (w);
    request (w, MSG_STEP_KILL, &kill);
    assert_int_equal (w->type, MSG_RC);
    assert_int_equal (w->reply.rc.errnum, 0);
    assert_string_equal (w->reply.rc.text, "1 stepd signalled");
    ev_timer_init (&t, wait_cb, 0.01, 0.01);
    t.data = w->nd[0];
    ev_timer_start (w->loop, &t);
    ev_run (w->loop, 0); /* until the fake stepd is reaped */
    ev_timer_stop (w->loop, &t);
    snprintf (path, sizeof (path), "%s/signal", w->nd[0]->spool);
    FILE *fp = fopen (path, "r");
    assert_non_null (fp);
    assert_non_null (fgets (line, sizeof (line), fp));
    fclose (fp);
    assert_string_equal (line, "9\n");
    clear_answer (w); /* keeps the revocation */
    launch (w, 12, "node1", slice, 1, NULL);
    assert_int_equal (w->reply.launch_reply.errnum, EPERM);
    assert_string_equal (w->reply.launch_reply.text,
                         "node1: step 12.0 has been revoked");
}

/* Items 8 and 9 of issue 6: a slice larger than the cluster is refused
 * before anything else, and the refusal names a few nodes, not all. */
static void test_hostile_slice (void **state)
{
    struct world *w = *state;
    enum { N = 5000 };
    static char *slice[N];
    static char names[N][16];
    const struct msg_launch_reply *r = &w->reply.launch_reply;

    slice[0] = "node1";
    for (int i = 1; i < N; i++) {
        snprintf (names[i], sizeof (names[i]), "bogus%d", i);
        slice[i] = names[i];
    }
    uint32_t one[1] = { 1 };
    char *argv[] = { "true" };
    char *cred = sign (w, 13, "node1");
    struct msg_launch req = {
        .cred = cred,
        .job_id = 13,
        .slice = slice,
        .slice_count = N,
        .budget_ms = 2000,
        .argv = argv,
        .argv_count = 1,
        .cwd = "/",
        .io_host = "127.0.0.1",
        .io_port = 1,
        .step_nodelist = "node1",
        .tasks = one,
        .tasks_count = 1,
        .cpus = one,
        .cpus_count = 1,
        .job_nodelist = "node1",
        .cpus_per_task = 1,
        .stdin_task = STDIN_NONE,
        .job_name = "flow",
    };

    request (w, MSG_LAUNCH, &req);
    free (cred);
    assert_int_equal (w->type, MSG_LAUNCH_REPLY);
    assert_int_equal (r->errnum, EPERM);
    assert_string_equal (r->text, "node1: slice of 5000 nodes is larger "
                                  "than the cluster (3 nodes)");
    assert_int_equal (r->failed_nodes_count, 2);
    check_failed (w, "4999 more nodes", "not launched: node1 refused it");
}

static void reaped_cb (struct ev_loop *loop, ev_timer *t, int revents)
{
    struct noded *nd = t->data;

    if (!stepd_table_find (nd->stepds, 14, 0))
        ev_break (loop, EVBREAK_ALL);
}

/* Item 10 of issue 6: once a step's stepd has ended, the same credential
 * (in a fresh LAUNCH frame) starts nothing again. */
static void test_replay_after_end (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1" };
    char *cred = sign (w, 14, "node1");
    ev_timer t;

    launch (w, 14, "node1", slice, 1, cred);
    assert_int_equal (w->reply.launch_reply.errnum, 0);
    ev_timer_init (&t, reaped_cb, 0.01, 0.01);
    t.data = w->nd[0];
    ev_timer_start (w->loop, &t);
    ev_run (w->loop, 0); /* until the fake stepd has exited, normally */
    ev_timer_stop (w->loop, &t);
    clear_answer (w);
    launch (w, 14, "node1", slice, 1, cred);
    assert_int_equal (w->reply.launch_reply.errnum, EPERM);
    assert_string_equal (w->reply.launch_reply.text,
                         "node1: step 14.0 has been revoked");
    free (cred);
}

/* A launcher's session opened with its step's launch ticket: that step
 * launches, another is refused, and nothing else is taken on it, not even
 * from root; a ticket for another node is refused with the connection. */
static void test_launch_ticket (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1", "node2" };
    char *mine = ticket (w, 21, "node1"), *node2s = ticket (w, 22, "node2");
    struct msg_job_terminate term = { .job_id = 21, .state = "CANCELLED" };
    const struct msg_launch_reply *r = &w->reply.launch_reply;

    assert_true (launch_over (w, 21, "node[1-2]", slice, 2, NULL, mine, 21));
    assert_int_equal (w->type, MSG_LAUNCH_REPLY);
    assert_int_equal (r->errnum, 0);

    clear_answer (w);
    assert_true (launch_over (w, 23, "node[1-2]", slice, 2, NULL, mine, 21));
    assert_int_equal (r->errnum, EPERM);
    assert_non_null (strstr (r->text, "launch ticket of step 21.0 cannot "
                                      "launch step 23.0"));

    clear_answer (w);
    assert_true (request_ticketed (w, mine, 21, MSG_JOB_TERMINATE, &term));
    assert_int_equal (w->type, MSG_RC);
    assert_int_equal (w->reply.rc.errnum, EPERM);
    assert_non_null (strstr (w->reply.rc.text, "may only launch its step"));

    clear_answer (w);
    assert_false (launch_over (w, 22, "node[1-2]", slice, 2, NULL, node2s, 22));
    free (mine);
    free (node2s);
}

/* A launcher's session opened before node1 has its credential key (a node
 * that just registered): it waits for the key, then launches. */
static void test_ticket_waits_for_key (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1" };
    char *mine = ticket (w, 24, "node1");
    ev_timer t;

    key_arrives_later (w, &t);
    assert_true (launch_over (w, 24, "node1", slice, 1, NULL, mine, 24));
    ev_timer_stop (w->loop, &t);
    assert_int_equal (w->type, MSG_LAUNCH_REPLY);
    assert_int_equal (w->reply.launch_reply.errnum, 0);
    free (mine);
}

/* A user's (uid USER_UID) LAUNCH of job.0 on 'nodes', as arbor run
 * sends it: over a session opened with the step's launch ticket, the
 * credential sealed at 'issued'. Runs until answered. */
#define USER_UID 4242
static void user_launch (struct world *w, uint32_t job, const char *nodes,
                         char **slice, uint32_t n, time_t issued)
{
    char *cred, *tkt;

    w->cred_uid = USER_UID;
    cred = sign_at (w, job, nodes, issued);
    tkt = ticket (w, job, "node1");
    assert_true (launch_over (w, job, nodes, slice, n, cred, tkt, job));
    assert_int_equal (w->type, MSG_LAUNCH_REPLY);
    free (cred);
    free (tkt);
}

/* Issue 32 item 8: a user's credential issued before the noded began (it
 * restarted since, its revocations lost) launches only once the
 * controller says the step is live on this node; a step it does not know
 * as live is refused (and remembered), and so is every such launch while
 * the controller cannot be asked. Nothing starts on a refusal. */
static void test_restarted_asks_controller (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1" };
    time_t before = time (NULL) - 4 * REVOKE_SKEW; /* before both began */
    const struct msg_launch_reply *r = &w->reply.launch_reply;

    ctld_up (w, 30);
    user_launch (w, 30, "node1", slice, 1, before);
    assert_int_equal (r->errnum, 0);
    assert_int_equal (w->nasked, 1);
    assert_string_equal (w->asked_node, "node1");

    clear_answer (w);
    user_launch (w, 31, "node1", slice, 1, before);
    assert_int_equal (r->errnum, EPERM);
    assert_string_equal (r->text, "node1: step 31.0 is not live, the "
                                  "controller says: step 31.0 is not running");
    assert_null (stepd_table_find (w->nd[0]->stepds, 31, 0));
    /* the verdict is remembered: no second question */
    clear_answer (w);
    user_launch (w, 31, "node1", slice, 1, before);
    assert_int_equal (r->errnum, EPERM);
    assert_string_equal (r->text, "node1: step 31.0 has been revoked");
    assert_int_equal (w->nasked, 2);
    /* a credential issued after the noded began: no question */
    clear_answer (w);
    user_launch (w, 34, "node1", slice, 1, time (NULL));
    assert_int_equal (r->errnum, 0);
    assert_int_equal (w->nasked, 2);

    ctld_down (w);
    clear_answer (w);
    user_launch (w, 32, "node1", slice, 1, before);
    assert_int_equal (r->errnum, ECONNREFUSED);
    assert_non_null (strstr (r->text, "cannot ask the controller whether "
                                      "step 32.0 is live"));
    assert_null (stepd_table_find (w->nd[0]->stepds, 32, 0));
}

/* Node zero's verdict travels with the forward: node2, restarted after
 * the credential was issued, takes node1's forward (a node daemon's,
 * made after node1's own checks) without asking; so do the controller's
 * own launches (root here). */
static void test_forward_carries_the_verdict (void **state)
{
    struct world *w = *state;
    char *slice[] = { "node1", "node2" };
    const struct msg_launch_reply *r = &w->reply.launch_reply;
    char *cred;

    ctld_up (w, 0); /* knows nothing as live: counts the questions */
    revoke_destroy (w->nd[1]->revoked);
    assert_non_null (w->nd[1]->revoked = revoke_create (16)); /* just now */
    user_launch (w, 33, "node[1-2]", slice, 2, time (NULL) - REVOKE_SKEW);
    assert_int_equal (r->errnum, 0);
    assert_int_equal (w->nasked, 0);

    /* root's launch (as the controller's batch launch) to a restarted
     * node1 */
    clear_answer (w);
    revoke_destroy (w->nd[0]->revoked);
    assert_non_null (w->nd[0]->revoked = revoke_create (16));
    w->cred_uid = getuid ();
    cred = sign_at (w, 35, "node1", time (NULL) - 4 * REVOKE_SKEW);
    launch (w, 35, "node1", slice, 1, cred);
    assert_int_equal (r->errnum, 0);
    assert_int_equal (w->nasked, 0);
    ctld_down (w);
    free (cred);
}

int main (int argc, char **argv)
{
    if (argc == 5 && !strcmp (argv[1], "-f") && !strcmp (argv[3], "-n"))
        return fake_stepd (argv[2], argv[4]);
    if (argc == 6 && !strcmp (argv[5], "--spawner"))
        return 2; /* no spawner here, as an old arbor-stepd: the noded
                   * execs each fake stepd */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup (test_success, reset),
        cmocka_unit_test_setup (test_bad_credential, reset),
        cmocka_unit_test_setup (test_other_key, reset),
        cmocka_unit_test_setup (test_waits_for_key, reset),
        cmocka_unit_test_setup (test_no_key, reset),
        cmocka_unit_test_setup (test_refused_and_merged, reset),
        cmocka_unit_test_setup (test_retry_through_next, reset),
        cmocka_unit_test_setup (test_no_answer, reset),
        cmocka_unit_test_setup (test_stepd_failures, reset),
        cmocka_unit_test_setup (test_revoked, reset),
        cmocka_unit_test_setup (test_step_kill, reset),
        cmocka_unit_test_setup (test_hostile_slice, reset),
        cmocka_unit_test_setup (test_replay_after_end, reset),
        cmocka_unit_test_setup (test_launch_ticket, reset),
        cmocka_unit_test_setup (test_ticket_waits_for_key, reset),
        cmocka_unit_test_setup (test_restarted_asks_controller, reset),
        cmocka_unit_test_setup (test_forward_carries_the_verdict, reset),
    };
    int failed = cmocka_run_group_tests (tests, setup, teardown);

    if (no_munged)
        return arbor_skip_all ("munged could not be started");
    return arbor_test_exit (failed);
}
