/* io.c - the stepd's I/O connection to the launcher.
 *
 * The stepd connects to the launcher's listener, proves it holds the step
 * credential with IO_HELLO (the I/O key), then streams each task's stdout
 * and stderr as IO_DATA chunks as they are read (an empty chunk marks EOF)
 * and writes IO_STDIN into the tasks' stdin pipes (buffered, non-blocking;
 * empty data closes stdin). STEP_SIGNAL from the launcher signals every
 * task. If the connection drops before the step is over, the launcher is
 * gone and the tasks are SIGKILLed. Each chunk is encoded once and also
 * sent to the clients attached to the step (sattach, attach.c).
 *
 * Output is read only while the connection's queue is below STEPD_OUT_HIGH:
 * above it reading pauses and resumes under STEPD_OUT_LOW, so a slow
 * launcher slows the tasks (through full pipes) instead of growing memory.
 * Attached clients never pause it: attach.c drops one that falls behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "log.h"
#include "net.h"
#include "rpc.h"
#include "attach.h"
#include "base.h"
#include "io.h"
#include "stepd.h"

static void io_out_cb (struct ev_loop *loop, ev_io *w, int revents);
static void io_in_cb (struct ev_loop *loop, ev_io *w, int revents);

static void io_send_data (struct stepd *sd, uint32_t rank, uint32_t stream,
                          char *data, size_t len)
{
    struct msg_io_data m = {
        .task = rank, .stream = stream, .data = data, .data_len = (uint32_t)len
    };
    char *body;
    size_t blen;

    if (!attach_any (sd)) { /* the common case: the launcher alone */
        if (sd->io && conn_send (sd->io, MSG_IO_DATA, 0, 0, &m) < 0)
            log_err ("send output of task %u: %s", rank, strerror (errno));
        return; /* launcher gone: output is dropped */
    }
    if (proto_encode (MSG_IO_DATA, &m, &body, &blen) < 0) {
        log_err ("encode output of task %u: %s", rank, strerror (errno));
        return;
    }
    if (sd->io && conn_send_body (sd->io, MSG_IO_DATA, 0, 0, body, blen) < 0)
        log_err ("send output of task %u: %s", rank, strerror (errno));
    attach_send_body (sd, MSG_IO_DATA, body, blen);
    free (body);
}

static void io_out_close (struct stepd *sd, struct task_out *o)
{
    if (o->fd < 0)
        return;
    ev_io_stop (sd->loop, &o->w);
    close (o->fd);
    o->fd = -1;
    io_send_data (sd, o->task->rank, o->stream, NULL, 0);
}

static void io_pause (struct stepd *sd)
{
    sd->out_paused = true;
    for (uint32_t i = 0; i < sd->ntasks; i++)
        for (int s = 0; s < 2; s++)
            ev_io_stop (sd->loop, &sd->tasks[i].out[s].w);
    ev_timer_again (sd->loop, &sd->resume_w);
}

static void io_resume_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct stepd *sd = w->data;

    if (sd->io && conn_outq_len (sd->io) > STEPD_OUT_LOW)
        return;
    ev_timer_stop (loop, w);
    sd->out_paused = false;
    for (uint32_t i = 0; i < sd->ntasks; i++)
        for (int s = 0; s < 2; s++)
            if (sd->tasks[i].out[s].fd >= 0)
                ev_io_start (loop, &sd->tasks[i].out[s].w);
}

static void io_out_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct task_out *o = w->data;
    struct stepd *sd = o->task->sd;
    char buf[STEPD_IO_CHUNK];
    ssize_t n = read (o->fd, buf, sizeof (buf));

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        /* EIO: a pseudo-terminal's master once the task's side closed */
        if (n < 0 && errno != EIO)
            log_warn ("read task %u stream %u: %s", o->task->rank, o->stream,
                      strerror (errno));
        io_out_close (sd, o);
        return;
    }
    io_send_data (sd, o->task->rank, o->stream, buf, (size_t)n);
    if (sd->io && conn_outq_len (sd->io) > STEPD_OUT_HIGH)
        io_pause (sd);
}

