/* stepd.c - arbor-stepd: one per step per node, runs that node's tasks.
 *
 *     arbor-stepd -f CONF -n NODE [-v]...
 *
 * Started by arbor-noded only, with fd 0 a socketpair to it. The story:
 * load the configuration, read STEPD_INIT (what to run, identity from the
 * verified credential) from fd 0, then a chain of stages: validate, listen
 * on the step socket <spool>/stepd.<job>.<step>.sock (STEP_SIGNAL and
 * STEPD_TERMINATE from root/ArborUser, sock.c), create the step's
 * container (contain.c), connect the I/O back to the launcher, fork the
 * tasks; answer STEPD_LAUNCHED. The loop then runs until lifecycle.c says
 * the step is over: every task has exited, its output is drained, the
 * container is empty and removed, the connections are flushed and the
 * node's share of the step is reported with STEP_COMPLETE, to the noded
 * over fd 0, which relays it to the controller (report.c). The stepd exits
 * 0 (1 if it never got a STEPD_INIT). The stepd outlives a noded restart:
 * losing fd 0 after STEPD_INIT is not an error; the next noded attaches
 * through the step socket (STEPD_ATTACH, sock.c).
 *
 * The stepd stays root (it needs to be, to manage the container and
 * signal the tasks); only the tasks drop to the job's identity
 * (tasks.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "authpool.h"
#include "peers.h"
#include "task_env.h"
#include "hostlist.h"
#include "log.h"
#include "multiprog.h"
#include "place.h"
#include "base.h"
#include "batch.h"
#include "contain.h"
#include "gpus.h"
#include "gres_step.h"
#include "driver.h"
#include "io.h"
#include "kill.h"
#include "lifecycle.h"
#include "noded_link.h"
#include "reap.h"
#include "report.h"
#include "sock.h"
#include "step_mpi.h"
#include "stepd.h"
#include "task_epilog.h"
#include "tasks.h"

/* SIGTERM/SIGINT to the stepd ends the tasks (then the stepd, normally)
 * rather than orphaning them. */
static void stepd_sig_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    struct stepd *sd = w->data;

    log_info ("got signal %d: passing it to the tasks", w->signum);
    if (!sd->have_init)
        ev_break (loop, EVBREAK_ALL);
    stepd_signal_tasks (sd, w->signum);
}

static void stepd_exit_cb (struct ev_loop *loop, ev_prepare *w, int revents)
{
    tasks_flush_exits (w->data);
}

/* ---- STEPD_INIT ------------------------------------------------------ */

/* The layout must name this node and at least one program. */
static int stepd_validate (struct stepd *sd, arbor_error_t *err)
{
    const struct msg_stepd_init *in = &sd->init;
    struct hostlist *hl;
    const char *name;
    int rc = 0;

    errno = EINVAL;
    if (in->argv_count == 0 || !in->argv[0] || !*in->argv[0])
        return errprintf (err, "STEPD_INIT: no command to run");
    if (in->node_id >= in->tasks_count)
        return errprintf (err,
                          "STEPD_INIT: node_id %u outside the %u-node "
                          "step",
                          in->node_id, in->tasks_count);
    if (in->step_id == STEP_ID_BATCH
        && (in->script_len == 0 || in->tasks_count != 1 || in->tasks[0] != 1))
        return errprintf (err, "STEPD_INIT: batch step without a script or "
                               "with more than one task");
    if (in->step_id == STEP_ID_EXTERN && in->tasks[in->node_id] != 0)
        return errprintf (err, "STEPD_INIT: extern step with tasks");
    if (stepd_has_launcher (sd)
        && (!in->io_host || !*in->io_host || in->io_port == 0
            || in->io_port > 65535))
        return errprintf (err, "STEPD_INIT: no valid I/O address");
    if (getuid () != 0 && in->uid != getuid ()) {
        errno = EPERM;
        return errprintf (err,
                          "cannot run tasks as uid %u: arbor-stepd is "
                          "not running as root",
                          in->uid);
    }
    if (!(hl = hostlist_create (in->step_nodelist, err)))
        return errprintf (err, "STEPD_INIT: bad step node list");
    name = hostlist_nth (hl, in->node_id);
    if (!name || strcmp (name, sd->node) != 0)
        rc = errprintf (err, "STEPD_INIT: step node %u is %s, not %s",
                        in->node_id, name ? name : "missing", sd->node);
    hostlist_destroy (hl);
    errno = EINVAL;
    if (rc < 0)
        return -1;
    sd->nlocal = in->tasks[in->node_id];
    return 0;
}

/* Which ranks run here (srun -m) and, with --multi-prog, what each
 * runs: the launcher checked both, but a bad STEPD_INIT fails here, before
 * anything starts. */
