/* cmd_attach.c - "arbor attach" (sattach): join a running step's I/O.
 *
 *     arbor attach 5.0                 its tasks' output from now on
 *     arbor attach -l --output-filter=1 5.0
 *     arbor attach --layout 5.0        where its tasks run, and exit
 *
 * The controller names the step's nodes (STEP_INFO, NODE_INFO). We
 * listen on a TCP port, make a fresh random key and send STEP_ATTACH
 * (our address and the key) to each node's noded, which checks that we
 * own the step (or are root/ArborUser) and has the stepd connect back to
 * us, in a session keyed by our key, as it connected to the launcher.
 * Each stepd then says IO_HELLO and sends its tasks' output, which is
 * printed as "arbor run" prints it (output.c: --label prefixes whole
 * lines); our stdin goes to the tasks (--input-filter: one task), EOF
 * excepted: closing the tasks' stdin is the launcher's. We exit 0 once
 * every stepd has closed (the step ended), or on SIGINT/SIGTERM/SIGHUP,
 * which only detach: the step goes on. Errors (no such step, not ours)
 * name what was wrong and exit 1, as does a stepd dropping us because
 * we could not keep up with the output.
 *
 * --layout asks each node STEP_STAT (sstat's request), whose answer names
 * the ranks running there: the controller does not keep a step's ranks
 * per node.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "attach_text.h"
#include "client.h"
#include "cmds.h"
#include "conf.h"
#include "conn.h"
#include "cred.h"
#include "hostlist.h"
#include "jobsel.h"
#include "listen.h"
#include "log.h"
#include "net.h"
#include "opt.h"
#include "output.h"
#include "version.h"

#define ATTACH_STDIN_CHUNK (32u * 1024)
#define ATTACH_STDIN_HIGH (4u << 20) /* pause reading stdin above */
#define ATTACH_STDIN_RETRY 0.02
#define ATTACH_KEY_LEN 32

enum { OPT_INPUT = 0x100, OPT_OUTPUT, OPT_ERROR, OPT_LAYOUT };

struct attach_opts {
    const char *prog;
    const char *id; /* as given */
    uint32_t job, step;
    bool label, layout, quiet;
    int32_t input; /* --input-filter, ATTACH_ALL: every task */
    struct attach_filter show;
};

/* One stepd's connection. */
struct attach_peer {
    struct attach_ctx *x;
    struct conn *conn;
    bool hello;
    char *node;
    struct attach_peer *next;
};

struct attach_ctx {
    struct attach_opts *o;
    char id[48]; /* "5.0" */
    struct client cl;
    uid_t noded_uid;
    struct msg_node_info_reply nodes;
    char *nodelist; /* the step's */
    uint32_t ntasks;
    struct ev_loop *loop;
    struct listener *listener;
    char host[64];
    uint16_t port;
    char key[ATTACH_KEY_LEN + 1];
    struct output *out;
    struct attach_peer *peers;
    uint32_t nattached; /* stepds that answered STEP_ATTACH RC 0 */
    uint32_t nended;    /* of their connections, closed */
    ev_io stdin_w;
    ev_timer stdin_retry;
    bool stdin_started, stdin_eof;
    ev_signal sig_w[3];
    int rc;
};

static const char attach_usage[] =
    "Usage: %s [OPTIONS] JOBID.STEPID\n"
    "  -l, --label              prefix each line with its task's rank\n"
    "      --input-filter=N     send stdin to task N only\n"
    "      --output-filter=N    show task N's stdout only\n"
    "      --error-filter=N     show task N's stderr only\n"
    "      --layout             print where the step's tasks run, and exit\n"
    "  -Q, --quiet              errors only\n"
    "  -h, --help               this help\n"
    "      --usage              the options in short\n"
    "  -V, --version            the version (\"slurm X.Y.Z\" as sattach)\n"
    "Ctrl-C detaches; the step goes on.\n";

