/* stepd_term.c - end steps: STEPD_TERMINATE to their stepds, one answer each.
 *
 * A termination of (job, step) reaches every matching stepd socket in the
 * spool, "<spool>/stepd.<job>.<step>.sock" (so stepds left by a previous
 * noded are ended too), plus the stepds of ours still starting, which get
 * the message once they report their tasks started. Each stepd is one
 * termsend: a STEPD_TERMINATE request (common/wire/request.h, SO_PEERCRED)
 * under the termsend's own timer, which also covers the wait for a stepd
 * still starting. The stepd answers only when its container is empty
 * (RC 0) or when it gives up on it (ETIME, "unkillable step 5.0: pids
 * ..."), so the wait is long: the caller's timeout covers KillWait and
 * UnkillableStepTimeout.
 *
 * A socket nobody listens on is a stepd that died: the noded ends its
 * container itself (stepd_orphan.c) and that counts as the stepd's answer
 * (without a record of it, the stale socket is removed and nothing is
 * awaited); a connection closed without an answer is a stepd that exited,
 * its container with it. A stepd from before protocol 1.1 answers EPROTO
 * (unknown message): it gets STEP_SIGNAL SIGKILL instead (a second
 * request, REQUEST_F_UNTIL_CLOSE) and we wait for it to exit (that
 * connection closes), which keeps "epilog after the tasks are gone" true
 * with it too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "noded_base.h"
#include "request.h"
#include "spool_scan.h"
#include "stepd_info.h"
#include "stepd_orphan.h"
#include "stepd_table.h"
#include "stepd_term.h"
#include "stepd_track.h"

struct termsend {
    struct noded *nd;
    struct termsend *next;
    uint32_t job_id, step_id;
    char *reason;
    struct stepd_rec *waiting; /* ours, still starting: send once it runs */
    char *path;                /* the stepd's socket, once sent */
    struct request *req;       /* STEPD_TERMINATE, or the fallback SIGKILL */
    ev_timer timer;            /* the whole wait, from the termination on */
    double timeout;
    bool fallback; /* old stepd: SIGKILL sent, awaiting its exit */
    stepd_term_f cb;
    void *arg;
};

static void termsend_free (struct termsend *ts)
{
    ev_timer_stop (ts->nd->loop, &ts->timer);
    request_cancel (ts->req);
    free (ts->path);
    free (ts->reason);
    free (ts);
}

void stepd_term_free_all (struct stepd_table *t)
{
    while (t->terms) {
        struct termsend *ts = t->terms;
        t->terms = ts->next;
        termsend_free (ts);
    }
}

/* Unlink, call back with the stepd's answer, free. */
static void termsend_report (struct termsend *ts, int errnum, const char *text)
{
    struct stepd_table *t = ts->nd->stepds;

    for (struct termsend **pp = &t->terms; *pp; pp = &(*pp)->next) {
        if (*pp == ts) {
            *pp = ts->next;
            break;
        }
    }
    if (ts->cb)
        ts->cb (ts->job_id, ts->step_id, errnum, text, ts->arg);
    termsend_free (ts);
}

static void termsend_done_cb (const struct request_result *res, void *arg);

/* The stepd does not know STEPD_TERMINATE: kill its tasks the old way,
 * and wait for it to exit (REQUEST_F_UNTIL_CLOSE). */
static void termsend_fallback (struct termsend *ts)
{
    struct msg_step_signal sig = { .signal = SIGKILL };
    struct request_opts opts = { .flags = REQUEST_F_UNTIL_CLOSE
                                          | REQUEST_F_CONNECT_NOW };

    log_warn ("stepd %u.%u predates STEPD_TERMINATE: sending SIGKILL",
              ts->job_id, ts->step_id);
    ts->fallback = true;
    if (!(ts->req = request_unix (ts->nd->loop, ts->path, MSG_STEP_SIGNAL, &sig,
                                  &opts, termsend_done_cb, ts)))
        termsend_report (ts, errno, "cannot send SIGKILL to the stepd");
}

