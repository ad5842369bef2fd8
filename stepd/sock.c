/* sock.c - the step socket, <spool>/stepd.<job>.<step>.sock (mode 0600).
 *
 * Root and ArborUser (SO_PEERCRED) may send, answered with RC:
 *   STEP_SIGNAL       signal every process of the step (the container);
 *   STEPD_TERMINATE   the termination sequence (kill.c), answered once the
 *                     container is empty, or ETIME when it cannot be
 *                     emptied; the connection is kept until then.
 *   STEPD_ATTACH      a noded started after us (the one that spawned us
 *                     is gone, and fd 0 with it) takes us over: this
 *                     connection becomes sd->noded, where the step's
 *                     STEP_COMPLETE goes (report.c). It leaves the list
 *                     of peers, so the end of the step does not close it
 *                     before the report; the latest noded to attach wins.
 *   STEPD_ADOPT       (the extern step only) move a login's process into
 *                     the container (pam_arbor_adopt); refused once the
 *                     step is ending, so nothing joins a dying job.
 *   STEP_STAT         what the tasks use now (stat.c), answered with
 *                     STEP_STAT_REPLY; the noded relays it for sstat.
 *   STEP_ATTACH       a client joins the tasks' I/O (attach.c), answered
 *                     once connected to it; the noded relays it for
 *                     sattach.
 * Open connections are tracked so that a closing one drops its pending
 * requests and answers still queued at exit are flushed (sock_flush).
 * The attached clients end with them: sock_npeers counts them, so the
 * step's end waits (bounded) for their output to be flushed too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "naming.h"
#include "net.h"
#include "rpc.h"
#include "attach.h"
#include "base.h"
#include "contain.h"
#include "kill.h"
#include "noded_link.h"
#include "sock.h"
#include "stat.h"
#include "stepd.h"

static void sock_signal_cb (struct conn *c, const struct frame *f, void *msg,
                            void *arg)
{
    struct msg_step_signal *m = msg;
    struct stepd *sd = arg;
    int sig = m->signal & ~SIGNAL_LEADER_ONLY;

    log_verbose ("signal %d%s from uid %lu on the step socket", sig,
                 m->signal & SIGNAL_LEADER_ONLY ? " (first task alone)" : "",
                 (unsigned long)f->uid);
    if (!(m->signal & SIGNAL_LEADER_ONLY))
        stepd_signal_tasks (sd, m->signal);
    else if (sig > 0 && sig < 65 && sd->ntasks > 0 && sd->tasks[0].pid > 0
             && !sd->tasks[0].exited)
        (void)kill (sd->tasks[0].pid, sig); /* the batch shell itself */
    if (!(f->flags & FRAME_F_RESPONSE))
        conn_send_rc (c, f->matchtag, 0, "%s", "");
}

static void sock_terminate_cb (struct conn *c, const struct frame *f, void *msg,
                               void *arg)
{
    struct msg_stepd_terminate *m = msg;

    log_verbose ("STEPD_TERMINATE (%s) from uid %lu",
                 m->reason ? m->reason : "", (unsigned long)f->uid);
    kill_terminate (arg, c, f->matchtag, m->reason);
}

static void sock_forget_peer (struct stepd *sd, struct conn *c)
{
    for (size_t i = 0; i < sd->npeers; i++)
        if (sd->peers[i] == c) {
            sd->peers[i] = sd->peers[--sd->npeers];
            break;
        }
}

static void sock_attach_cb (struct conn *c, const struct frame *f, void *msg,
                            void *arg)
{
    struct msg_stepd_attach *m = msg;
    struct stepd *sd = arg;
    struct conn *old = sd->noded;

    if (!m->node || strcmp (m->node, sd->node) != 0) {
        log_warn ("STEPD_ATTACH from the noded of %s refused: this is %s",
                  m->node ? m->node : "?", sd->node);
        conn_send_rc (c, f->matchtag, EINVAL, "this stepd runs on %s",
                      sd->node);
        return;
    }
    if (old != c) {
        sock_forget_peer (sd, c);
        sd->noded = c;
        if (old) {
            log_info ("a new noded attached: dropping the previous noded "
                      "connection");
            /* Its closed callback is not called: do its work here. */
            kill_forget_conn (sd, old);
            attach_forget_asker (sd, old);
            conn_destroy (old);
        } else
            log_verbose ("a new noded attached");
    }
    conn_send_rc (c, f->matchtag, 0, "%s", "");
}

static void sock_adopt_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg)
{
    struct msg_stepd_adopt *m = msg;
    struct stepd *sd = arg;
    arbor_error_t err = { "" };
    pid_t pid = (pid_t)m->pid;

    if (!stepd_extern (sd)) {
        char name[32];

        conn_send_rc (
            c, f->matchtag, EINVAL, "step %s is not an extern step",
            step_name (name, sizeof (name), sd->init.job_id, sd->init.step_id));
        return;
    }
    if (kill_requested (sd)) {
        conn_send_rc (c, f->matchtag, ESRCH, "job %u is ending",
                      sd->init.job_id);
        return;
    }
    if (m->pid <= 1 || m->pid > INT32_MAX || kill (pid, 0) < 0) {
        conn_send_rc (c, f->matchtag, ESRCH, "no process %u", m->pid);
        return;
    }
    if (contain_adopt (sd, pid, &err) < 0) {
        log_warn ("adopting pid %d for uid %lu: %s", (int)pid,
                  (unsigned long)f->uid, err.text);
        conn_send_rc (c, f->matchtag, errno, "%s", err.text);
        return;
    }
    log_info ("adopted pid %d into the job's container", (int)pid);
    conn_send_rc (c, f->matchtag, 0, "%s", "");
}

