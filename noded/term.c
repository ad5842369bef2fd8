/* term.c - the end of jobs and steps on this node.
 *
 * One struct term per job the ctld asked to terminate, linked from
 * nd->terms, walks KILLING -> EPILOG -> NOTIFYING -> DONE (see term.h).
 * Every phase is driven by callbacks on the loop: stepd answers
 * (stepd_term.c), the Epilog's ev_child (epilog.c), the ctld's RC. Nothing
 * here blocks: EPILOG_COMPLETE is a request (common/wire/request.h) that
 * retries itself (opts.retry): an attempt not acknowledged within 5 s is
 * given up and started again, so a ctld that restarts or hangs is retried
 * every 5 s. Finished jobs stay on the list (DONE) for TERM_DONE_KEEP
 * seconds so that a JOB_TERMINATE the ctld repeats (it lost our
 * EPILOG_COMPLETE, or restarted) is answered with EPILOG_COMPLETE again,
 * without killing or running the Epilog twice. A term is one run of a
 * job: the JOB_TERMINATE of a requeued job's next run replaces it and
 * ends that run in turn.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "epilog.h"
#include "log.h"
#include "noded_base.h"
#include "prolog.h"
#include "request.h"
#include "revoke.h"
#include "stepd_term.h"
#include "term.h"

struct term {
    struct noded *nd;
    struct term *next;
    uint32_t job_id;
    uint32_t restarts; /* the run that ends (a requeued job's are new) */
    struct msg_job_terminate req; /* owned: state, env for the Epilog;
                                   * cleared once both have run */
    enum term_phase phase;
    int pending;    /* stepd answers still awaited */
    int rc;         /* the Epilog's exit status */
    char drain[64]; /* "" or why the node should drain */
    struct epilog *ep;
    /* EPILOG_COMPLETE */
    struct request *notify; /* the EPILOG_COMPLETE, until acknowledged */
    char last_error[160];   /* logged once, until it changes */
    double done_at;         /* ev time it reached DONE */
};

static double term_resend (const struct noded *nd)
{
    return nd->term_resend > 0 ? nd->term_resend : TERM_RESEND;
}

double term_stepd_timeout (const struct noded *nd)
{
    return (double)nd->conf->kill_wait
           + (double)nd->conf->unkillable_step_timeout + TERM_SAFETY;
}

static struct term *term_find (const struct noded *nd, uint32_t job)
{
    for (struct term *t = nd->terms; t; t = t->next) {
        if (t->job_id == job)
            return t;
    }
    return NULL;
}

enum term_phase term_job_phase (const struct noded *nd, uint32_t job)
{
    const struct term *t = term_find (nd, job);

    return t ? t->phase : TERM_UNKNOWN;
}

static void term_free (struct term *t)
{
    request_cancel (t->notify);
    epilog_destroy (t->ep);
    stepd_terminate_cancel (t->nd, t);
    proto_clear (MSG_JOB_TERMINATE, &t->req);
    free (t);
}

static void term_unlink (struct term *t)
{
    for (struct term **pp = &t->nd->terms; *pp; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            return;
        }
    }
}

void term_destroy_all (struct noded *nd)
{
    int saved = errno;

    while (nd->terms) {
        struct term *t = nd->terms;
        nd->terms = t->next;
        term_free (t);
    }
    errno = saved;
}

/* Forget finished jobs older than TERM_DONE_KEEP, and the oldest ones
 * beyond TERM_DONE_MAX. */
static void term_sweep (struct noded *nd)
{
    double now = ev_now (nd->loop);
    size_t done = 0;
    struct term *oldest;

    do {
        struct term **pp = &nd->terms;
        oldest = NULL;
        done = 0;
        while (*pp) {
            struct term *t = *pp;
            if (t->phase == TERM_DONE && t->done_at + TERM_DONE_KEEP < now) {
                *pp = t->next;
                term_free (t);
                continue;
            }
            if (t->phase == TERM_DONE) {
                done++;
                if (!oldest || t->done_at < oldest->done_at)
                    oldest = t;
            }
            pp = &t->next;
        }
        if (done > TERM_DONE_MAX) {
            term_unlink (oldest);
            term_free (oldest);
        }
    } while (done > TERM_DONE_MAX);
}

/* ---- NOTIFYING: EPILOG_COMPLETE until the ctld answers RC 0 ----------- */