/* --usage: sattach's options in short. */
static const char *const attach_synopsis[] = {
    "[-lQ] [--input-filter=N] [--output-filter=N] [--error-filter=N]",
    "[--layout] [--help] [--usage] [-V] job_id.step_id",
    NULL,
};

static void __attribute__ ((noreturn))
attach_die (const struct attach_opts *o, const char *fmt, const char *arg)
{
    fprintf (stderr, "%s: error: ", o->prog);
    fprintf (stderr, fmt, arg);
    fputc ('\n', stderr);
    exit (1);
}

static int32_t attach_rank_opt (const struct attach_opts *o, const char *name,
                                const char *arg)
{
    int32_t r;
    char fmt[64];

    if (attach_parse_rank (arg, &r) < 0) {
        snprintf (fmt, sizeof (fmt), "--%s=%%s: not a task number", name);
        attach_die (o, fmt, arg);
    }
    return r;
}

static void attach_parse (struct attach_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "label", no_argument, NULL, 'l' },
        { "input-filter", required_argument, NULL, OPT_INPUT },
        { "output-filter", required_argument, NULL, OPT_OUTPUT },
        { "error-filter", required_argument, NULL, OPT_ERROR },
        { "layout", no_argument, NULL, OPT_LAYOUT },
        { "quiet", no_argument, NULL, 'Q' },
        { "help", no_argument, NULL, 'h' },
        VERSION_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, ":lQhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': o->label = true; break;
        case 'Q': o->quiet = true; break;
        case 'h': printf (attach_usage, o->prog); exit (0);
        case 'V':
        case VERSION_OPT_USAGE:
            version_option (c, o->prog, attach_synopsis);
            break;
        case OPT_LAYOUT: o->layout = true; break;
        case OPT_INPUT:
            o->input = attach_rank_opt (o, "input-filter", optarg);
            break;
        case OPT_OUTPUT:
            o->show.out = attach_rank_opt (o, "output-filter", optarg);
            break;
        case OPT_ERROR:
            o->show.err = attach_rank_opt (o, "error-filter", optarg);
            break;
        default: opt_getopt_die (c, argv, o->prog, longopts);
        }
    }
    if (optind != argc - 1)
        attach_die (o, "%s",
                    optind >= argc ? "no step given: JOBID.STEPID"
                                   : "one step only: JOBID.STEPID");
    o->id = argv[optind];
    if (attach_parse_step (o->id, &o->job, &o->step) < 0)
        attach_die (o, "Invalid job step id: %s (JOBID.STEPID)", o->id);
    if (!attach_step_has_io (o->step))
        attach_die (o,
                    "step %s: batch and extern steps have no I/O to attach "
                    "to",
                    o->id);
}

/* ---- the step ------------------------------------------------------------ */

