/* stepd_track.c - the stepds on this node, and how they are signalled.
 *
 * The table lists the stepds this noded started (until ev_child reaps
 * them). Signals go through each stepd's unix socket in the spool,
 * "<spool>/stepd.<job>.<step>.sock", as one STEP_SIGNAL frame on a
 * SO_PEERCRED conn: scanning the spool rather than the table also reaches
 * stepds started by a previous noded, which outlive it on purpose. A stepd
 * still starting has no tasks to signal yet; the signal is kept and sent
 * once it reports STEPD_LAUNCHED. A socket that refuses the connection
 * belongs to a stepd that died: its container is ended (stepd_info.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"
#include "net.h"
#include "noded.h"
#include "stepd.h"

#define SIGSEND_TIMEOUT 5.0 /* seconds to wait for a stepd's RC */

/* One STEP_SIGNAL in flight to a stepd socket. */
struct sigsend {
    struct noded *nd;
    struct sigsend *next;
    struct conn *conn;
    ev_timer timer;
    uint32_t job_id, step_id;
};

struct stepd_table *stepd_table_create (void)
{
    return calloc (1, sizeof (struct stepd_table));
}

static void stepd_free (struct stepd *s)
{
    ev_child_stop (s->nd->loop, &s->child_w);
    conn_destroy (s->conn);
    free (s);
}

static void sigsend_free (struct sigsend *ss)
{
    ev_timer_stop (ss->nd->loop, &ss->timer);
    conn_destroy (ss->conn);
    free (ss);
}

void stepd_table_destroy (struct stepd_table *t)
{
    int saved = errno;

    if (!t)
        return;
    while (t->head) {
        struct stepd *s = t->head;
        t->head = s->next;
        stepd_free (s);
    }
    while (t->sends) {
        struct sigsend *ss = t->sends;
        t->sends = ss->next;
        sigsend_free (ss);
    }
    stepd_term_free_all (t);
    stepd_orphan_free_all (t);
    stepd_watch_free_all (t);
    free (t);
    errno = saved;
}

void stepd_table_insert (struct stepd_table *t, struct stepd *s)
{
    s->next = t->head;
    t->head = s;
}

void stepd_table_remove (struct stepd_table *t, struct stepd *s)
{
    for (struct stepd **pp = &t->head; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            stepd_free (s);
            return;
        }
    }
}

struct stepd *stepd_table_find (struct stepd_table *t, uint32_t job,
                                uint32_t step)
{
    for (struct stepd *s = t->head; s; s = s->next) {
        if (s->job_id == job && s->step_id == step
            && s->state != STEPD_FAILED)
            return s;
    }
    return NULL;
}

char *stepd_socket_path (const struct noded *nd, uint32_t job, uint32_t step)
{
    char *path;

    if (asprintf (&path, "%s/stepd.%u.%u.sock", nd->spool, job, step) < 0)
        return NULL;
    return path;
}

bool stepd_exists (struct noded *nd, uint32_t job, uint32_t step)
{
    struct stat st;
    char *path;
    bool found;

    if (stepd_table_find (nd->stepds, job, step))
        return true;
    if (!(path = stepd_socket_path (nd, job, step)))
        return false;
    found = stat (path, &st) == 0 && S_ISSOCK (st.st_mode);
    free (path);
    return found;
}

static void sigsend_done (struct sigsend *ss)
{
    struct stepd_table *t = ss->nd->stepds;

    for (struct sigsend **pp = &t->sends; *pp; pp = &(*pp)->next) {
        if (*pp == ss) {
            *pp = ss->next;
            break;
        }
    }
    sigsend_free (ss);
}

static void sigsend_frame_cb (struct conn *c, const struct frame *f,
                              void *arg)
{
    struct sigsend *ss = arg;
    struct msg_rc rc;
    arbor_error_t err;

    if (f->type == MSG_RC
        && proto_decode (MSG_RC, f->body, f->body_len, &rc, &err) == 0) {
        if (rc.errnum != 0)
            log_info ("stepd %u.%u refused the signal: %s", ss->job_id,
                      ss->step_id, rc.text ? rc.text : "(no reason)");
        proto_clear (MSG_RC, &rc);
    }
    sigsend_done (ss);
}

static void sigsend_closed_cb (struct conn *c, const arbor_error_t *err,
                               void *arg)
{
    struct sigsend *ss = arg;

    ss->conn = NULL; /* the conn frees itself */
    sigsend_done (ss);
}

