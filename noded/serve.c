/* serve.c - the noded's request side: accept, authenticate, dispatch.
 *
 * Every accepted TCP connection becomes a munge-authenticated conn whose
 * frames go through rpc_dispatch() and this handler table; the role check
 * happens there, in one place (LAUNCH: any user, the credential decides;
 * STEP_KILL, JOB_TERMINATE, STEP_TERMINATE: root or ArborUser only, i.e.
 * the ctld; the last two are handled in term.c; STEP_STAT, STEP_ATTACH:
 * any user, stepd_ask.c checks the step's owner). The file is serve.c, and
 * its names serve_*, so that rpc_* stays common/wire/rpc.h's API. The
 * listener (common/wire/listen.h) owns the accepted conns, each with the noded
 * as its arg; serve_stop() closes them all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bcast.h"
#include "bcast_gather.h"
#include "bcast_serve.h"
#include "conn.h"
#include "cred.h"
#include "credkey_held.h"
#include "launch.h"
#include "listen.h"
#include "log.h"
#include "noded_base.h"
#include "prolog.h"
#include "register.h"
#include "revoke.h"
#include "rpc.h"
#include "serve.h"
#include "stepd_ask.h"
#include "stepd_attach.h"
#include "stepd_mesh.h"
#include "stepd_stat.h"
#include "stepd_track.h"
#include "term.h"

static void serve_launch_cb (struct conn *c, const struct frame *f, void *msg,
                             void *arg)
{
    struct noded *nd = arg;

    launch_handle (nd, c, f, msg);
}

static void serve_step_kill_cb (struct conn *c, const struct frame *f,
                                void *msg, void *arg)
{
    struct noded *nd = arg;
    const struct msg_step_kill *m = msg;
    char step[16] = "*";
    int count;

    if (m->step_id != STEP_ID_ALL)
        snprintf (step, sizeof (step), "%u", m->step_id);
    if (m->revoke)
        revoke_add (nd->revoked, m->job_id, m->restarts, m->step_id,
                    time (NULL) + (time_t)nd->conf->cred_expire);
    count = stepd_kill (nd, m->job_id, m->step_id, m->signal);
    log_verbose ("step kill %u.%s signal %d%s: %d stepd%s", m->job_id, step,
                 m->signal, m->revoke ? " (revoked)" : "", count,
                 count == 1 ? "" : "s");
    if (conn_send_rc (c, f->matchtag, 0, "%d stepd%s signalled", count,
                      count == 1 ? "" : "s")
        < 0)
        log_info ("step kill: cannot answer %s: %s", conn_peer (c),
                  strerror (errno));
}

static void serve_job_terminate_cb (struct conn *c, const struct frame *f,
                                    void *msg, void *arg)
{
    struct noded *nd = arg;

    term_job_handle (nd, c, f, msg);
}

static void serve_step_terminate_cb (struct conn *c, const struct frame *f,
                                     void *msg, void *arg)
{
    struct noded *nd = arg;

    term_step_handle (nd, c, f, msg);
}

static void serve_job_prolog_cb (struct conn *c, const struct frame *f,
                                 void *msg, void *arg)
{
    prolog_handle (arg, c, f, msg);
}

/* Role checked in stepd_mesh_deliver: nodeds run as NodedUser. */
static void serve_step_mesh_cb (struct conn *c, const struct frame *f,
                                void *msg, void *arg)
{
    stepd_mesh_deliver (arg, c, f, msg);
}

static void serve_reregister_cb (struct conn *c, const struct frame *f,
                                 void *msg, void *arg)
{
    struct noded *nd = arg;

    log_verbose ("the controller asks us to register (%s)",
                 ((struct msg_node_reregister *)msg)->reason
                     ? ((struct msg_node_reregister *)msg)->reason
                     : "");
    reg_now (nd->reg);
    conn_send_rc (c, f->matchtag, 0, "%s", "");
}

static void serve_cred_key_cb (struct conn *c, const struct frame *f, void *msg,
                               void *arg)
{
    credkey_handle (arg, c, f, msg);
}

