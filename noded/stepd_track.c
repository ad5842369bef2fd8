/* stepd_track.c - the stepds on this node, and how they are signalled.
 *
 * The table lists the stepds this noded started (until ev_child reaps
 * them). Signals go through each stepd's unix socket in the spool,
 * "<spool>/stepd.<job>.<step>.sock", as one STEP_SIGNAL request
 * (common/wire/request.h, SO_PEERCRED): scanning the spool rather than the
 * table also reaches stepds started by a previous noded, which outlive it on
 * purpose. A stepd still starting has no tasks to signal yet; the signal is
 * kept and sent once it reports STEPD_LAUNCHED. A socket that refuses the
 * connection belongs to a stepd that died: its container is ended
 * (stepd_info.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"
#include "noded_base.h"
#include "request.h"
#include "spool_scan.h"
#include "stepd_info.h"
#include "stepd_mesh.h"
#include "stepd_orphan.h"
#include "stepd_relay.h"
#include "stepd_table.h"
#include "stepd_term.h"
#include "stepd_track.h"

#define SIGSEND_TIMEOUT 5.0 /* seconds to wait for a stepd's RC */

/* One STEP_SIGNAL in flight to a stepd socket. */
struct sigsend {
    struct noded *nd;
    struct sigsend *next;
    struct request *req;
    uint32_t job_id, step_id;
};

struct stepd_table *stepd_table_create (void)
{
    return calloc (1, sizeof (struct stepd_table));
}

static void stepd_free (struct stepd_rec *s)
{
    ev_child_stop (s->nd->loop, &s->child_w);
    request_cancel (s->init_req);
    conn_destroy (s->conn);
    free (s);
}

static void sigsend_free (struct sigsend *ss)
{
    request_cancel (ss->req);
    free (ss);
}

void stepd_table_destroy (struct stepd_table *t)
{
    int saved = errno;

    if (!t)
        return;
    while (t->head) {
        struct stepd_rec *s = t->head;
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
    stepd_relay_free_all (t);
    stepd_mesh_free_all (t);
    free (t);
    errno = saved;
}

void stepd_table_insert (struct stepd_table *t, struct stepd_rec *s)
{
    s->next = t->head;
    t->head = s;
}

void stepd_table_remove (struct stepd_table *t, struct stepd_rec *s)
{
    for (struct stepd_rec **pp = &t->head; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            stepd_free (s);
            return;
        }
    }
}

struct stepd_rec *stepd_table_find (struct stepd_table *t, uint32_t job,
                                    uint32_t step)
{
    for (struct stepd_rec *s = t->head; s; s = s->next) {
        if (s->job_id == job && s->step_id == step && s->state != STEPD_FAILED)
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

void stepd_each_of_user (struct noded *nd, uid_t uid, stepd_each_f f, void *arg)
{
    for (struct stepd_rec *s = nd->stepds->head; s; s = s->next)
        if (s->uid == uid && s->state != STEPD_FAILED && !s->exited)
            f (s->job_id, s->step_id, s->started_ms, arg);
    stepd_watch_each_of_user (nd, uid, f, arg);
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

/* The stepd's answer, or its silence, is only logged. */
static void sigsend_done_cb (const struct request_result *res, void *arg)
{
    struct sigsend *ss = arg;
    struct stepd_table *t = ss->nd->stepds;

    for (struct sigsend **pp = &t->sends; *pp; pp = &(*pp)->next) {
        if (*pp == ss) {
            *pp = ss->next;
            break;
        }
    }
    if (res->outcome == REQUEST_REFUSED)
        log_info ("stepd %u.%u refused the signal: %s", ss->job_id, ss->step_id,
                  res->err.text);
    else if (res->outcome == REQUEST_TIMEDOUT)
        log_info ("stepd %u.%u did not answer STEP_SIGNAL", ss->job_id,
                  ss->step_id);
    free (ss);
}

/* Send STEP_SIGNAL 'sig' to the stepd listening on 'path'. A socket nobody
 * listens on any more is a leftover of a crashed stepd: its container is
 * ended (stepd_socket_dead). 0 if sent, else -1. */
static int stepd_signal_socket (struct noded *nd, const char *path,
                                uint32_t job, uint32_t step, int sig)
{
    struct msg_step_signal msg = { .signal = sig };
    struct request_opts opts = { .timeout = SIGSEND_TIMEOUT,
                                 .flags = REQUEST_F_CONNECT_NOW };
    struct sigsend *ss = calloc (1, sizeof (*ss));

    if (!ss)
        return -1;
    ss->nd = nd;
    ss->job_id = job;
    ss->step_id = step;
    if (!(ss->req = request_unix (nd->loop, path, MSG_STEP_SIGNAL, &msg, &opts,
                                  sigsend_done_cb, ss))) {
        if (errno == ECONNREFUSED)
            stepd_socket_dead (nd, job, step, path); /* it died */
        else
            log_info ("stepd %u.%u: connect %s: %s", job, step, path,
                      strerror (errno));
        free (ss);
        return -1;
    }
    ss->next = nd->stepds->sends;
    nd->stepds->sends = ss;
    log_debug ("signal %d sent to stepd %u.%u", sig, job, step);
    return 0;
}

void stepd_running (struct stepd_rec *s)
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

/* What stepd_kill_spool sends to whom. */
struct kill_spool {
    struct noded *nd;
    uint32_t job, step; /* step may be STEP_ID_ALL */
    int sig;
};

/* spool_scan_f: signal the stepd behind 'path' if it matches; 1 if it
 * was signalled. */
static int stepd_kill_socket (const char *path, uint32_t j, uint32_t s,
                              void *arg)
{
    struct kill_spool *k = arg;
    struct stepd_rec *sd;

    if (j != k->job || (k->step != STEP_ID_ALL && s != k->step))
        return 0;
    sd = stepd_table_find (k->nd->stepds, j, s);
    if (sd && sd->state == STEPD_STARTING)
        return 0; /* counted and kept pending by stepd_kill */
    if (!path)
        return 0;
    return stepd_signal_socket (k->nd, path, j, s, k->sig) == 0 ? 1 : 0;
}

/* Signal the stepds with a socket in the spool that match; those still
 * starting (in the table) get the signal once running instead. */
static int stepd_kill_spool (struct noded *nd, uint32_t job, uint32_t step,
                             int sig)
{
    struct kill_spool k = { nd, job, step, sig };

    return spool_scan (nd->spool, stepd_kill_socket, NULL, &k);
}

int stepd_kill (struct noded *nd, uint32_t job, uint32_t step, int sig)
{
    int count = 0;

    for (struct stepd_rec *s = nd->stepds->head; s; s = s->next) {
        if (s->job_id == job && (step == STEP_ID_ALL || s->step_id == step)
            && s->state == STEPD_STARTING) {
            s->pending_signal = sig;
            count++;
        }
    }
    return count + stepd_kill_spool (nd, job, step, sig);
}