void io_init (struct stepd *sd)
{
    ev_timer_init (&sd->resume_w, io_resume_cb, 0., 0.02);
    sd->resume_w.data = sd;
}

void io_task_start (struct stepd *sd, struct task *t)
{
    for (int s = 0; s < 2; s++) {
        ev_io_init (&t->out[s].w, io_out_cb, t->out[s].fd, EV_READ);
        t->out[s].w.data = &t->out[s];
        if (t->out[s].fd >= 0 && !sd->out_paused)
            ev_io_start (sd->loop, &t->out[s].w);
    }
    ev_io_init (&t->in_w, io_in_cb, t->in_fd, EV_WRITE);
    t->in_w.data = t;
}

void io_close_outputs (struct stepd *sd)
{
    for (uint32_t i = 0; i < sd->ntasks; i++)
        for (int s = 0; s < 2; s++)
            io_out_close (sd, &sd->tasks[i].out[s]);
}

bool io_outputs_open (const struct stepd *sd)
{
    for (uint32_t i = 0; i < sd->ntasks; i++)
        for (int s = 0; s < 2; s++)
            if (sd->tasks[i].out[s].fd >= 0)
                return true;
    return false;
}

bool io_user_error (struct stepd *sd, const char *text)
{
    for (uint32_t i = 0; i < sd->ntasks && sd->io; i++) {
        struct task *t = &sd->tasks[i];
        if (t->out[1].fd < 0)
            continue; /* EOF already sent on this stderr */
        io_send_data (sd, t->rank, 2, (char *)text, strlen (text));
        return true;
    }
    return false;
}

void io_close_stdin (struct task *t)
{
    if (t->in_fd < 0)
        return;
    ev_io_stop (t->sd->loop, &t->in_w);
    close (t->in_fd);
    t->in_fd = -1;
    free (t->in_buf);
    t->in_buf = NULL;
    t->in_len = 0;
}

static void io_in_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct task *t = w->data;
    ssize_t n = t->in_len ? write (t->in_fd, t->in_buf, t->in_len) : 0;

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n < 0) { /* EPIPE: the task closed its stdin; drop the rest */
        log_debug ("stdin of task %u: %s", t->rank, strerror (errno));
        io_close_stdin (t);
        return;
    }
    memmove (t->in_buf, t->in_buf + n, t->in_len - (size_t)n);
    t->in_len -= (size_t)n;
    if (t->in_len > 0)
        return;
    ev_io_stop (loop, w);
    if (t->in_eof)
        io_close_stdin (t);
}

static void io_stdin_task (struct task *t, const char *data, size_t len)
{
    char *nb;

    if (t->in_fd < 0)
        return;
    if (len == 0) {
        t->in_eof = true;
        if (t->in_len == 0)
            io_close_stdin (t);
        return;
    }
    if (t->in_len + len > STEPD_STDIN_MAX) {
        log_warn ("stdin of task %u: over %u bytes buffered, dropping %zu",
                  t->rank, STEPD_STDIN_MAX, len);
        return;
    }
    if (!(nb = realloc (t->in_buf, t->in_len + len))) {
        log_err ("stdin of task %u: out of memory", t->rank);
        return;
    }
    memcpy (nb + t->in_len, data, len);
    t->in_buf = nb;
    t->in_len += len;
    ev_io_start (t->sd->loop, &t->in_w);
}

void io_stdin (struct stepd *sd, int32_t task, const char *data, size_t len)
{
    for (uint32_t i = 0; i < sd->ntasks; i++)
        if (task == STDIN_ALL
            || (task >= 0 && (uint32_t)task == sd->tasks[i].rank))
            io_stdin_task (&sd->tasks[i], data, len);
}

static void io_stdin_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg)
{
    struct msg_io_stdin *m = msg;

    io_stdin (arg, m->task, m->data, m->data_len);
}

