/* attach.c - clients attached to the step's I/O (sattach).
 *
 * STEP_ATTACH reaches us on the step socket (sock.c), from the noded,
 * which checked that its sender owns the step. We connect to the
 * client's listener (non-blocking, within STEPD_IO_CONNECT_MS), open a
 * session keyed by the fresh key the client sent (CONN_AUTH_STEPKEY, as
 * the launcher's I/O connection is keyed by the step's I/O key), say
 * IO_HELLO and answer the request RC 0. From then on io.c sends every
 * IO_DATA of the tasks to each attached client as well as to the
 * launcher, and an attached client's IO_STDIN goes to the tasks (an
 * empty one, EOF, is ignored: closing the tasks' stdin is the launcher's).
 *
 * An attached client is a guest: its connection closing only detaches
 * it, the tasks go on (losing the launcher kills them, io.c). It never
 * slows the tasks either: one that falls STEPD_OUT_HIGH behind is told so
 * (an RC frame, ENOBUFS), flushed and closed, rather than pausing the
 * output as the launcher does. At most STEPD_ATTACH_MAX are attached at
 * once. At the end of the step (LIFE_FLUSH, through sock.c) they are
 * flushed and closed, which tells each client the step is over.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "net.h"
#include "rpc.h"
#include "attach.h"
#include "base.h"
#include "io.h"
#include "stepd.h"

enum attach_state {
    ATTACH_CONNECTING, /* connect in progress, the request unanswered */
    ATTACH_OPEN,       /* connected: output goes there */
    ATTACH_CLOSING,    /* flushing, then closed */
};

struct attacher {
    struct stepd *sd;
    struct attacher *next;
    enum attach_state state;
    int fd; /* while connecting; then the conn's */
    ev_io connect_w;
    ev_timer timeout_w;
    struct conn *conn;  /* once connected */
    struct conn *asker; /* step socket conn owed the RC; NULL once told */
    uint32_t matchtag;
    char *key;
    uint32_t job_id, step_id;
    char peer[96]; /* "host:port", for logs */
};

static void attach_free (struct attacher *a)
{
    struct stepd *sd = a->sd;

    for (struct attacher **pp = &sd->attached; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    ev_io_stop (sd->loop, &a->connect_w);
    ev_timer_stop (sd->loop, &a->timeout_w);
    if (a->fd >= 0 && !a->conn)
        close (a->fd);
    conn_destroy (a->conn); /* NULL, or not closed yet: closed not called */
    if (a->key)
        explicit_bzero (a->key, strlen (a->key));
    free (a->key);
    free (a);
}

static void attach_answer (struct attacher *a, int errnum, const char *text)
{
    if (!a->asker)
        return;
    if (conn_send_rc (a->asker, a->matchtag, errnum, "%s", text) < 0)
        log_info ("STEP_ATTACH: cannot answer: %s", strerror (errno));
    a->asker = NULL;
}

/* ---- the attached connection --------------------------------------- */

/* IO_STDIN from the client: to the tasks, EOF excepted. */
static void attach_stdin_cb (struct conn *c, const struct frame *f, void *msg,
                             void *arg)
{
    struct msg_io_stdin *m = msg;
    struct attacher *a = arg;

    if (m->data_len > 0 && a->state == ATTACH_OPEN)
        io_stdin (a->sd, m->task, m->data, m->data_len);
}

static const struct rpc_handler attach_handlers[] = {
    { MSG_IO_STDIN, attach_stdin_cb, RPC_ANY },
    { 0, NULL, 0 },
};

static void attach_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct attacher *a = arg;
    arbor_error_t err = { "" };

    /* Keyed by the client's key (CONN_AUTH_STEPKEY): no uid to check. */
    if (rpc_dispatch (attach_handlers, c, f, (uid_t)a->sd->arbor_uid, a, &err)
        < 0)
        log_warn ("attached client %s: %s", a->peer, err.text);
}

static void attach_closed_cb (struct conn *c, const arbor_error_t *err,
                              void *arg)
{
    struct attacher *a = arg;

    if (a->state == ATTACH_OPEN)
        log_info ("client %s detached%s%s", a->peer,
                  err && err->text[0] ? ": " : "",
                  err && err->text[0] ? err->text : "");
    a->conn = NULL; /* destroyed once this returns */
    a->fd = -1;
    attach_free (a);
}

static const struct conn_ops attach_ops = {
    .frame = attach_frame_cb,
    .closed = attach_closed_cb,
};

/* ---- connecting ------------------------------------------------------ */

static void attach_failed (struct attacher *a, int errnum, const char *text)
{
    log_info ("attaching %s: %s", a->peer, text);
    attach_answer (a, errnum, text);
    attach_free (a);
}

/* Connected: the session, the hello, the answer. */
static void attach_connected (struct attacher *a)
{
    struct stepd *sd = a->sd;
    struct conn_auth auth = {
        .mode = CONN_AUTH_STEPKEY,
        .initiator = true,
        .io_key = a->key,
        .job_id = a->job_id,
        .step_id = a->step_id,
    };
    char text[160];

    if (!(a->conn = conn_create (sd->loop, a->fd, &auth, &attach_ops, a))) {
        snprintf (text, sizeof (text), "connection to %s: %s", a->peer,
                  strerror (errno));
        attach_failed (a, errno, text);
        return;
    }
    explicit_bzero (a->key, strlen (a->key)); /* the conn has its copy */
    if (io_hello (sd, a->conn) < 0) {
        snprintf (text, sizeof (text), "IO_HELLO to %s: %s", a->peer,
                  strerror (errno));
        attach_failed (a, errno, text);
        return;
    }
    a->state = ATTACH_OPEN;
    log_info ("client %s attached to the step's I/O", a->peer);
    attach_answer (a, 0, "");
}