static void term_notify_failed (struct term *t, const char *prefix,
                                const char *text)
{
    char msg[sizeof (t->last_error)];
    const struct conf *conf = t->nd->conf;

    snprintf (msg, sizeof (msg), "%s%s", prefix, text);
    if (strcmp (msg, t->last_error) != 0) {
        log_info ("job %u: epilog complete to ctld at %s:%u: %s (retrying "
                  "every %.0f s)",
                  t->job_id, conf->control_addr, conf->ctld_port, msg,
                  term_resend (t->nd));
        snprintf (t->last_error, sizeof (t->last_error), "%s", msg);
    }
}

/* request_again_f: every failure, a refusal too, is logged (once) and
 * retried: the ctld must learn that the node is clean. */
static bool term_notify_again (const struct request_result *res, void *arg)
{
    term_notify_failed (arg, res->outcome == REQUEST_REFUSED ? "refused: " : "",
                        res->err.text);
    return true;
}

static void term_notify_done_cb (const struct request_result *res, void *arg)
{
    struct term *t = arg;

    t->notify = NULL; /* freed by request.c after this returns */
    /* A failure ends it only when no retry could start (out of memory) */
    if (res->errnum != 0) {
        term_notify_failed (t,
                            res->outcome == REQUEST_REFUSED ? "refused: " : "",
                            res->err.text);
        return;
    }
    log_verbose ("job %u: epilog complete acknowledged by the ctld", t->job_id);
    t->phase = TERM_DONE;
    t->done_at = ev_now (t->nd->loop);
    t->last_error[0] = '\0';
}

/* EPILOG_COMPLETE, attempt after attempt every term_resend s (each given
 * up after as long), until the ctld acknowledges it. */
static void term_notify_attempt (struct term *t)
{
    struct noded *nd = t->nd;
    const struct conf *conf = nd->conf;
    struct msg_epilog_complete m = {
        .job_id = t->job_id,
        .node = (char *)nd->name,
        .rc = t->rc,
        .drain_reason = t->drain,
    };
    struct request_opts opts;

    noded_ctld_opts (nd, term_resend (nd), &opts);
    opts.retry.interval = term_resend (nd);
    opts.retry.from_start = true;
    opts.retry.again = term_notify_again;
    request_cancel (t->notify); /* one in progress is started anew */
    t->notify =
        request_tcp (nd->loop, conf->control_addr, conf->ctld_port,
                     MSG_EPILOG_COMPLETE, &m, &opts, term_notify_done_cb, t);
    if (!t->notify)
        term_notify_failed (t, "", strerror (errno));
}

static void term_notify (struct term *t)
{
    /* The request served the kill and the Epilog, both over: a finished
     * job is remembered (TERM_DONE_KEEP) without it. Its environment was
     * most of the 0.8 KB each one kept. */
    proto_clear (MSG_JOB_TERMINATE, &t->req);
    t->phase = TERM_NOTIFYING;
    log_info ("job %u: sending epilog complete (rc %d%s%s)", t->job_id, t->rc,
              t->drain[0] ? ", drain: " : "", t->drain);
    term_notify_attempt (t);
}

/* ---- EPILOG ------------------------------------------------------------ */

static void term_set_drain (struct term *t, const char *reason)
{
    if (!t->drain[0]) /* the first cause is the one reported */
        snprintf (t->drain, sizeof (t->drain), "%s", reason);
}

static void term_epilog_done (int rc, const char *drain_reason, void *arg)
{
    struct term *t = arg;

    t->ep = NULL; /* freed by epilog.c after this returns */
    t->rc = rc;
    if (drain_reason) {
        log_err ("job %u: %s (status %d): %s", t->job_id, t->nd->conf->epilog,
                 rc, drain_reason);
        term_set_drain (t, drain_reason);
    } else {
        log_verbose ("job %u: epilog done", t->job_id);
    }
    term_notify (t);
}

/* Where the Epilog's output goes: the noded's log file, or its stderr. */
static void term_epilog (struct term *t)
{
    struct noded *nd = t->nd;
    const char *path = nd->conf->epilog;
    char **env;
    char *out;
    arbor_error_t err;

    t->phase = TERM_EPILOG;
    if (!path || !path[0]) {
        term_notify (t);
        return;
    }
    if (!(env = epilog_env (&t->req, nd->name))) {
        snprintf (err.text, sizeof (err.text), "out of memory");
    } else {
        out = script_output_path (nd->conf, nd->name);
        t->ep = epilog_start (nd->loop, path, env, out,
                              (double)nd->conf->prolog_epilog_timeout,
                              term_epilog_done, t, &err);
        free (out);
        epilog_env_free (env);
    }
    if (!t->ep) {
        log_err ("job %u: epilog: %s", t->job_id, err.text);
        t->rc = 127;
        term_set_drain (t, EPILOG_ERROR);
        term_notify (t);
        return;
    }
    log_verbose ("job %u: running epilog %s (pid %d)", t->job_id, path,
                 (int)epilog_pid (t->ep));
}