static int stepd_place (struct stepd *sd, arbor_error_t *err)
{
    const struct msg_stepd_init *in = &sd->init;
    uint32_t total = layout_total (in->tasks, in->tasks_count);
    arbor_error_t why;

    if (place_ranks (in->distribution, in->tasks, in->tasks_count,
                     in->task_nodes, in->task_nodes_count, &sd->ranks, &why)
        < 0)
        return errprintf (err, "STEPD_INIT: %s", why.text);
    sd->local_ranks =
        sd->ranks
            ? sd->ranks
                  + layout_first_rank (in->tasks, in->tasks_count, in->node_id)
            : NULL;
    if (in->multi_prog_len == 0 || in->step_id == STEP_ID_BATCH)
        return 0;
    if (!(sd->multi_prog = multiprog_parse (in->multi_prog, in->multi_prog_len,
                                            total, &why)))
        return errprintf (err, "--multi-prog: %s", why.text);
    return 0;
}

static void stepd_relog (struct stepd *sd)
{
    char ident[128];
    char *path = sd->conf->noded_log_file
                     ? conf_expand (sd->conf->noded_log_file, sd->node)
                     : NULL;
    int level = log_get_level ();

    snprintf (ident, sizeof (ident), "arbor-stepd[%s %u.%u]", sd->node,
              sd->init.job_id, sd->init.step_id);
    log_close ();
    log_open (ident, level, path);
    free (path);
}

/* ConstrainDevices: the node's device files the step does not hold are
 * denied to its container (contain.h), before any task is in it. */
static int stepd_constrain (struct stepd *sd, arbor_error_t *err)
{
    char **deny;
    size_t n;
    int rc;

    if (!sd->conf->constrain_devices)
        return 0;
    if (gres_step_deny (&sd->init, &deny, &n, err) < 0)
        return -1;
    rc = contain_devices (sd, deny, n, err);
    free (deny);
    return rc;
}

/* Run the launch chain and answer STEPD_LAUNCHED. */
static void stepd_launch (struct stepd *sd)
{
    struct msg_stepd_launched m = { 0, "" };
    arbor_error_t err = { "" };

    stepd_relog (sd);
    log_debug (
        "init: uid %u, %u task(s), distribution %s, I/O %s:%u", sd->init.uid,
        sd->init.tasks_count > sd->init.node_id
            ? sd->init.tasks[sd->init.node_id]
            : 0,
        sd->init.distribution && *sd->init.distribution ? sd->init.distribution
                                                        : "block",
        sd->init.io_host ? sd->init.io_host : "", sd->init.io_port);
    if (stepd_validate (sd, &err) < 0 || stepd_place (sd, &err) < 0
        || tasks_check (sd, &err) < 0 || sock_listen (sd, &err) < 0
        || contain_create (sd, &err) < 0 || stepd_constrain (sd, &err) < 0
        || batch_prepare (sd, &err) < 0 || io_connect (sd, &err) < 0
        || mpi_prepare (sd, &err) < 0 || tasks_start (sd, &err) < 0) {
        m.errnum = errno ? errno : EIO;
        m.text = err.text;
        sd->rc = sd->rc ? sd->rc : 1;
        log_err ("launch failed: %s", err.text);
    } else
        log_verbose ("launched %u task(s)", sd->nlocal);
    if (sd->noded
        && conn_send (sd->noded, MSG_STEPD_LAUNCHED, sd->init_tag,
                      FRAME_F_RESPONSE, &m)
               < 0)
        log_err ("send STEPD_LAUNCHED: %s", strerror (errno));
}

static void noded_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct stepd *sd = arg;
    arbor_error_t err = { "" };

    if (!stepd_is_priv (sd, f->uid) && f->uid != geteuid ()) {
        log_security ("fd 0: frame from uid %lu refused",
                      (unsigned long)f->uid);
        return;
    }
    if (noded_link_frame (sd, c, f))
        return;
    if (f->type != MSG_STEPD_INIT || sd->have_init) {
        log_warn ("fd 0: unexpected %s",
                  proto_msg_name (f->type) ? proto_msg_name (f->type) : "?");
        return;
    }
    if (proto_decode (MSG_STEPD_INIT, f->body, f->body_len, &sd->init, &err)
        < 0) {
        struct msg_stepd_launched m = { EPROTO, err.text };
        log_err ("STEPD_INIT: %s", err.text);
        conn_send (c, MSG_STEPD_LAUNCHED, f->matchtag, FRAME_F_RESPONSE, &m);
        conn_close_after_flush (c); /* closed_cb aborts the step */
        return;
    }
    sd->have_init = true;
    sd->init_tag = f->matchtag; /* STEPD_LAUNCHED answers it */
    stepd_launch (sd);
}

static void noded_closed_cb (struct conn *c, const arbor_error_t *err,
                             void *arg)
{
    struct stepd *sd = arg;

    if (sd->noded == c)
        sd->noded = NULL;
    if (!sd->have_init) {
        log_err ("fd 0 closed without a valid STEPD_INIT (%s)",
                 err && err->text[0] ? err->text : "eof");
        life_abort (sd);
    } else if (!sd->finishing)
        log_debug ("noded connection closed");
}

static const struct conn_ops noded_ops = {
    .frame = noded_frame_cb,
    .closed = noded_closed_cb,
};