static void attach_connect_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct attacher *a = w->data;
    char text[160];

    ev_io_stop (loop, w);
    ev_timer_stop (loop, &a->timeout_w);
    if (net_connect_finish (a->fd) < 0) {
        snprintf (text, sizeof (text), "connect %s: %s", a->peer,
                  strerror (errno));
        attach_failed (a, errno, text);
        return;
    }
    attach_connected (a);
}

static void attach_timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct attacher *a = w->data;
    char text[160];

    snprintf (text, sizeof (text), "connect %s: no answer within %d ms",
              a->peer, STEPD_IO_CONNECT_MS);
    attach_failed (a, ETIMEDOUT, text);
}

size_t attach_count (const struct stepd *sd)
{
    size_t n = 0;

    for (const struct attacher *a = sd->attached; a; a = a->next)
        n++;
    return n;
}

/* Why STEP_ATTACH 'm' cannot be served now (errno value in *errnum),
 * or NULL. */
static const char *attach_refusal (struct stepd *sd,
                                   const struct msg_step_attach *m, int *errnum)
{
    *errnum = EINVAL;
    if (m->job_id != sd->init.job_id || m->step_id != sd->init.step_id)
        return "another step";
    if (!stepd_has_launcher (sd))
        return "the step has no I/O to attach to (batch and extern steps)";
    if (!m->host || !*m->host || m->port == 0 || m->port > 65535)
        return "no address to connect to";
    if (!m->io_key || strlen (m->io_key) < 16)
        return "the key is too short";
    *errnum = ESRCH;
    if (sd->finishing)
        return "the step is ending";
    *errnum = EBUSY;
    if (attach_count (sd) >= STEPD_ATTACH_MAX)
        return "too many clients attached";
    return NULL;
}

void attach_start (struct stepd *sd, struct conn *c, uint32_t matchtag,
                   const struct msg_step_attach *m)
{
    struct attacher *a = NULL;
    arbor_error_t err = { "" };
    const char *why;
    char *key = NULL;
    int errnum;

    if ((why = attach_refusal (sd, m, &errnum))) {
        log_info ("STEP_ATTACH refused: %s", why);
        conn_send_rc (c, matchtag, errnum, "step %s: %s", stepd_id (sd), why);
        return;
    }
    if (!(key = strdup (m->io_key)) || !(a = calloc (1, sizeof (*a)))) {
        free (key);
        conn_send_rc (c, matchtag, ENOMEM, "out of memory");
        return;
    }
    *a = (struct attacher){ .sd = sd,
                            .fd = -1,
                            .asker = c,
                            .matchtag = matchtag,
                            .key = key,
                            .job_id = m->job_id,
                            .step_id = m->step_id };
    snprintf (a->peer, sizeof (a->peer), "%s:%u", m->host, m->port);
    a->next = sd->attached;
    sd->attached = a;
    if ((a->fd = net_connect_tcp_start (m->host, (uint16_t)m->port, &err))
        < 0) {
        attach_failed (a, errno ? errno : ECONNREFUSED, err.text);
        return;
    }
    ev_io_init (&a->connect_w, attach_connect_cb, a->fd, EV_WRITE);
    a->connect_w.data = a;
    ev_io_start (sd->loop, &a->connect_w);
    ev_timer_init (&a->timeout_w, attach_timeout_cb,
                   STEPD_IO_CONNECT_MS / 1000.0, 0.);
    a->timeout_w.data = a;
    ev_timer_start (sd->loop, &a->timeout_w);
}

/* ---- output ---------------------------------------------------------- */

/* Flush what it has, then close: the client sees the end of the
 * stream. */
static void attach_close_one (struct attacher *a)
{
    a->state = ATTACH_CLOSING;
    conn_close_after_flush (a->conn);
}

void attach_send_body (struct stepd *sd, int type, const char *body, size_t len)
{
    struct attacher *a, *next;

    for (a = sd->attached; a; a = next) {
        next = a->next; /* a may go */
        if (a->state != ATTACH_OPEN)
            continue;
        if (conn_send_body (a->conn, type, 0, 0, body, len) < 0) {
            log_warn ("client %s: %s: detaching it", a->peer, strerror (errno));
            attach_free (a);
        } else if (conn_outq_len (a->conn) > STEPD_OUT_HIGH) {
            log_warn ("client %s is %zu bytes behind the output: "
                      "detaching it",
                      a->peer, conn_outq_len (a->conn));
            conn_send_rc (a->conn, 0, ENOBUFS,
                          "could not keep up with the output of step %s: "
                          "detached",
                          stepd_id (sd));
            attach_close_one (a);
        }
    }
}

bool attach_any (const struct stepd *sd)
{
    for (const struct attacher *a = sd->attached; a; a = a->next)
        if (a->state == ATTACH_OPEN)
            return true;
    return false;
}

/* ---- the step socket and the end of the step ------------------------ */

void attach_forget_asker (struct stepd *sd, struct conn *c)
{
    struct attacher *a, *next;

    for (a = sd->attached; a; a = next) {
        next = a->next;
        if (a->asker != c)
            continue;
        a->asker = NULL;
        if (a->state == ATTACH_CONNECTING) /* nobody waits for it now */
            attach_free (a);
    }
}

void attach_close_after_flush (struct stepd *sd)
{
    struct attacher *a, *next;

    for (a = sd->attached; a; a = next) {
        next = a->next;
        if (a->state == ATTACH_CONNECTING) {
            attach_answer (a, ESRCH, "the step ended");
            attach_free (a);
        } else if (a->state == ATTACH_OPEN)
            attach_close_one (a);
    }
}

void attach_close_all (struct stepd *sd)
{
    while (sd->attached)
        attach_free (sd->attached);
}