static void attach_find_step (struct attach_ctx *x)
{
    struct msg_node_info nreq = { .nodelist = "" };
    struct msg_step_info sreq = { .job_ids = &x->o->job, .job_ids_count = 1 };
    struct msg_step_info_reply r;
    arbor_error_t err;

    if (client_call (&x->cl, MSG_STEP_INFO, &sreq, MSG_STEP_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
            < 0
        || client_call (&x->cl, MSG_NODE_INFO, &nreq, MSG_NODE_INFO_REPLY,
                        &x->nodes, CLIENT_TIMEOUT_MS, &err)
               < 0)
        attach_die (x->o, "%s", err.text);
    for (uint32_t i = 0; i < r.job_ids_count && i < r.step_ids_count; i++) {
        if (r.job_ids[i] != x->o->job || r.step_ids[i] != x->o->step)
            continue;
        x->nodelist = strdup (i < r.nodelists_count ? r.nodelists[i] : "");
        x->ntasks = i < r.ntasks_count ? r.ntasks[i] : 0;
        if (!x->nodelist)
            die ("out of memory");
    }
    proto_clear (MSG_STEP_INFO_REPLY, &r);
    if (!x->nodelist)
        attach_die (x->o, "step %s is not running (no such step)", x->id);
}

/* A request to the noded of 'node'; answer decoded into resp. */
static int attach_ask (struct attach_ctx *x, const char *node, int type,
                       const void *req, int resp_type, void *resp,
                       arbor_error_t *err)
{
    return rpc_call (x->cl.auth, client_node_addr (&x->nodes, node),
                     (uint16_t)x->cl.conf->noded_port, x->noded_uid, type, req,
                     resp_type, resp, CLIENT_TIMEOUT_MS, err);
}

/* --layout: each node's ranks, from its STEP_STAT answer. */
static int attach_layout (struct attach_ctx *x, struct hostlist *hl)
{
    struct msg_step_stat m = { x->o->job, x->o->step };
    size_t n = hostlist_count (hl);
    struct msg_step_stat_reply *r = calloc (n + 1, sizeof (*r));
    struct attach_node *nodes = calloc (n + 1, sizeof (*nodes));
    arbor_error_t err;
    int rc = 0;

    if (!r || !nodes)
        die ("out of memory");
    for (size_t k = 0; k < n && rc == 0; k++) {
        const char *node = hostlist_nth (hl, k);
        if (attach_ask (x, node, MSG_STEP_STAT, &m, MSG_STEP_STAT_REPLY, &r[k],
                        &err)
            < 0) {
            log_err ("step %s on %s: %s", x->id, node, err.text);
            rc = -1;
            break;
        }
        nodes[k] = (struct attach_node){ node, r[k].ranks, r[k].ranks_count };
    }
    if (rc == 0
        && attach_layout_print (stdout, x->o->job, x->o->step, x->nodelist,
                                x->ntasks, nodes, n)
               < 0) {
        log_err ("writing the layout: %s", strerror (errno));
        rc = -1;
    }
    for (size_t k = 0; k < n; k++)
        proto_clear (MSG_STEP_STAT_REPLY, &r[k]);
    free (r);
    free (nodes);
    return rc;
}

/* ---- the stepds' connections ------------------------------------------- */

static void attach_check_done (struct attach_ctx *x)
{
    if (x->nended >= x->nattached)
        ev_break (x->loop, EVBREAK_ALL);
}

static void attach_peer_free (struct attach_peer *p)
{
    struct attach_ctx *x = p->x;

    for (struct attach_peer **pp = &x->peers; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    free (p->node);
    free (p);
}

static void attach_stdin_start (struct attach_ctx *x);

/* First frame: IO_HELLO for our step, else the connection is dropped. */
static int attach_peer_hello (struct attach_peer *p, const struct frame *f)
{
    struct attach_ctx *x = p->x;
    struct msg_io_hello h;
    arbor_error_t err;

    if (f->type != MSG_IO_HELLO
        || proto_decode (MSG_IO_HELLO, f->body, f->body_len, &h, &err) < 0)
        return -1;
    if (h.job_id != x->o->job || h.step_id != x->o->step || !h.node_name) {
        proto_clear (MSG_IO_HELLO, &h);
        return -1;
    }
    p->hello = true;
    p->node = h.node_name;
    h.node_name = NULL;
    for (uint32_t i = 0; i < h.task_ids_count; i++)
        output_set_node (x->out, h.task_ids[i], p->node, h.node_id);
    proto_clear (MSG_IO_HELLO, &h);
    log_verbose ("%s: attached", p->node);
    attach_stdin_start (x);
    return 0;
}

static void attach_peer_data (struct attach_peer *p, const struct frame *f)
{
    struct attach_ctx *x = p->x;
    struct msg_io_data m;
    arbor_error_t err;

    if (proto_decode (MSG_IO_DATA, f->body, f->body_len, &m, &err) < 0) {
        log_err ("%s: %s", p->node, err.text);
        return;
    }
    if (attach_shows (&x->o->show, m.task, (int)m.stream)
        && output_data (x->out, m.task, (int)m.stream, m.data, m.data_len, &err)
               < 0
        && errno != EINVAL) { /* EINVAL: a rank past the step's, dropped */
        log_err ("%s", err.text);
        x->rc = 1;
        ev_break (x->loop, EVBREAK_ALL); /* our stdout is gone: detach */
    }
    proto_clear (MSG_IO_DATA, &m);
}

/* An RC on the I/O connection: the stepd tells why it drops us. */
static void attach_peer_rc (struct attach_peer *p, const struct frame *f)
{
    struct msg_rc m;
    arbor_error_t err;

    if (proto_decode (MSG_RC, f->body, f->body_len, &m, &err) < 0)
        return;
    if (m.errnum != 0) {
        log_err ("%s: %s", p->node, m.text ? m.text : "detached");
        p->x->rc = 1;
    }
    proto_clear (MSG_RC, &m);
}

static void attach_peer_frame (struct conn *c, const struct frame *f, void *arg)
{
    struct attach_peer *p = arg;

    if (!p->hello) {
        if (attach_peer_hello (p, f) < 0) {
            log_verbose ("dropping I/O connection from %s", conn_peer (c));
            conn_destroy (c);
            attach_peer_free (p);
        }
        return;
    }
    if (f->type == MSG_IO_DATA)
        attach_peer_data (p, f);
    else if (f->type == MSG_RC)
        attach_peer_rc (p, f);
}

static void attach_peer_closed (struct conn *c, const arbor_error_t *err,
                                void *arg)
{
    struct attach_peer *p = arg;
    struct attach_ctx *x = p->x;

    if (p->hello) {
        log_verbose ("%s: closed%s%s", p->node, err && err->text[0] ? ": " : "",
                     err && err->text[0] ? err->text : "");
        x->nended++;
    }
    attach_peer_free (p);
    attach_check_done (x);
}

static const struct conn_ops attach_peer_ops = {
    .frame = attach_peer_frame,
    .closed = attach_peer_closed,
};

static void attach_accepted_cb (struct listener *l, struct conn *c, void *arg)
{
    struct attach_ctx *x = arg;
    struct attach_peer *p = calloc (1, sizeof (*p));

    if (!p) {
        conn_destroy (c);
        return;
    }
    *p = (struct attach_peer){ .x = x, .conn = c, .next = x->peers };
    conn_set_arg (c, p);
    x->peers = p;
}

static void attach_refused_cb (struct listener *l, const char *peer,
                               const char *why, void *arg)
{
    log_verbose ("I/O connection from %s refused: %s", *peer ? peer : "?", why);
}

static const struct listen_ops attach_listen_ops = {
    .accepted = attach_accepted_cb,
    .refused = attach_refused_cb,
};

/* Listen where the stepds can reach us (the address our controller
 * connection leaves from), for sessions keyed by a fresh key. */
static void attach_listen (struct attach_ctx *x, size_t nnodes)
{
    unsigned room = (unsigned)nnodes + 64;
    struct listen_limits lim = { .max_unauth = room, .max_unauth_peer = room };
    struct conn_auth a = { .mode = CONN_AUTH_STEPKEY,
                           .io_key = x->key,
                           .job_id = x->o->job,
                           .step_id = x->o->step };
    arbor_error_t err;
    int fd;

    if (cred_io_key (x->key, sizeof (x->key)) < 0)
        die ("cannot make a key: %s", strerror (errno));
    if (client_local_addr (&x->cl, x->host, sizeof (x->host)) < 0)
        die ("cannot find the local address: %s", strerror (errno));
    if ((fd = net_listen_tcp (x->host, 0, &x->port, &err)) < 0)
        die ("cannot listen: %s", err.text);
    x->listener = listener_create (x->loop, fd, &a, &lim, &attach_peer_ops,
                                   &attach_listen_ops, x);
    if (!x->listener)
        die ("cannot listen: %s", strerror (errno));
}

/* STEP_ATTACH to every node: each stepd connects back before its noded
 * answers, into our listener's backlog. A node whose stepd has already
 * gone (ESRCH: its tasks ended) is skipped; any other refusal is fatal.
 * 0, or -1 (said). */
static int attach_nodes (struct attach_ctx *x, struct hostlist *hl)
{
    struct msg_step_attach m = { x->o->job, x->o->step, x->host, x->port,
                                 x->key };
    size_t n = hostlist_count (hl), gone = 0;
    arbor_error_t err;

    for (size_t k = 0; k < n; k++) {
        const char *node = hostlist_nth (hl, k);
        struct msg_rc r;
        if (attach_ask (x, node, MSG_STEP_ATTACH, &m, MSG_RC, &r, &err) < 0) {
            if (errno == ESRCH) {
                log_verbose ("step %s on %s: %s", x->id, node, err.text);
                gone++;
                continue;
            }
            log_err ("step %s on %s: %s", x->id, node, err.text);
            return -1;
        }
        proto_clear (MSG_RC, &r);
        x->nattached++;
    }
    if (x->nattached == 0) {
        log_err ("step %s is not running (it has ended on its nodes)", x->id);
        return -1;
    }
    if (gone)
        log_info ("step %s has ended on %zu of its %zu nodes", x->id, gone, n);
    return 0;
}

/* ---- stdin and signals ------------------------------------------------- */

static bool attach_stdin_congested (const struct attach_ctx *x)
{
    for (const struct attach_peer *p = x->peers; p; p = p->next)
        if (p->hello && conn_outq_len (p->conn) > ATTACH_STDIN_HIGH)
            return true;
    return false;
}

/* To every stepd: each writes it to the tasks asked for that it runs. */
static void attach_stdin_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct attach_ctx *x = w->data;
    char buf[ATTACH_STDIN_CHUNK];
    ssize_t n = read (STDIN_FILENO, buf, sizeof (buf));
    struct msg_io_stdin m = { .task = x->o->input, .data = buf };

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) { /* EOF is not sent: the tasks' stdin stays open */
        if (n < 0)
            log_verbose ("stdin: %s", strerror (errno));
        ev_io_stop (loop, w);
        x->stdin_eof = true;
        return;
    }
    m.data_len = (uint32_t)n;
    for (struct attach_peer *p = x->peers; p; p = p->next)
        if (p->hello && conn_send (p->conn, MSG_IO_STDIN, 0, 0, &m) < 0)
            log_verbose ("%s: stdin: %s", p->node, strerror (errno));
    if (attach_stdin_congested (x)) {
        ev_io_stop (loop, w);
        ev_timer_again (loop, &x->stdin_retry);
    }
}