static void sigsend_timeout_cb (struct ev_loop *loop, ev_timer *w,
                                int revents)
{
    struct sigsend *ss = w->data;

    log_info ("stepd %u.%u did not answer STEP_SIGNAL", ss->job_id,
              ss->step_id);
    sigsend_done (ss);
}

static const struct conn_ops sigsend_ops = {
    .frame = sigsend_frame_cb,
    .closed = sigsend_closed_cb,
};

/* Send STEP_SIGNAL 'sig' to the stepd listening on 'path'. A socket nobody
 * listens on any more is a leftover of a crashed stepd: removed. */
static int stepd_signal_socket (struct noded *nd, const char *path,
                                uint32_t job, uint32_t step, int sig)
{
    struct msg_step_signal msg = { .signal = sig };
    struct sigsend *ss;
    arbor_error_t err;
    int fd;

    if ((fd = net_connect_unix (path, &err)) < 0) {
        if (errno == ECONNREFUSED)
            stepd_socket_dead (nd, job, step, path); /* it died */
        else
            log_info ("stepd %u.%u: %s", job, step, err.text);
        return -1;
    }
    if (!(ss = calloc (1, sizeof (*ss)))) {
        close (fd);
        return -1;
    }
    ss->nd = nd;
    ss->job_id = job;
    ss->step_id = step;
    ev_timer_init (&ss->timer, sigsend_timeout_cb, SIGSEND_TIMEOUT, 0.);
    ss->timer.data = ss;
    if (!(ss->conn = conn_create (nd->loop, fd, CONN_AUTH_PEERCRED, NULL,
                                  &sigsend_ops, ss))) {
        close (fd);
        free (ss);
        return -1;
    }
    if (conn_send (ss->conn, MSG_STEP_SIGNAL, 1, 0, &msg) < 0) {
        sigsend_free (ss);
        return -1;
    }
    ev_timer_start (nd->loop, &ss->timer);
    ss->next = nd->stepds->sends;
    nd->stepds->sends = ss;
    log_debug ("signal %d sent to stepd %u.%u", sig, job, step);
    return 0;
}

void stepd_running (struct stepd *s)
{
    char *path;
    int sig = s->pending_signal;

    stepd_term_started (s);
    if (sig == 0)
        return;
    s->pending_signal = 0;
    if (!(path = stepd_socket_path (s->nd, s->job_id, s->step_id)))
        return;
    stepd_signal_socket (s->nd, path, s->job_id, s->step_id, sig);
    free (path);
}

bool stepd_socket_name (const char *name, uint32_t *job,
                               uint32_t *step)
{
    unsigned int j, s;
    int end = -1;

    if (sscanf (name, "stepd.%u.%u.sock%n", &j, &s, &end) != 2
        || end < 0 || name[end] != '\0')
        return false;
    *job = j;
    *step = s;
    return true;
}

/* Signal the stepds with a socket in the spool that match; those still
 * starting (in the table) get the signal once running instead. */
static int stepd_kill_spool (struct noded *nd, uint32_t job, uint32_t step,
                             int sig)
{
    DIR *dir = opendir (nd->spool);
    struct dirent *de;
    int count = 0;

    if (!dir)
        return 0;
    while ((de = readdir (dir))) {
        uint32_t j, s;
        char *path;
        struct stepd *sd;
        if (!stepd_socket_name (de->d_name, &j, &s) || j != job
            || (step != STEP_ID_ALL && s != step))
            continue;
        sd = stepd_table_find (nd->stepds, j, s);
        if (sd && sd->state == STEPD_STARTING)
            continue; /* counted and kept pending by stepd_kill */
        if (asprintf (&path, "%s/%s", nd->spool, de->d_name) < 0)
            continue;
        if (stepd_signal_socket (nd, path, j, s, sig) == 0)
            count++;
        free (path);
    }
    closedir (dir);
    return count;
}

int stepd_kill (struct noded *nd, uint32_t job, uint32_t step, int sig)
{
    int count = 0;

    for (struct stepd *s = nd->stepds->head; s; s = s->next) {
        if (s->job_id == job && (step == STEP_ID_ALL || s->step_id == step)
            && s->state == STEPD_STARTING) {
            s->pending_signal = sig;
            count++;
        }
    }
    return count + stepd_kill_spool (nd, job, step, sig);
}
