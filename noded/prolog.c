/* prolog.c - the Prolog, once per job and run on this node; see prolog.h.
 *
 * One record per (job, run) on nd->prologs: RUNNING with its waiters,
 * then OK or FAILED. A failure is sent to the controller (PROLOG_FAILED)
 * once, best effort: the launch or JOB_PROLOG that waited for the Prolog
 * fails with the same reason anyway. JOB_PROLOG requests wait on
 * nd->prolog_reqs until the Prolog has ended (or their connection
 * closed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "epilog.h"
#include "log.h"
#include "noded_base.h"
#include "prolog.h"
#include "request.h"

enum prolog_state { PROLOG_RUNNING, PROLOG_OK, PROLOG_FAILED };

struct prolog_wait {
    struct prolog_wait *next;
    struct prolog_run *run;
    prolog_done_f cb;
    void *arg;
};

struct prolog_run {
    struct prolog_run *next;
    struct noded *nd;
    uint32_t job_id, restarts;
    enum prolog_state state;
    char why[64];
    struct epilog *ep;
    struct prolog_wait *waits;
};

static struct prolog_run *prolog_find (struct noded *nd, uint32_t job,
                                       uint32_t restarts)
{
    for (struct prolog_run *r = nd->prologs; r; r = r->next)
        if (r->job_id == job && r->restarts == restarts)
            return r;
    return NULL;
}

/* Tell the controller (best effort: the launch or JOB_PROLOG that waited
 * fails with the same reason). */
static void prolog_report_cb (const struct request_result *res, void *arg)
{
    (void)arg;
    if (res->errnum)
        log_warn ("PROLOG_FAILED: %s", res->err.text);
}

static void prolog_report (struct prolog_run *r, int rc)
{
    struct noded *nd = r->nd;
    struct msg_prolog_failed m = {
        .job_id = r->job_id,
        .restarts = r->restarts,
        .node = (char *)nd->name,
        .rc = rc,
        .reason = r->why,
    };
    struct request_opts opts;

    noded_ctld_opts (nd, 10.0, &opts);
    if (!request_tcp (nd->loop, nd->conf->control_addr, nd->conf->ctld_port,
                      MSG_PROLOG_FAILED, &m, &opts, prolog_report_cb, NULL))
        log_err ("job %u: cannot report the prolog failure: %s", r->job_id,
                 strerror (errno));
}

/* The run ended: answer every waiter. */
static void prolog_finish (struct prolog_run *r)
{
    while (r->waits) {
        struct prolog_wait *w = r->waits;
        r->waits = w->next;
        w->cb (r->state == PROLOG_OK ? 0 : EIO, r->why, w->arg);
        free (w);
    }
}

static void prolog_done_cb (int rc, const char *drain_reason, void *arg)
{
    struct prolog_run *r = arg;

    r->ep = NULL;
    if (rc == 0) {
        r->state = PROLOG_OK;
        log_verbose ("job %u: prolog done", r->job_id);
    } else {
        r->state = PROLOG_FAILED;
        snprintf (r->why, sizeof (r->why), "%s",
                  drain_reason && !strcmp (drain_reason, EPILOG_TIMED_OUT)
                      ? PROLOG_TIMED_OUT
                      : PROLOG_ERROR);
        log_err ("job %u: prolog failed (status %d): %s", r->job_id, rc,
                 r->why);
        prolog_report (r, rc);
    }
    prolog_finish (r);
}

/* Start the Prolog for r; on failure r is FAILED with why. */
static void prolog_start (struct prolog_run *r, const struct prolog_job *pj)
{
    struct noded *nd = r->nd;
    struct script_job sj = { pj->job_id, pj->uid, pj->gid,
                             pj->user,   pj->env, pj->env_count };
    char **env = script_env (&sj, nd->name, "prolog_slurmd");
    char *out = script_output_path (nd->conf, nd->name);
    arbor_error_t err = { "out of memory" };

    if (env)
        r->ep = epilog_start (nd->loop, nd->conf->prolog, env, out,
                              (double)nd->conf->prolog_epilog_timeout,
                              prolog_done_cb, r, &err);
    epilog_env_free (env);
    free (out);
    if (!r->ep) {
        log_err ("job %u: prolog: %s", r->job_id, err.text);
        r->state = PROLOG_FAILED;
        snprintf (r->why, sizeof (r->why), PROLOG_ERROR);
        prolog_report (r, 127);
        return;
    }
    log_verbose ("job %u: running prolog %s (pid %d)", r->job_id,
                 nd->conf->prolog, (int)epilog_pid (r->ep));
}