/* ---- KILLING ----------------------------------------------------------- */

static void term_stepd_cb (uint32_t job, uint32_t step, int errnum,
                           const char *text, void *arg)
{
    struct term *t = arg;

    if (errnum != 0) {
        log_err ("job %u: stepd %u.%u: %s", job, job, step,
                 text && text[0] ? text : strerror (errnum));
        term_set_drain (t, TERM_KILL_FAILED);
    } else {
        log_verbose ("job %u: step %u.%u ended", job, job, step);
    }
    if (--t->pending == 0)
        term_epilog (t);
}

/* A JOB_TERMINATE the job is already known for. */
static void term_job_again (struct term *t)
{
    if (t->phase != TERM_DONE) {
        log_debug ("job %u: terminate again: already in progress", t->job_id);
        return;
    }
    log_verbose ("job %u: terminate again: already done, resending epilog "
                 "complete",
                 t->job_id);
    t->last_error[0] = '\0';
    term_notify (t);
}

static void term_job_start (struct term *t)
{
    struct noded *nd = t->nd;

    t->phase = TERM_KILLING;
    t->pending = stepd_terminate (nd, t->job_id, STEP_ID_ALL,
                                  t->req.state ? t->req.state : "",
                                  term_stepd_timeout (nd), term_stepd_cb, t);
    log_info ("terminate job %u (%s): %d stepd%s", t->job_id,
              t->req.state ? t->req.state : "?", t->pending,
              t->pending == 1 ? "" : "s");
    if (t->pending == 0)
        term_epilog (t);
}

void term_job_handle (struct noded *nd, struct conn *c, const struct frame *f,
                      struct msg_job_terminate *m)
{
    struct term *t;

    revoke_add (nd->revoked, m->job_id, m->restarts, STEP_ID_ALL,
                time (NULL) + (time_t)nd->conf->cred_expire);
    prolog_forget (nd, m->job_id);
    if (conn_send_rc (c, f->matchtag, 0, "%s", "") < 0)
        log_info ("terminate job %u: cannot answer %s: %s", m->job_id,
                  conn_peer (c), strerror (errno));
    term_sweep (nd);
    if ((t = term_find (nd, m->job_id)) && t->restarts == m->restarts) {
        term_job_again (t);
        return;
    }
    if (t && t->restarts > m->restarts) {
        log_verbose ("job %u: terminate of run %u ignored: run %u is ending",
                     m->job_id, m->restarts, t->restarts);
        return;
    }
    if (t) {
        /* A requeued job's next run ends: the earlier run's end is over
         * (the ctld started this run after its EPILOG_COMPLETE), and this
         * run's processes must be ended and its Epilog run in turn. */
        term_unlink (t);
        term_free (t);
    }
    if (!(t = calloc (1, sizeof (*t)))) {
        log_err ("terminate job %u: out of memory", m->job_id);
        return;
    }
    t->nd = nd;
    t->job_id = m->job_id;
    t->restarts = m->restarts;
    t->req = *m;
    memset (m, 0, sizeof (*m)); /* taken over */
    t->next = nd->terms;
    nd->terms = t;
    term_job_start (t);
}

/* ---- STEP_TERMINATE ---------------------------------------------------- */

static void term_step_cb (uint32_t job, uint32_t step, int errnum,
                          const char *text, void *arg)
{
    if (errnum != 0)
        log_err ("step %u.%u: %s", job, step,
                 text && text[0] ? text : strerror (errnum));
    else
        log_verbose ("step %u.%u ended", job, step);
}

void term_step_handle (struct noded *nd, struct conn *c, const struct frame *f,
                       const struct msg_step_terminate *m)
{
    int count;

    revoke_add (nd->revoked, m->job_id, m->restarts, m->step_id,
                time (NULL) + (time_t)nd->conf->cred_expire);
    count =
        stepd_terminate (nd, m->job_id, m->step_id, m->reason ? m->reason : "",
                         term_stepd_timeout (nd), term_step_cb, nd);
    log_info ("terminate step %u.%u (%s): %d stepd%s", m->job_id, m->step_id,
              m->reason ? m->reason : "?", count, count == 1 ? "" : "s");
    if (conn_send_rc (c, f->matchtag, 0, "%d stepd%s terminating", count,
                      count == 1 ? "" : "s")
        < 0)
        log_info ("terminate step %u.%u: cannot answer %s: %s", m->job_id,
                  m->step_id, conn_peer (c), strerror (errno));
}