/* What the stepd said. Closed without an answer (or, after the fallback
 * SIGKILL, closed at all): it exited, and its container with it. */
static void termsend_done_cb (const struct request_result *res, void *arg)
{
    struct termsend *ts = arg;
    const struct msg_rc *rc = res->type == MSG_RC ? res->msg : NULL;

    ts->req = NULL; /* freed by request.c after this returns */
    if (res->outcome == REQUEST_CLOSED
        || (ts->fallback && res->outcome == REQUEST_ANSWERED)) {
        log_verbose ("stepd %u.%u exited%s", ts->job_id, ts->step_id,
                     ts->fallback ? " after SIGKILL" : " before answering");
        termsend_report (ts, 0, NULL);
    } else if (!ts->fallback && res->outcome == REQUEST_REFUSED
               && res->errnum == EPROTO) {
        termsend_fallback (ts);
    } else if (res->outcome == REQUEST_UNREACHED) {
        log_err ("stepd %u.%u: %s", ts->job_id, ts->step_id, res->err.text);
        termsend_report (ts, 0, NULL); /* not awaited, as if gone */
    } else {
        termsend_report (ts, res->errnum,
                         res->errnum ? res->err.text
                         : rc        ? rc->text
                                     : NULL);
    }
}

static void termsend_timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct termsend *ts = w->data;
    char text[100];

    snprintf (text, sizeof (text),
              "stepd %u.%u did not answer "
              "STEPD_TERMINATE within %.0f s",
              ts->job_id, ts->step_id, ts->timeout);
    termsend_report (ts, ETIME, text);
}

/* Send STEPD_TERMINATE to the stepd on 'path'. Returns 0, or -1 when the
 * stepd is gone (nothing listens: its container is ended, its stale
 * socket removed) or cannot be talked to (logged). */
static int termsend_send (struct termsend *ts, const char *path)
{
    struct msg_stepd_terminate msg = { .reason = ts->reason };
    struct request_opts opts = { .flags = REQUEST_F_CONNECT_NOW };

    if (!(ts->path = strdup (path)))
        return -1;
    if (!(ts->req = request_unix (ts->nd->loop, path, MSG_STEPD_TERMINATE, &msg,
                                  &opts, termsend_done_cb, ts))) {
        if (errno == ECONNREFUSED) /* it died: its container is ours */
            stepd_socket_dead (ts->nd, ts->job_id, ts->step_id, path);
        else if (errno != ENOENT)
            log_err ("stepd %u.%u: connect %s: %s", ts->job_id, ts->step_id,
                     path, strerror (errno));
        return -1;
    }
    log_debug ("STEPD_TERMINATE (%s) sent to stepd %u.%u", ts->reason,
               ts->job_id, ts->step_id);
    return 0;
}

static struct termsend *termsend_create (struct noded *nd, uint32_t job,
                                         uint32_t step, const char *reason,
                                         double timeout, stepd_term_f cb,
                                         void *arg)
{
    struct termsend *ts = calloc (1, sizeof (*ts));

    if (!ts || !(ts->reason = strdup (reason ? reason : ""))) {
        free (ts);
        return NULL;
    }
    ts->nd = nd;
    ts->job_id = job;
    ts->step_id = step;
    ts->timeout = timeout;
    ts->cb = cb;
    ts->arg = arg;
    ev_timer_init (&ts->timer, termsend_timeout_cb, timeout, 0.);
    ts->timer.data = ts;
    return ts;
}

/* Count 'ts' as pending: linked and timed. */
static void termsend_add (struct termsend *ts)
{
    struct stepd_table *t = ts->nd->stepds;

    ev_timer_start (ts->nd->loop, &ts->timer);
    ts->next = t->terms;
    t->terms = ts;
}