/* Role checked in stepd_ask_relay: the step's owner, root, ArborUser. */
static void serve_step_stat_cb (struct conn *c, const struct frame *f,
                                void *msg, void *arg)
{
    stepd_stat_handle (arg, c, f, msg);
}

/* Role checked in stepd_ask_relay: the step's owner, root, ArborUser. */
static void serve_step_attach_cb (struct conn *c, const struct frame *f,
                                  void *msg, void *arg)
{
    stepd_attach_handle (arg, c, f, msg);
}

/* sbcast, sgather: the broadcast credential decides (bcast_cred.h). */
static void serve_bcast_block_cb (struct conn *c, const struct frame *f,
                                  void *msg, void *arg)
{
    bcast_block_handle (arg, c, f, msg);
}

static void serve_gather_read_cb (struct conn *c, const struct frame *f,
                                  void *msg, void *arg)
{
    gather_read_handle (arg, c, f, msg);
}

/* Launchers' sessions whose ticket waits for the credential key (a node
 * just registered: the key follows in CRED_KEY). */
static void waiter_add (struct noded *nd, struct conn *c)
{
    struct conn **w;

    for (size_t i = 0; i < nd->nticket_waiters; i++)
        if (nd->ticket_waiters[i] == c)
            return;
    w = realloc (nd->ticket_waiters, (nd->nticket_waiters + 1) * sizeof (*w));
    if (!w)
        return; /* not retried: the listener's timeout closes it */
    nd->ticket_waiters = w;
    nd->ticket_waiters[nd->nticket_waiters++] = c;
}

static void waiter_remove (struct noded *nd, struct conn *c)
{
    for (size_t i = 0; i < nd->nticket_waiters; i++)
        if (nd->ticket_waiters[i] == c) {
            nd->ticket_waiters[i] = nd->ticket_waiters[--nd->nticket_waiters];
            return;
        }
}

void serve_key_arrived (struct noded *nd)
{
    struct conn **w = nd->ticket_waiters;
    size_t n = nd->nticket_waiters;

    /* Each retry may close its conn (and remove it): work on the list as
     * it was, forgotten first. */
    nd->ticket_waiters = NULL;
    nd->nticket_waiters = 0;
    for (size_t i = 0; i < n; i++)
        conn_ticket_retry (w[i]);
    free (w);
}

static const struct rpc_handler serve_handlers[] = {
    { MSG_LAUNCH, serve_launch_cb, RPC_ANY },
    { MSG_STEP_KILL, serve_step_kill_cb, RPC_PRIV },
    { MSG_JOB_TERMINATE, serve_job_terminate_cb, RPC_PRIV },
    { MSG_STEP_TERMINATE, serve_step_terminate_cb, RPC_PRIV },
    { MSG_JOB_PROLOG, serve_job_prolog_cb, RPC_PRIV },
    { MSG_NODE_REREGISTER, serve_reregister_cb, RPC_PRIV },
    { MSG_CRED_KEY, serve_cred_key_cb, RPC_PRIV },
    { MSG_STEP_MESH, serve_step_mesh_cb, RPC_ANY },
    { MSG_STEP_STAT, serve_step_stat_cb, RPC_ANY },
    { MSG_STEP_ATTACH, serve_step_attach_cb, RPC_ANY },
    { MSG_BCAST_BLOCK, serve_bcast_block_cb, RPC_ANY },
    { MSG_GATHER_READ, serve_gather_read_cb, RPC_ANY },
    { 0, NULL, 0 },
};

static void serve_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct noded *nd = arg;
    arbor_error_t err;
    uint32_t job, step;

    if (f->flags & FRAME_F_RESPONSE)
        return; /* we asked nothing on this connection */
    if (conn_step_scope (c, &job, &step) && f->type != MSG_LAUNCH) {
        log_security ("request from %s (uid %u) refused: %s on a connection "
                      "opened with the launch ticket of step %u.%u",
                      conn_peer (c), (unsigned)f->uid,
                      proto_msg_name (f->type) ? proto_msg_name (f->type)
                                               : "an unknown request",
                      job, step);
        conn_send_rc (c, f->matchtag, EPERM,
                      "a connection opened with a launch ticket may only "
                      "launch its step");
        return;
    }
    if (rpc_dispatch (serve_handlers, c, f, nd->arbor_uid, nd, &err) < 0)
        log_security ("request from %s (uid %u) refused: %s", conn_peer (c),
                      (unsigned)f->uid, err.text);
}