static void attach_stdin_retry_cb (struct ev_loop *loop, ev_timer *w,
                                   int revents)
{
    struct attach_ctx *x = w->data;

    if (attach_stdin_congested (x))
        return;
    ev_timer_stop (loop, w);
    ev_io_start (loop, &x->stdin_w);
}

/* At the first hello: read stdin from now on (if there is one). */
static void attach_stdin_start (struct attach_ctx *x)
{
    if (x->stdin_started || fcntl (STDIN_FILENO, F_GETFD) < 0)
        return;
    x->stdin_started = true;
    ev_io_init (&x->stdin_w, attach_stdin_cb, STDIN_FILENO, EV_READ);
    x->stdin_w.data = x;
    ev_init (&x->stdin_retry, attach_stdin_retry_cb);
    x->stdin_retry.repeat = ATTACH_STDIN_RETRY;
    x->stdin_retry.data = x;
    ev_io_start (x->loop, &x->stdin_w);
}

/* SIGINT, SIGTERM, SIGHUP: detach, the step goes on. */
static void attach_signal_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    struct attach_ctx *x = w->data;

    log_info ("detached from step %s (it goes on)", x->id);
    ev_break (loop, EVBREAK_ALL);
}

static void attach_signals (struct attach_ctx *x)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

    signal (SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < 3; i++) {
        ev_signal_init (&x->sig_w[i], attach_signal_cb, sigs[i]);
        x->sig_w[i].data = x;
        ev_signal_start (x->loop, &x->sig_w[i]);
    }
}