/* The stepds of ours still starting: they get it once they run. */
static int stepd_terminate_starting (struct noded *nd, uint32_t job,
                                     uint32_t step, const char *reason,
                                     double timeout, stepd_term_f cb, void *arg)
{
    int count = 0;

    for (struct stepd_rec *s = nd->stepds->head; s; s = s->next) {
        struct termsend *ts;
        if (s->job_id != job || (step != STEP_ID_ALL && s->step_id != step)
            || s->state != STEPD_STARTING)
            continue;
        if (!(ts = termsend_create (nd, s->job_id, s->step_id, reason, timeout,
                                    cb, arg))) {
            log_err ("stepd %u.%u: out of memory", s->job_id, s->step_id);
            continue;
        }
        ts->waiting = s;
        termsend_add (ts);
        count++;
    }
    return count;
}

/* What stepd_terminate_spool sends to whom, and who hears of it. */
struct term_spool {
    struct noded *nd;
    uint32_t job, step; /* step may be STEP_ID_ALL */
    const char *reason;
    double timeout;
    stepd_term_f cb;
    void *arg;
};

/* spool_scan_f: send to the stepd behind 'path' if it matches; how many
 * answers are awaited from it (0 or 1). */
static int stepd_terminate_socket (const char *path, uint32_t j, uint32_t s,
                                   void *arg)
{
    struct term_spool *t = arg;
    struct stepd_rec *sd;
    struct termsend *ts;

    if (j != t->job || (t->step != STEP_ID_ALL && s != t->step))
        return 0;
    sd = stepd_table_find (t->nd->stepds, j, s);
    if (sd && sd->state == STEPD_STARTING)
        return 0;
    if (!path)
        return 0;
    ts = termsend_create (t->nd, j, s, t->reason, t->timeout, t->cb, t->arg);
    if (ts && termsend_send (ts, path) == 0) {
        termsend_add (ts);
        return 1;
    }
    if (ts)
        termsend_free (ts);
    return stepd_orphan_wait (t->nd, j, s, t->cb, t->arg);
}

/* Send to the matching sockets of the spool (running stepds, ours or
 * from before a restart); ours still starting are left to the above. */
static int stepd_terminate_spool (struct noded *nd, uint32_t job, uint32_t step,
                                  const char *reason, double timeout,
                                  stepd_term_f cb, void *arg)
{
    struct term_spool t = { nd, job, step, reason, timeout, cb, arg };

    return spool_scan (nd->spool, stepd_terminate_socket, NULL, &t);
}

int stepd_terminate (struct noded *nd, uint32_t job, uint32_t step,
                     const char *reason, double timeout, stepd_term_f cb,
                     void *arg)
{
    return stepd_terminate_starting (nd, job, step, reason, timeout, cb, arg)
           + stepd_terminate_spool (nd, job, step, reason, timeout, cb, arg);
}

void stepd_terminate_cancel (struct noded *nd, void *arg)
{
    stepd_orphan_cancel (nd, arg);
    for (struct termsend *ts = nd->stepds->terms; ts; ts = ts->next) {
        if (ts->arg == arg)
            ts->cb = NULL;
    }
}

/* The first termination waiting for 's', or NULL. Callers rescan after
 * each report, since a callback may change the list. */
static struct termsend *termsend_waiting (struct stepd_table *t,
                                          const struct stepd_rec *s)
{
    for (struct termsend *ts = t->terms; ts; ts = ts->next) {
        if (ts->waiting == s)
            return ts;
    }
    return NULL;
}

void stepd_term_started (struct stepd_rec *s)
{
    struct stepd_table *t = s->nd->stepds;
    struct termsend *ts;
    char *path = stepd_socket_path (s->nd, s->job_id, s->step_id);

    while ((ts = termsend_waiting (t, s))) {
        ts->waiting = NULL;
        if (path && termsend_send (ts, path) == 0)
            continue;
        termsend_report (ts, 0, NULL); /* gone already */
    }
    free (path);
}

void stepd_term_gone (struct stepd_rec *s)
{
    struct termsend *ts;

    while ((ts = termsend_waiting (s->nd->stepds, s))) {
        ts->waiting = NULL;
        termsend_report (ts, 0, NULL); /* it never started its tasks */
    }
}