/* The owner's check was the noded's: only root and ArborUser reach us. */
static void sock_stat_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg)
{
    struct stepd *sd = arg;
    struct msg_step_stat_reply r;

    (void)msg;
    if (stat_measure (sd, &r) < 0) {
        conn_send_rc (c, f->matchtag, errno, "measuring step %s: %s", sd->id,
                      strerror (errno));
        return;
    }
    if (conn_send (c, MSG_STEP_STAT_REPLY, f->matchtag, FRAME_F_RESPONSE, &r)
        < 0)
        log_info ("STEP_STAT: cannot answer: %s", strerror (errno));
    proto_clear (MSG_STEP_STAT_REPLY, &r);
}

/* The owner's check was the noded's: only root and ArborUser reach us. */
static void sock_step_attach_cb (struct conn *c, const struct frame *f,
                                 void *msg, void *arg)
{
    attach_start (arg, c, f->matchtag, msg);
}

static const struct rpc_handler sock_handlers[] = {
    { MSG_STEP_SIGNAL, sock_signal_cb, RPC_PRIV },
    { MSG_STEPD_TERMINATE, sock_terminate_cb, RPC_PRIV },
    { MSG_STEPD_ATTACH, sock_attach_cb, RPC_PRIV },
    { MSG_STEPD_ADOPT, sock_adopt_cb, RPC_PRIV },
    { MSG_STEP_STAT, sock_stat_cb, RPC_PRIV },
    { MSG_STEP_ATTACH, sock_step_attach_cb, RPC_PRIV },
    { 0, NULL, 0 },
};

static void sock_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct stepd *sd = arg;
    arbor_error_t err = { "" };

    if (c == sd->noded && noded_link_frame (sd, c, f))
        return; /* answers to us, frames from the step's other stepds */

    if (rpc_dispatch (sock_handlers, c, f, (uid_t)sd->arbor_uid, sd, &err) < 0)
        log_security ("step socket %s: request from uid %u refused: %s",
                      sd->sock_path ? sd->sock_path : "?", (unsigned)f->uid,
                      err.text);
}

static void sock_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct stepd *sd = arg;

    if (conn_refused (c))
        log_security ("step socket %s: connection refused: %s",
                      sd->sock_path ? sd->sock_path : "?",
                      err && err->text[0] ? err->text : "protocol violation");
    kill_forget_conn (sd, c);
    attach_forget_asker (sd, c);
    if (c == sd->noded) {
        log_debug ("attached noded connection closed");
        sd->noded = NULL;
        return;
    }
    sock_forget_peer (sd, c);
}

static const struct conn_ops sock_ops = {
    .frame = sock_frame_cb,
    .closed = sock_closed_cb,
};

static void sock_accept_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct stepd *sd = w->data;
    int fd = accept4 (w->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    struct conn **np, *c;

    if (fd < 0) {
        if (errno != EAGAIN && errno != EINTR)
            log_warn ("accept on %s: %s", sd->sock_path, strerror (errno));
        return;
    }
    if (!(np = realloc (sd->peers, (sd->npeers + 1) * sizeof (*np)))) {
        log_warn ("step socket connection: out of memory");
        close (fd);
        return;
    }
    sd->peers = np;
    if (!(c = conn_create_unix (loop, fd, &sock_ops, sd))) {
        log_warn ("step socket connection: %s", strerror (errno));
        close (fd);
        return;
    }
    sd->peers[sd->npeers++] = c;
}

int sock_listen (struct stepd *sd, arbor_error_t *err)
{
    char *spool = conf_expand (sd->conf->spool_dir, sd->node);

    if (!spool)
        return errprintf (err, "out of memory");
    if (mkdir (spool, 0755) < 0 && errno != EEXIST) {
        int e = errno;
        errprintf (err, "mkdir %s: %s", spool, strerror (e));
        free (spool);
        errno = e;
        return -1;
    }
    if (asprintf (&sd->sock_path, "%s/stepd.%u.%u.sock", spool, sd->init.job_id,
                  sd->init.step_id)
        < 0) {
        sd->sock_path = NULL;
        free (spool);
        return errprintf (err, "out of memory");
    }
    free (spool);
    if ((sd->listen_fd = net_listen_unix (sd->sock_path, 0600, err)) < 0) {
        free (sd->sock_path);
        sd->sock_path = NULL;
        return -1;
    }
    ev_io_init (&sd->listen_w, sock_accept_cb, sd->listen_fd, EV_READ);
    sd->listen_w.data = sd;
    ev_io_start (sd->loop, &sd->listen_w);
    return 0;
}

void sock_unlisten (struct stepd *sd)
{
    if (sd->listen_fd < 0)
        return;
    ev_io_stop (sd->loop, &sd->listen_w);
    close (sd->listen_fd);
    sd->listen_fd = -1;
    unlink (sd->sock_path);
}

size_t sock_npeers (const struct stepd *sd)
{
    return sd->npeers + attach_count (sd);
}

void sock_close_peers_after_flush (struct stepd *sd)
{
    attach_close_after_flush (sd); /* answers queued first, if any */
    /* closed_cb shrinks the array: close from the end. */
    for (size_t i = sd->npeers; i > 0; i--)
        conn_close_after_flush (sd->peers[i - 1]);
}

void sock_close_peers (struct stepd *sd)
{
    attach_close_all (sd);
    for (size_t i = 0; i < sd->npeers; i++)
        conn_destroy (sd->peers[i]);
    sd->npeers = 0;
    free (sd->peers);
    sd->peers = NULL;
}