struct prolog_wait *prolog_ensure (struct noded *nd,
                                   const struct prolog_job *pj,
                                   prolog_done_f cb, void *arg)
{
    struct prolog_run *r;
    struct prolog_wait *w;

    if (!nd->conf->prolog || !*nd->conf->prolog) {
        cb (0, "", arg);
        return NULL;
    }
    if (!(r = prolog_find (nd, pj->job_id, pj->restarts))) {
        if (!(r = calloc (1, sizeof (*r)))) {
            cb (ENOMEM, "out of memory", arg);
            return NULL;
        }
        r->nd = nd;
        r->job_id = pj->job_id;
        r->restarts = pj->restarts;
        r->next = nd->prologs;
        nd->prologs = r;
        prolog_start (r, pj);
    }
    if (r->state != PROLOG_RUNNING) {
        cb (r->state == PROLOG_OK ? 0 : EIO, r->why, arg);
        return NULL;
    }
    if (!(w = calloc (1, sizeof (*w)))) {
        cb (ENOMEM, "out of memory", arg);
        return NULL;
    }
    *w = (struct prolog_wait){ r->waits, r, cb, arg };
    r->waits = w;
    return w;
}

void prolog_wait_cancel (struct prolog_wait *w)
{
    if (!w)
        return;
    for (struct prolog_wait **pp = &w->run->waits; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    free (w);
}

static void prolog_free (struct prolog_run *r)
{
    epilog_destroy (r->ep);
    while (r->waits) {
        struct prolog_wait *w = r->waits;
        r->waits = w->next;
        free (w);
    }
    free (r);
}

void prolog_forget (struct noded *nd, uint32_t job_id)
{
    struct prolog_run **pp = &nd->prologs;

    while (*pp) {
        struct prolog_run *r = *pp;
        if (r->job_id != job_id) {
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        if (r->state == PROLOG_RUNNING) { /* killed with the job */
            r->state = PROLOG_FAILED;
            snprintf (r->why, sizeof (r->why), "the job ended");
            prolog_finish (r);
        }
        prolog_free (r);
    }
}

/* ---- JOB_PROLOG ------------------------------------------------------- */

struct prolog_req {
    struct prolog_req *next;
    struct noded *nd;
    struct conn *c;
    uint32_t tag;
    uint32_t job_id;
    struct prolog_wait *wait;
    bool starting; /* inside prolog_ensure: the answer waits for it */
    bool done;     /* ... and the Prolog's outcome is in: */
    int errnum;
    char why[64];
};

static void prolog_req_unlink (struct prolog_req *q)
{
    for (struct prolog_req **pp = &q->nd->prolog_reqs; *pp; pp = &(*pp)->next)
        if (*pp == q) {
            *pp = q->next;
            return;
        }
}

/* Answer q and free it. */
static void prolog_req_answer (struct prolog_req *q, int errnum,
                               const char *why)
{
    if (conn_send_rc (q->c, q->tag, errnum, "%s", errnum ? why : "") < 0)
        log_info ("job %u: cannot answer JOB_PROLOG: %s", q->job_id,
                  strerror (errno));
    prolog_req_unlink (q);
    free (q);
}

static void prolog_req_done (int errnum, const char *why, void *arg)
{
    struct prolog_req *q = arg;

    q->wait = NULL;
    if (q->starting) { /* called back from inside prolog_ensure */
        q->done = true;
        q->errnum = errnum;
        snprintf (q->why, sizeof (q->why), "%s", why ? why : "");
        return;
    }
    prolog_req_answer (q, errnum, why);
}

void prolog_handle (struct noded *nd, struct conn *c, const struct frame *f,
                    const struct msg_job_prolog *m)
{
    struct prolog_job pj = { m->job_id, m->restarts, m->uid,      m->gid,
                             m->user,   m->env,      m->env_count };
    struct prolog_req *q = calloc (1, sizeof (*q));

    if (!q) {
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
        return;
    }
    *q = (struct prolog_req){
        .next = nd->prolog_reqs,
        .nd = nd,
        .c = c,
        .tag = f->matchtag,
        .job_id = m->job_id,
        .starting = true,
    };
    nd->prolog_reqs = q;
    q->wait = prolog_ensure (nd, &pj, prolog_req_done, q);
    q->starting = false;
    if (q->done)
        prolog_req_answer (q, q->errnum, q->why);
}

void prolog_conn_closed (struct noded *nd, struct conn *c)
{
    struct prolog_req **pp = &nd->prolog_reqs;

    while (*pp) {
        struct prolog_req *q = *pp;
        if (q->c != c) {
            pp = &q->next;
            continue;
        }
        *pp = q->next;
        prolog_wait_cancel (q->wait); /* the Prolog goes on */
        free (q);
    }
}

void prolog_destroy_all (struct noded *nd)
{
    while (nd->prolog_reqs) {
        struct prolog_req *q = nd->prolog_reqs;
        nd->prolog_reqs = q->next;
        free (q);
    }
    while (nd->prologs) {
        struct prolog_run *r = nd->prologs;
        nd->prologs = r->next;
        prolog_free (r);
    }
}
