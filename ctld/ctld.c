/* ctld.c - assembling arbor-ctld, and its timers.
 *
 * ctld_create() loads arbor.conf, logs to CtldLogFile (stderr
 * when unset) at DebugLevel raised by each -v, listens on
 * ControlAddr:CtldPort, and serves munge-authenticated requests on one
 * libev loop (handlers in serve.c). A housekeeping timer every CTLD_TICK
 * seconds forgets old finished jobs and gives freed heap back; a 1 s
 * timer ends jobs over their time limit (+ OverTimeLimit), sends --signal
 * warnings and resends unanswered JOB_TERMINATEs (term.c), probes nodeds
 * that stopped answering and makes them DOWN (liveness.c), and ends the
 * jobs nodes run that they should not (orphan.c). Neither timer runs the
 * scheduler: what they change requests a pass (sched.h). SIGTERM and
 * SIGINT stop the loop; everything is then freed in the reverse order of
 * creation.
 *
 * Big answers (job lists) and purges free many megabytes at once; glibc
 * would keep them (its mmap threshold grows with each big free, so the
 * next big buffers come from the heap, which only shrinks from its top).
 * A fixed threshold (ctld_mem_init) keeps big buffers out of the heap,
 * and ctld_trim() returns the rest after big answers and purges.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "acct/acct.h"
#include "auth.h"
#include "authpool.h"
#include "conf.h"
#include "sched/cpulimits.h"
#include "sched/loadsel.h"
#include "ctld.h"
#include "assoc/policy.h"
#include "error.h"
#include "serve/info.h"
#include "job/job.h"
#include "job/jobstart.h"
#include "sched/licenses.h"
#include "job/jobid.h"
#include "nodes/liveness.h"
#include "notify/mail.h"
#include "log.h"
#include "net.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"
#include "nodes/orphan.h"
#include "nodes/part.h"
#include "reconfigure.h"
#include "state/persist.h"
#include "state/persist_restore.h"
#include "sched/prio.h"
#include "peers.h"
#include "sched/sched.h"
#include "serve/serve.h"
#include "ident.h"
#include "credkey.h"
#include "notify/wait.h"
#include "sched/when.h"
#include "job/term.h"
#include "notify/trigger.h"
#include "notify/trigger_event.h"
#include "timestr.h"
#include "sched/sched_wake.h"
#include "job/submit.h"

static void tick_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctld *ctx = w->data;
    size_t before = ctx->njobs;

    jobs_purge (ctx, time (NULL), false);
    ctld_trim ((before - ctx->njobs) * 4096);
}

static void limit_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctld *ctx = w->data;
    time_t now = time (NULL);

    mail_tick (ctx, now); /* before term_tick: "Reached time limit" first */
    (void)term_tick (ctx, now);
    when_tick (ctx, now);
    (void)liveness_tick (ctx, now);
    (void)orphans_tick (ctx, now);
    trigger_tick (ctx, now); /* after what changes node and job states */
    persist_tick (ctx, now);
}

static void signal_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    log_info ("caught signal %d, shutting down", w->signum);
    ev_break (loop, EVBREAK_ALL);
}

/* SIGHUP: open the log file again (logrotate moved it) and read the
 * CPU-hour limits again, as scontrol reconfigure. */
static void sighup_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    arbor_error_t err;

    if (log_reopen () < 0)
        log_err ("cannot reopen the log file: %s", strerror (errno));
    log_info ("caught SIGHUP: log reopened, reconfiguring");
    (void)ctld_reconfigure (w->data, &err);
}

/* The state: modules, job ids, nodes and partitions. */
static int ctld_state_init (struct ctld *ctx, unsigned flags,
                            arbor_error_t *err)
{
    long uid = conf_arbor_uid (ctx->conf);
    long nuid = conf_noded_uid (ctx->conf);

    ctx->priv_uid = uid >= 0 ? (uid_t)uid : 0;
    if (nuid < 0)
        return errprintf (err, "NodedUser %s: no such user",
                          ctx->conf->noded_user);
    ctx->noded_uid = (uid_t)nuid;
    if (!(ctx->sched = sched_create (ctx))
        || !(ctx->nodecomm = nodecomm_create ())
        || !(ctx->waits = waits_create ())
        || !(ctx->idents = ident_cache_create ())
        || !(ctx->mail = mailer_create ())
        || !(ctx->triggers = triggers_create ())) {
        return errprintf (err, "out of memory");
    }
    jobstart_init (ctx); /* what the scheduler decides, carried out */
    if (!(ctx->jobid = jobid_create (
              (flags & CTLD_STATE_VOLATILE) ? NULL : ctx->conf, err))
        || nodes_init (ctx, err) < 0 || parts_init (ctx, err) < 0)
        return -1;
    if (prio_configure (ctx, err) < 0 || loadsel_configure (ctx, err) < 0
        || sched_configure (ctx, err) < 0 || cpulimits_reload (ctx, err) < 0
        || licenses_configure (ctx, err) < 0)
        return -1;
    if (flags & CTLD_STATE_VOLATILE)
        return policy_open (ctx, err) < 0
                       || !(ctx->credkey = credkey_create (ctx, NULL, err))
                   ? -1
                   : 0;
    if (acct_open (ctx, err) < 0 || policy_open (ctx, err) < 0
        || persist_open (ctx, flags & CTLD_STATE_CLEAR, err) < 0
        || !(ctx->credkey =
                 credkey_create (ctx, ctx->conf->state_save_location, err)))
        return -1;
    acct_restored (ctx);
    return 0;
}