/* ---- main ---------------------------------------------------------------- */

static void attach_output (struct attach_ctx *x)
{
    struct output_cfg cfg = { .job_id = x->o->job,
                              .step_id = x->o->step,
                              .ntasks = x->ntasks,
                              .label = x->o->label };
    const int32_t f[] = { x->o->input, x->o->show.out, x->o->show.err };
    const char *names[] = { "input", "output", "error" };

    for (size_t i = 0; i < 3; i++)
        if (f[i] != ATTACH_ALL && (uint32_t)f[i] >= x->ntasks) {
            log_err ("--%s-filter=%d: step %s has %u task%s", names[i], f[i],
                     x->id, x->ntasks, x->ntasks == 1 ? "" : "s");
            exit (1);
        }
    if (!(x->out = output_create (&cfg)))
        die ("out of memory");
}

static int attach_run (struct attach_ctx *x, struct hostlist *hl)
{
    arbor_error_t err;

    attach_output (x);
    if (!(x->loop = ev_loop_new (EVFLAG_AUTO)))
        die ("cannot make an event loop");
    attach_listen (x, hostlist_count (hl));
    if (attach_nodes (x, hl) < 0)
        return 1;
    attach_signals (x);
    ev_run (x->loop, 0);
    if (output_flush (x->out, &err) < 0) {
        log_err ("%s", err.text);
        x->rc = 1;
    }
    return x->rc;
}