static void serve_closed_cb (struct conn *c, const arbor_error_t *err,
                             void *arg)
{
    struct noded *nd = arg;

    if (conn_refused (c))
        log_security ("connection from %s refused: %s", conn_peer (c),
                      err && err->text[0] ? err->text : "protocol violation");
    else if (err && err->text[0])
        log_debug2 ("connection from %s closed: %s", conn_peer (c), err->text);
    waiter_remove (nd, c);
    launch_conn_closed (nd, c);
    prolog_conn_closed (nd, c);
    stepd_ask_conn_closed (nd, c);
    bcast_conn_closed (nd, c);
}

static const struct conn_ops serve_conn_ops = {
    .frame = serve_frame_cb,
    .closed = serve_closed_cb,
};

static void serve_refused_cb (struct listener *l, const char *peer,
                              const char *why, void *arg)
{
    log_security ("connection from %s refused: %s", *peer ? peer : "?", why);
}

static const struct listen_ops serve_listen_ops = {
    .refused = serve_refused_cb,
};

/* A launcher's launch ticket (conn.h): a credential for this node under
 * the key the controller gave us, not expired. Without the key yet, the
 * session waits for it (EAGAIN). */
static int serve_open_ticket (struct conn *c, const char *ticket,
                              struct conn_ticket *t, arbor_error_t *err,
                              void *arg)
{
    struct noded *nd = arg;
    const struct cred_key *key = credkey_held (nd);
    struct msg_cred_claims cl;
    arbor_error_t why;
    int rc = 0;

    if (!key) {
        waiter_add (nd, c);
        errprintf (err, "launch ticket: no credential key yet");
        errno = EAGAIN;
        return -1;
    }
    errno = EPERM;
    if (cred_open (key, ticket, nd->conf->cluster_name, nd->name, time (NULL),
                   &cl, &why)
        < 0)
        return errprintf (err, "launch ticket: %s", why.text);
    if (!cl.io_key || strlen (cl.io_key) >= sizeof (t->io_key)) {
        errno = EPERM;
        rc = errprintf (err, "launch ticket without a usable I/O key");
    } else {
        t->job_id = cl.job_id;
        t->step_id = cl.step_id;
        t->uid = (uid_t)cl.uid;
        t->gid = (gid_t)cl.gid;
        snprintf (t->io_key, sizeof (t->io_key), "%s", cl.io_key);
    }
    proto_clear (MSG_CRED_CLAIMS, &cl);
    return rc;
}

int serve_start (struct noded *nd)
{
    struct conn_auth a = { .mode = CONN_AUTH_MUNGE,
                           .pool = nd->pool,
                           .open_ticket = serve_open_ticket,
                           .ticket_arg = nd };

    /* Users reach a noded only with launch tickets, one connection per
     * step they launch on this node zero: no per-uid cap below the shared
     * budget (a batch script may start hundreds of steps here), but the
     * reserve keeps the ctld's and the other nodeds' connections (root,
     * ArborUser) coming in when users have used that budget. */
    struct listen_limits lim = {
        .max_uid_sessions = LISTEN_MAX_CONNS,
        .max_addr_sessions = LISTEN_MAX_CONNS,
        .priv_uid = nd->arbor_uid,
        .name = "arbor-noded",
    };

    nd->listener = listener_create (nd->loop, nd->listen_fd, &a, &lim,
                                    &serve_conn_ops, &serve_listen_ops, nd);
    if (!nd->listener)
        return -1;
    nd->listen_fd = -1; /* the listener's now */
    return 0;
}

void serve_stop (struct noded *nd)
{
    listener_destroy (nd->listener);
    nd->listener = NULL;
    free (nd->ticket_waiters); /* their conns went with the listener */
    nd->ticket_waiters = NULL;
    nd->nticket_waiters = 0;
    if (nd->listen_fd >= 0) {
        close (nd->listen_fd);
        nd->listen_fd = -1;
    }
}