/* The transport and the clock: munge, the listener, signals, timers. */
static int ctld_serve_init (struct ctld *ctx, arbor_error_t *err)
{
    uint16_t port = 0;

    if (!(ctx->auth = auth_create (ctx->conf->munge_socket, err))
        || !(ctx->pool =
                 auth_pool_create (ctx->loop, ctx->conf->munge_socket, 0, err)))
        return -1;
    if (!(ctx->peers = peers_create (ctx->loop, ctx->pool, NULL)))
        return errprintf (err, "out of memory");
    net_raise_nofile ();
    int fd = net_listen_tcp (ctx->conf->control_addr, ctx->conf->ctld_port,
                             &port, err);
    if (fd < 0 || !(ctx->serve = serve_create (ctx, fd))) {
        if (fd >= 0)
            errprintf (err, "listener: %s", strerror (errno));
        return -1;
    }
    ev_signal_init (&ctx->sigterm_w, signal_cb, SIGTERM);
    ev_signal_init (&ctx->sigint_w, signal_cb, SIGINT);
    ev_signal_start (ctx->loop, &ctx->sigterm_w);
    ev_signal_start (ctx->loop, &ctx->sigint_w);
    ev_signal_init (&ctx->sighup_w, sighup_cb, SIGHUP);
    ctx->sighup_w.data = ctx;
    ev_signal_start (ctx->loop, &ctx->sighup_w);
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

struct ctld *ctld_create_state (struct conf *conf, struct ev_loop *loop,
                                unsigned flags, arbor_error_t *err)
{
    struct ctld *ctx = calloc (1, sizeof (*ctx));

    if (!ctx) {
        conf_destroy (conf);
        errprintf (err, "out of memory");
        return NULL;
    }
    ctx->conf = conf;
    ctx->loop = loop;
    if (ctld_state_init (ctx, flags, err) < 0) {
        ctld_destroy (ctx);
        return NULL;
    }
    return ctx;
}

void ctld_destroy (struct ctld *ctx)
{
    int saved = errno;

    if (!ctx)
        return;
    if (ctx->loop) {
        ev_signal_stop (ctx->loop, &ctx->sigterm_w);
        ev_signal_stop (ctx->loop, &ctx->sigint_w);
        ev_signal_stop (ctx->loop, &ctx->sighup_w);
        ev_timer_stop (ctx->loop, &ctx->tick_w);
        ev_timer_stop (ctx->loop, &ctx->limit_w);
    }
    sched_stop (ctx->sched); /* the backfill worker borrows the nodes */
    persist_close (ctx);     /* before the jobs go: they stay recorded */
    policy_close (ctx);
    acct_close (ctx);
    cpulimits_free (ctx->limits);
    prio_fini (ctx);
    serve_destroy (ctx->serve);
    credkey_destroy (ctx->credkey);
    waits_destroy (ctx->waits);
    triggers_destroy (ctx->triggers);
    mailer_destroy (ctx->mail);
    ident_cache_destroy (ctx->idents);
    nodecomm_destroy (ctx->nodecomm);
    ctx->nodecomm = NULL;
    jobs_purge (ctx, 0, true);
    licenses_destroy (ctx->licenses);
    free (ctx->job_buckets);
    parts_fini (ctx);
    nodes_fini (ctx);
    sched_destroy (ctx->sched);
    peers_destroy (ctx->peers);
    auth_pool_destroy (ctx->pool);
    auth_destroy (ctx->auth);
    jobid_destroy (ctx->jobid);
    conf_destroy (ctx->conf);
    if (ctx->loop)
        ev_loop_destroy (ctx->loop);
    free (ctx);
    errno = saved;
}

/* The configuration's log file and level (DebugLevel + verbose). */
static void ctld_open_log (const struct conf *conf, int verbose)
{
    int level = conf->debug_level + verbose;

    if (level > LOG_LVL_DEBUG2)
        level = LOG_LVL_DEBUG2;
    if (log_open ("arbor-ctld", level, conf->ctld_log_file) < 0)
        log_err ("cannot open %s: %s", conf->ctld_log_file, strerror (errno));
}

struct ctld *ctld_create (const char *conf_path, int verbose, bool clear,
                          arbor_error_t *err)
{
    struct ev_loop *loop;
    struct conf *conf;
    struct ctld *ctx;

    if (!(conf = conf_load (conf_path, err)))
        return NULL;
    ctld_open_log (conf, verbose);
    ctld_mem_init ();
    if (!(loop = ev_default_loop (EVFLAG_AUTO))) {
        conf_destroy (conf);
        errprintf (err, "cannot start the event loop");
        return NULL;
    }
    if (!(ctx = ctld_create_state (conf, loop, clear ? CTLD_STATE_CLEAR : 0,
                                   err)))
        return NULL;
    if (ctld_serve_init (ctx, err) < 0) {
        ctld_destroy (ctx);
        return NULL;
    }
    persist_resume (ctx);
    trigger_start (ctx, time (NULL));
    /* Nodes register every 30 s; a restarted controller (its jobs
     * restored) wants them known now. */
    nodecomm_reregister_all (ctx, "controller started");
    return ctx;
}

void ctld_run (struct ctld *ctx)
{
    ev_run (ctx->loop, 0);
}