/* ---- assembly ---------------------------------------------------------- */

/* Configuration and log, as the node's log file says. */
static int stepd_open_log (struct stepd *sd, int verbose, arbor_error_t *err)
{
    char ident[128];
    char *log_path;

    sd->arbor_uid = conf_arbor_uid (sd->conf);
    snprintf (ident, sizeof (ident), "arbor-stepd[%s]", sd->node);
    log_path = sd->conf->noded_log_file
                   ? conf_expand (sd->conf->noded_log_file, sd->node)
                   : NULL;
    if (log_open (ident, sd->conf->noded_debug_level + verbose, log_path) < 0)
        fprintf (stderr, "arbor-stepd: cannot open log %s: %s\n", log_path,
                 strerror (errno));
    free (log_path);
    return 0;
}

static int stepd_watchers_init (struct stepd *sd)
{
    if (life_init (sd) < 0 || kill_init (sd) < 0)
        return -1;
    ev_prepare_init (&sd->exit_w, stepd_exit_cb);
    sd->exit_w.data = sd;
    io_init (sd);
    ev_signal_init (&sd->sig_w[0], stepd_sig_cb, SIGTERM);
    ev_signal_init (&sd->sig_w[1], stepd_sig_cb, SIGINT);
    for (int i = 0; i < 2; i++) {
        sd->sig_w[i].data = sd;
        ev_signal_start (sd->loop, &sd->sig_w[i]);
        ev_unref (sd->loop); /* signal watchers do not keep the loop alive */
    }
    reap_start (sd); /* before any task exists (reap.c) */
    return 0;
}

struct stepd *stepd_load (const char *conf_path, const char *node, int verbose,
                          arbor_error_t *err)
{
    struct stepd *sd = calloc (1, sizeof (*sd));

    if (!sd) {
        errprintf (err, "out of memory");
        return NULL;
    }
    sd->node = node;
    sd->listen_fd = -1;
    if (!(sd->conf = conf_load (conf_path, err))
        || stepd_open_log (sd, verbose, err) < 0)
        goto fail;
    sd->nests = conf_node_nests (sd->conf, node);
    if (contain_init (sd) < 0) {
        errprintf (err, "out of memory");
        goto fail;
    }
    contain_preload (sd);
    return sd;
fail:
    stepd_destroy (sd);
    return NULL;
}

/* The loop is a new one, not libev's default loop: that one reaps every
 * child in its own SIGCHLD handler and loses what the tasks used (reap.c
 * reaps them with wait4 instead). */
int stepd_start (struct stepd *sd, int noded_fd, arbor_error_t *err)
{
    if (!(sd->loop = ev_loop_new (EVFLAG_AUTO)))
        return errprintf (err, "cannot start the event loop");
    if (!(sd->pool =
              auth_pool_create (sd->loop, sd->conf->munge_socket, 1, err)))
        return -1;
    if (!(sd->kept = peers_create (sd->loop, sd->pool, NULL))
        || stepd_watchers_init (sd) < 0)
        return errprintf (err, "out of memory");
    if (!(sd->noded = conn_create_unix (sd->loop, noded_fd, &noded_ops, sd)))
        return errprintf (err, "fd %d: %s", noded_fd, strerror (errno));
    return 0;
}

int stepd_run (struct stepd *sd)
{
    ev_run (sd->loop, 0); /* until lifecycle.c says the step is over */
    return sd->have_init ? 0 : 1;
}

void stepd_destroy (struct stepd *sd)
{
    int saved = errno;

    if (!sd)
        return;
    if (sd->loop) {
        report_cancel (sd);
        life_fini (sd);
        kill_free (sd);
        sock_unlisten (sd);
        sock_close_peers (sd);
        ev_prepare_stop (sd->loop, &sd->exit_w);
        for (int i = 0; i < 2; i++) {
            if (!ev_is_active (&sd->sig_w[i]))
                continue;
            ev_ref (sd->loop);
            ev_signal_stop (sd->loop, &sd->sig_w[i]);
        }
        reap_stop (sd);
    }
    mpi_free (sd);
    batch_finish (sd);
    for (size_t i = 0; i < sizeof (sd->mpi_loaded) / sizeof (sd->mpi_loaded[0]);
         i++)
        plugin_release (sd->mpi_loaded[i]); /* mapped until the exit */
    conn_destroy (sd->noded);
    conn_destroy (sd->io);
    epilog_fini (sd);
    tasks_destroy (sd);
    contain_destroy (sd);
    contain_free (sd);
    proto_clear (MSG_STEPD_INIT, &sd->init);
    free (sd->ranks);
    multiprog_destroy (sd->multi_prog);
    cpubind_clear (&sd->cpubind);
    gpus_free (sd);
    free (sd->bind_masks);
    peers_destroy (sd->kept);
    auth_pool_destroy (sd->pool);
    if (sd->loop)
        ev_loop_destroy (sd->loop); /* its watchers are all stopped */
    conf_destroy (sd->conf);
    free (sd->sock_path);
    free (sd);
    errno = saved;
}
