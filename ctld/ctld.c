/* ctld.c - arbor-ctld: the controller's main program and event loop.
 *
 *     arbor-ctld [-f CONF] [-v]...
 *
 * Runs in the foreground: loads arbor.conf, logs to CtldLogFile (stderr
 * when unset) at DebugLevel raised by each -v, listens on
 * ControlAddr:CtldPort, and serves munge-authenticated requests on one
 * libev loop (handlers in rpc.c). A housekeeping timer every CTLD_TICK
 * seconds forgets old finished jobs and gives freed heap back; a 1 s
 * timer ends jobs over their time limit (+ OverTimeLimit), sends --signal
 * warnings and resends unanswered JOB_TERMINATEs (term.c), probes nodeds
 * that stopped answering and makes them DOWN (liveness.c), and ends the
 * jobs nodes run that they should not (orphan.c). SIGTERM and SIGINT stop
 * the loop; everything is then freed in the reverse order of creation.
 *
 * Big answers (job lists) and purges free many megabytes at once; glibc
 * would keep them (its mmap threshold grows with each big free, so the
 * next big buffers come from the heap, which only shrinks from its top).
 * A fixed threshold (ctld_mem_init) keeps big buffers out of the heap,
 * and ctld_trim() returns the rest after big answers and purges.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "ctld.h"
#include "log.h"
#include "net.h"
#include "timestr.h"

static void usage (FILE *fp)
{
    fprintf (fp, "Usage: arbor-ctld [-f CONF] [-v]...\n"
                 "  -f, --conf CONF  configuration file (default %s)\n"
                 "  -v, --verbose    log more (repeatable)\n"
                 "  -h, --help       this help\n",
             conf_default_path ());
}

static void tick_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctld *ctx = w->data;
    size_t before = ctx->njobs;

    jobs_purge (ctx, time (NULL), false);
    ctld_trim ((before - ctx->njobs) * 4096);
    sched_run (ctx);
}

static void limit_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctld *ctx = w->data;
    time_t now = time (NULL);
    bool changed = term_tick (ctx, now);

    changed |= liveness_tick (ctx, now);
    changed |= orphans_tick (ctx, now);
    if (changed)
        sched_run (ctx);
}

static void signal_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    log_info ("caught signal %d, shutting down", w->signum);
    ev_break (loop, EVBREAK_ALL);
}

static int ctld_setup (struct ctld *ctx, arbor_error_t *err)
{
    long uid = conf_arbor_uid (ctx->conf);
    uint16_t port = 0;

    ctx->priv_uid = uid >= 0 ? (uid_t)uid : 0;
    ctx->next_job_id = 1;
    if (jobid_init (ctx, err) < 0
        || !(ctx->auth = auth_create (ctx->conf->munge_socket, err))
        || nodes_init (ctx, err) < 0 || parts_init (ctx, err) < 0)
        return -1;
    int fd = net_listen_tcp (ctx->conf->control_addr, ctx->conf->ctld_port,
                             &port, err);
    if (fd < 0 || clients_listen (ctx, fd) < 0) {
        if (fd >= 0)
            errprintf (err, "listener: %s", strerror (errno));
        return -1;
    }
    ev_signal_init (&ctx->sigterm_w, signal_cb, SIGTERM);
    ev_signal_init (&ctx->sigint_w, signal_cb, SIGINT);
    ev_signal_start (ctx->loop, &ctx->sigterm_w);
    ev_signal_start (ctx->loop, &ctx->sigint_w);
    ev_timer_init (&ctx->tick_w, tick_cb, CTLD_TICK, CTLD_TICK);
    ctx->tick_w.data = ctx;
    ev_timer_start (ctx->loop, &ctx->tick_w);
    ev_timer_init (&ctx->limit_w, limit_cb, 1., 1.);
    ctx->limit_w.data = ctx;
    ev_timer_start (ctx->loop, &ctx->limit_w);
    if (ctx->nnodes == 0 || ctx->nparts == 0)
        log_warn ("%s defines no %s: no job can run until it does",
                  ctx->conf->path ? ctx->conf->path : "the configuration",
                  ctx->nnodes == 0 ? "nodes (NodeName=)"
                                   : "partitions (PartitionName=)");
    log_info ("listening on %s:%u, %zu nodes, %zu partitions, cluster %s",
              ctx->conf->control_addr ? ctx->conf->control_addr : "*",
              (unsigned)port, ctx->nnodes, ctx->nparts,
              ctx->conf->cluster_name);
    return 0;
}

static void ctld_teardown (struct ctld *ctx)
{
    if (ctx->loop) {
        ev_signal_stop (ctx->loop, &ctx->sigterm_w);
        ev_signal_stop (ctx->loop, &ctx->sigint_w);
        ev_timer_stop (ctx->loop, &ctx->tick_w);
        ev_timer_stop (ctx->loop, &ctx->limit_w);
    }
    clients_fini (ctx);
    nodecomm_fini (ctx);
    jobs_purge (ctx, 0, true);
    parts_fini (ctx);
    nodes_fini (ctx);
    auth_destroy (ctx->auth);
    jobid_fini (ctx);
    conf_destroy (ctx->conf);
    if (ctx->loop)
        ev_loop_destroy (ctx->loop);
}

static int parse_args (int argc, char **argv, const char **path, int *verbose)
{
    static const struct option opts[] = {
        { "conf", required_argument, NULL, 'f' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    while ((c = getopt_long (argc, argv, "f:vh", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            *path = optarg;
            break;
        case 'v':
            (*verbose)++;
            break;
        case 'h':
            usage (stdout);
            exit (0);
        default:
            usage (stderr);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "arbor-ctld: unexpected argument '%s'\n",
                 argv[optind]);
        return -1;
    }
    return 0;
}

int main (int argc, char **argv)
{
    struct ctld ctx = { 0 };
    const char *path = NULL;
    arbor_error_t err = { "" };
    int verbose = 0, level;

    if (parse_args (argc, argv, &path, &verbose) < 0)
        return 2;
    log_open ("arbor-ctld", LOG_LVL_INFO, NULL);
    if (!(ctx.conf = conf_load (path, &err))) {
        log_err ("%s", err.text);
        return 1;
    }
    level = ctx.conf->debug_level + verbose;
    if (level > LOG_LVL_DEBUG2)
        level = LOG_LVL_DEBUG2;
    if (log_open ("arbor-ctld", level, ctx.conf->ctld_log_file) < 0)
        log_err ("cannot open %s: %s", ctx.conf->ctld_log_file,
                 strerror (errno));
    signal (SIGPIPE, SIG_IGN);
    ctld_mem_init ();
    if (!(ctx.loop = ev_default_loop (EVFLAG_AUTO))) {
        log_err ("cannot start the event loop");
        ctld_teardown (&ctx);
        return 1;
    }
    if (ctld_setup (&ctx, &err) < 0) {
        log_err ("%s", err.text);
        ctld_teardown (&ctx);
        log_close ();
        return 1;
    }
    ev_run (ctx.loop, 0);
    ctld_teardown (&ctx);
    log_info ("stopped");
    log_close ();
    return 0;
}
