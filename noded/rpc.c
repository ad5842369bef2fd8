/* rpc.c - the noded's request side: accept, authenticate, dispatch.
 *
 * Every accepted TCP connection becomes a munge-authenticated conn whose
 * frames go through rpc_dispatch() and this handler table; the role check
 * happens there, in one place (LAUNCH: any user, the credential decides;
 * STEP_KILL, JOB_TERMINATE, STEP_TERMINATE: root or ArborUser only, i.e.
 * the ctld; the last two are handled in term.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "launch.h"
#include "log.h"
#include "noded.h"
#include "revoke.h"
#include "rpc.h"
#include "stepd.h"
#include "term.h"

struct rpc_client {
    struct rpc_client *next;
    struct conn *conn;
    struct noded *nd;
};

static void rpc_launch_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg)
{
    struct rpc_client *cl = arg;

    launch_handle (cl->nd, c, f, msg);
}

static void rpc_step_kill_cb (struct conn *c, const struct frame *f,
                              void *msg, void *arg)
{
    struct rpc_client *cl = arg;
    struct noded *nd = cl->nd;
    const struct msg_step_kill *m = msg;
    char step[16] = "*";
    int count;

    if (m->step_id != STEP_ID_ALL)
        snprintf (step, sizeof (step), "%u", m->step_id);
    if (m->revoke)
        revoke_add (nd->revoked, m->job_id, m->step_id,
                    time (NULL) + (time_t)nd->conf->cred_expire);
    count = stepd_kill (nd, m->job_id, m->step_id, m->signal);
    log_verbose ("step kill %u.%s signal %d%s: %d stepd%s", m->job_id, step,
                 m->signal, m->revoke ? " (revoked)" : "", count,
                 count == 1 ? "" : "s");
    if (conn_send_rc (c, f->matchtag, 0, "%d stepd%s signalled", count,
                      count == 1 ? "" : "s") < 0)
        log_info ("step kill: cannot answer %s: %s", conn_peer (c),
                  strerror (errno));
}

static void rpc_job_terminate_cb (struct conn *c, const struct frame *f,
                                  void *msg, void *arg)
{
    struct rpc_client *cl = arg;

    term_job_handle (cl->nd, c, f, msg);
}

static void rpc_step_terminate_cb (struct conn *c, const struct frame *f,
                                   void *msg, void *arg)
{
    struct rpc_client *cl = arg;

    term_step_handle (cl->nd, c, f, msg);
}

static const struct rpc_handler rpc_handlers[] = {
    { MSG_LAUNCH, rpc_launch_cb, RPC_ANY },
    { MSG_STEP_KILL, rpc_step_kill_cb, RPC_PRIV },
    { MSG_JOB_TERMINATE, rpc_job_terminate_cb, RPC_PRIV },
    { MSG_STEP_TERMINATE, rpc_step_terminate_cb, RPC_PRIV },
    { 0, NULL, 0 },
};

static void rpc_client_free (struct rpc_client *cl)
{
    struct noded *nd = cl->nd;

    for (struct rpc_client **pp = &nd->clients; *pp; pp = &(*pp)->next) {
        if (*pp == cl) {
            *pp = cl->next;
            break;
        }
    }
    free (cl);
}

static void rpc_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct rpc_client *cl = arg;
    arbor_error_t err;

    if (f->flags & FRAME_F_RESPONSE)
        return; /* we asked nothing on this connection */
    if (rpc_dispatch (rpc_handlers, c, f, cl->nd->arbor_uid, cl, &err) < 0)
        log_security ("request from %s (uid %u) refused: %s", conn_peer (c),
                      (unsigned)f->uid, err.text);
}

static void rpc_closed_cb (struct conn *c, const arbor_error_t *err,
                           void *arg)
{
    struct rpc_client *cl = arg;

    if (conn_refused (c))
        log_security ("connection from %s refused: %s", conn_peer (c),
                      err && err->text[0] ? err->text : "protocol violation");
    else if (err && err->text[0])
        log_debug2 ("connection from %s closed: %s", conn_peer (c),
                    err->text);
    launch_conn_closed (cl->nd, c);
    rpc_client_free (cl);
}

static const struct conn_ops rpc_conn_ops = {
    .frame = rpc_frame_cb,
    .closed = rpc_closed_cb,
};

static void rpc_accept_one (struct noded *nd, int fd)
{
    struct rpc_client *cl = calloc (1, sizeof (*cl));

    if (!cl) {
        close (fd);
        return;
    }
    cl->nd = nd;
    if (!(cl->conn = conn_create (nd->loop, fd, CONN_AUTH_MUNGE, nd->auth,
                                  &rpc_conn_ops, cl))) {
        log_err ("accept: %s", strerror (errno));
        close (fd);
        free (cl);
        return;
    }
    cl->next = nd->clients;
    nd->clients = cl;
}

static void rpc_accept_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct noded *nd = w->data;
    int fd;

    for (;;) {
        fd = accept4 (w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
                && errno != ECONNABORTED)
                log_err ("accept: %s", strerror (errno));
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return;
        }
        rpc_accept_one (nd, fd);
    }
}

int noded_rpc_start (struct noded *nd)
{
    ev_io_init (&nd->listen_w, rpc_accept_cb, nd->listen_fd, EV_READ);
    nd->listen_w.data = nd;
    ev_io_start (nd->loop, &nd->listen_w);
    return 0;
}

void noded_rpc_stop (struct noded *nd)
{
    ev_io_stop (nd->loop, &nd->listen_w);
    if (nd->listen_fd >= 0) {
        close (nd->listen_fd);
        nd->listen_fd = -1;
    }
    while (nd->clients) {
        struct rpc_client *cl = nd->clients;
        nd->clients = cl->next;
        conn_destroy (cl->conn);
        free (cl);
    }
}