static void io_signal_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg)
{
    struct msg_step_signal *m = msg;

    log_verbose ("signal %d from the launcher", m->signal);
    stepd_signal_tasks (arg, m->signal);
}

/* srun --pty: the launcher's terminal changed size. */
static void io_winsize_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg)
{
    const struct msg_io_winsize *m = msg;
    struct stepd *sd = arg;
    struct winsize ws = { .ws_row = (unsigned short)m->rows,
                          .ws_col = (unsigned short)m->cols };

    for (uint32_t i = 0; sd->init.pty && i < sd->ntasks; i++)
        if (sd->tasks[i].rank == 0 && sd->tasks[i].out[0].fd >= 0)
            (void)ioctl (sd->tasks[i].out[0].fd, TIOCSWINSZ, &ws);
}

static const struct rpc_handler io_handlers[] = {
    { MSG_IO_STDIN, io_stdin_cb, RPC_ANY },
    { MSG_IO_WINSIZE, io_winsize_cb, RPC_ANY },
    { MSG_STEP_SIGNAL, io_signal_cb, RPC_ANY },
    { 0, NULL, 0 },
};

static void io_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct stepd *sd = arg;
    arbor_error_t err = { "" };

    /* The conn is keyed by the step's I/O key (CONN_AUTH_STEPKEY): only
     * the launcher the controller gave it to can send here, so there is
     * no uid to check (f->uid is (uid_t)-1). */
    if (rpc_dispatch (io_handlers, c, f, (uid_t)sd->arbor_uid, sd, &err) < 0)
        log_warn ("I/O connection: %s", err.text);
}

static void io_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct stepd *sd = arg;

    sd->io = NULL;
    if (!sd->finishing) {
        log_warn ("I/O connection to the launcher lost (%s): killing tasks",
                  err && err->text[0] ? err->text : "closed");
        stepd_signal_tasks (sd, SIGKILL);
        for (uint32_t i = 0; i < sd->ntasks; i++)
            io_close_stdin (&sd->tasks[i]);
    }
}

static const struct conn_ops io_ops = {
    .frame = io_frame_cb,
    .closed = io_closed_cb,
};

int io_hello (struct stepd *sd, struct conn *c)
{
    const struct msg_stepd_init *in = &sd->init;
    struct msg_io_hello h = { 0 };
    int rc, e;

    h.job_id = in->job_id;
    h.step_id = in->step_id;
    h.node_id = in->node_id;
    h.node_name = (char *)sd->node; /* the key is proven, never sent */
    if (!(h.task_ids = calloc (sd->nlocal + 1, sizeof (uint32_t))))
        return -1;
    for (uint32_t i = 0; i < sd->nlocal; i++)
        h.task_ids[i] = sd->local_ranks[i];
    h.task_ids_count = sd->nlocal;
    rc = conn_send (c, MSG_IO_HELLO, 0, 0, &h);
    e = errno;
    free (h.task_ids);
    errno = e;
    return rc;
}

int io_connect (struct stepd *sd, arbor_error_t *err)
{
    const struct msg_stepd_init *in = &sd->init;
    int fd;

    if (!stepd_has_launcher (sd))
        return 0; /* batch: output to files; extern: no task */
    fd = net_connect_tcp (in->io_host, (uint16_t)in->io_port,
                          STEPD_IO_CONNECT_MS, err);
    if (fd < 0)
        return -1;
    struct conn_auth a = {
        .mode = CONN_AUTH_STEPKEY,
        .initiator = true,
        .io_key = in->io_key,
        .job_id = in->job_id,
        .step_id = in->step_id,
    };
    if (!(sd->io = conn_create (sd->loop, fd, &a, &io_ops, sd))) {
        int e = errno;
        close (fd);
        errno = e;
        return errprintf (err, "I/O connection: %s", strerror (e));
    }
    if (io_hello (sd, sd->io) < 0)
        return errprintf (err, "send IO_HELLO to %s:%u: %s", in->io_host,
                          in->io_port, strerror (errno));
    return 0;
}