static void attach_free (struct attach_ctx *x)
{
    if (x->loop) {
        listener_destroy (x->listener); /* and the stepds' conns */
        while (x->peers)
            attach_peer_free (x->peers);
        if (x->stdin_started) {
            ev_io_stop (x->loop, &x->stdin_w);
            ev_timer_stop (x->loop, &x->stdin_retry);
        }
        /* Stopping a watcher puts back the default action, which would
         * kill us by a second SIGINT (timeout(1) and a terminal both
         * send one to the process and one to its group): we have
         * detached, the rest is only our exit. */
        for (size_t i = 0; i < 3; i++) {
            ev_signal_stop (x->loop, &x->sig_w[i]);
            signal (x->sig_w[i].signum, SIG_IGN);
        }
        ev_loop_destroy (x->loop);
    }
    explicit_bzero (x->key, sizeof (x->key)); /* the listener borrowed it */
    output_destroy (x->out);
    free (x->nodelist);
    proto_clear (MSG_NODE_INFO_REPLY, &x->nodes);
    client_close (&x->cl);
}

int cmd_attach_main (int argc, char **argv)
{
    struct attach_opts o = { .prog = argv[0],
                             .input = ATTACH_ALL,
                             .show = { ATTACH_ALL, ATTACH_ALL } };
    struct attach_ctx x = { .o = &o, .cl.ch.fd = -1 };
    struct hostlist *hl;
    arbor_error_t err;
    long uid;
    int rc;

    log_open (argv[0], LOG_LVL_INFO, NULL);
    attach_parse (&o, argc, argv);
    if (o.quiet)
        log_set_level (LOG_LVL_ERR);
    jobsel_id_str (o.job, o.step, x.id, sizeof (x.id));
    if (client_open (&x.cl, &err) < 0)
        attach_die (&o, "%s", err.text);
    if ((uid = conf_noded_uid (x.cl.conf)) < 0)
        die ("NodedUser %s: no such user", x.cl.conf->noded_user);
    x.noded_uid = (uid_t)uid;
    attach_find_step (&x);
    if (!(hl = hostlist_create (x.nodelist, NULL)) || hostlist_count (hl) == 0)
        die ("step %s: bad node list '%s'", x.id, x.nodelist);
    if (o.layout)
        rc = attach_layout (&x, hl) < 0 ? 1 : 0;
    else
        rc = attach_run (&x, hl);
    hostlist_destroy (hl);
    attach_free (&x);
    return rc;
}
