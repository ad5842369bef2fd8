/* term.c - the termination sequence, controller side.
 *
 * A job's end is a transition like any other (jobstate.c: JS_CANCEL,
 * JS_TIMEOUT, ...); for a job that ran, its reactions call term_begin,
 * and this file carries the sequence on, in order: term_begin ->
 * term_send (JOB_TERMINATE to each node) -> term_answer (the noded's RC)
 * -> term_epilog_complete (EPILOG_COMPLETE) -> term_node_done (the node's
 * share back; after the last node, JS_EPILOG_DONE). term_node_down and
 * term_tick post the ends of node failures and time limits. The per-node
 * bookkeeping (struct term_node, term.h) is term.c's alone; job.c only
 * keeps the job records.
 *
 * Whatever ends a job (JOB_COMPLETE, its allocating connection closing,
 * JOB_CANCEL, the time limit, a node going DOWN) posts its end. A
 * pending job simply takes its final state. A running one takes its final
 * state with the completing flag (shown as COMPLETING), its steps are
 * forgotten (their stepds' late STEP_COMPLETEs are answered 0), and each
 * of its nodes counts the job in ncompleting (shown as node state
 * COMPLETING) while still holding the job's cores and memory there. Each
 * node is sent JOB_TERMINATE, with the environment its Epilog runs with;
 * a node that does not answer RC 0 is asked again every CTLD_TERM_RESEND
 * seconds (the request's retry, nodecomm_send_retry: term_again), until
 * the job no longer completes there. A failure is logged once per
 * job and node at info, then at debug, so a noded that cannot answer does
 * not flood the log.
 *
 * The node's EPILOG_COMPLETE (its processes are gone and the Epilog ran)
 * gives that node's share back, drains the node when it names a reason,
 * and when the last node is done the job loses its completing flag (the
 * cores given back request a scheduling pass, sched.h). A node that is DOWN and
 * not responding counts as done at once (Slurm does the same): nothing more can
 * be learnt from it, and its cores are not usable anyway until it registers
 * again. A node an administrator set DOWN is different: its noded still
 * answers and must empty its containers and run the Epilog like any
 * other, so it gets JOB_TERMINATE and its EPILOG_COMPLETE is awaited;
 * should it fall silent meanwhile, it counts as done once it has been
 * silent for CTLD_NODE_TIMEOUT (node_responding), so nothing waits
 * forever on it.
 *
 * Time limits: a running job is ended TIMEOUT once start + (time limit +
 * OverTimeLimit) minutes have passed; a job with --signal=SIG@T gets
 * STEP_KILL(SIG, no revoke) on each node once, T seconds before its time
 * limit (not counting OverTimeLimit, as in Slurm).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/cancel.h"
#include "conf.h"
#include "ctld.h"
#include "env.h"
#include "error.h"
#include "job/job.h"
#include "job/jobstate.h"
#include "nodes/heard.h"
#include "log.h"
#include "state/persist.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"
#include "nodes/part.h"
#include "proto.h"
#include "request.h"
#include "states.h"
#include "job/step.h"
#include "job/term.h"
#include "timestr.h"
#include "job/job_alloc.h"
#include "job/jobs.h"

/* ---- JOB_TERMINATE ------------------------------------------------------ */

/* The Epilog's environment (Slurm's names), built with common/env. */
static int term_env (const struct ctld *ctx, const struct job *j,
                     struct msg_job_terminate *m)
{
    struct env *e = env_create (NULL, 0);
    int rc = 0;

    if (!e)
        return -1;
    rc |= env_setf (e, "SLURM_JOB_ID", "%u", j->id);
    rc |= env_setf (e, "SLURM_JOBID", "%u", j->id);
    rc |= env_set (e, "SLURM_JOB_USER", j->user ? j->user : "");
    rc |= env_setf (e, "SLURM_JOB_UID", "%lu", (unsigned long)j->uid);
    rc |= env_setf (e, "SLURM_JOB_GID", "%lu", (unsigned long)j->gid);
    rc |= env_set (e, "SLURM_JOB_NAME", j->name ? j->name : "");
    rc |= env_set (e, "SLURM_JOB_NODELIST", j->nodelist ? j->nodelist : "");
    rc |= env_set (e, "SLURM_JOB_PARTITION", ctx->parts[j->part].name);
    rc |= env_set (e, "SLURM_CLUSTER_NAME",
                   ctx->conf->cluster_name ? ctx->conf->cluster_name : "arbor");
    rc |= env_set (e, "SLURM_JOB_STATE", job_state_str (j->state));
    rc |= env_setf (e, "SLURM_JOB_EXIT_CODE", "%d", j->exit_rc);
    rc |= gres_job_env (ctx, j, e);
    m->env_count = (uint32_t)env_count (e);
    m->env = env_take (e);
    return rc < 0 ? -1 : 0;
}

/* Position of node index 'node' in j's nodes, or -1. */
static int job_node_pos (const struct job *j, size_t node)
{
    for (size_t k = 0; k < j->nnodes; k++)
        if (j->nodes[k].node == node)
            return (int)k;
    return -1;
}

/* JOB_TERMINATE for job j as it is now (a requeue's nodes tell the
 * script why: "DUE TO JOB REQUEUE"). -1 with errno ENOMEM (m cleared). */
static int term_msg (const struct ctld *ctx, const struct job *j,
                     struct msg_job_terminate *m)
{
    *m = (struct msg_job_terminate){
        .job_id = j->id,
        .uid = (uint32_t)j->uid,
        .gid = (uint32_t)j->gid,
        .restarts = j->restarts,
    };
    if (!(m->user = strdup (j->user))
        || !(m->state = strdup (j->requeue_pending ? "REQUEUED"
                                                   : job_state_str (j->state)))
        || term_env (ctx, j, m) < 0) {
        proto_clear (MSG_JOB_TERMINATE, m);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* A JOB_TERMINATE to job node k failed: logged once at info, then at
 * debug, so a noded that cannot answer does not flood the log. */
static void term_failed (struct ctld *ctx, struct job *j, size_t k, int errnum,
                         const char *text)
{
    struct term_node *tn = &j->term[k];
    const char *name = ctx->nodes[j->nodes[k].node].name;

    if (!text || !text[0])
        text = strerror (errnum);
    if (!tn->logged)
        log_info ("job %u: JOB_TERMINATE to %s: %s (retrying every %d s)",
                  j->id, name, text, CTLD_TERM_RESEND);
    else
        log_debug ("job %u: JOB_TERMINATE to %s: %s", j->id, name, text);
    tn->logged = true;
}

/* A failed attempt of a JOB_TERMINATE: it counts toward the node's
 * liveness, and is sent again (rebuilt: the job may have been requeued
 * meanwhile) while the job completes and the node's share is held. Once
 * they are not, the request ends with this failure (term_nodecomm_cb
 * then reports it). */
static bool term_again (struct ctld *ctx, const struct nodecomm_result *res,
                        struct nodecomm_req *req, void *arg)
{
    struct job *j = job_find (ctx, res->job_id);
    struct msg_job_terminate m;
    int k;

    (void)arg;
    if (!j || (k = job_node_pos (j, res->node)) < 0 || !j->completing
        || j->nodes[k].released)
        return false;
    heard_nodecomm (ctx, res);
    j->term[k].sent = time (NULL);
    term_failed (ctx, j, (size_t)k, res->errnum, res->text);
    if (term_msg (ctx, j, &m) == 0) {
        (void)nodecomm_set_msg (req, &m); /* else the last one again */
        proto_clear (MSG_JOB_TERMINATE, &m);
    }
    return true;
}

/* The noded's answer to JOB_TERMINATE, or why there was none. */
static void term_nodecomm_cb (struct ctld *ctx,
                              const struct nodecomm_result *res, void *arg)
{
    (void)arg;
    heard_nodecomm (ctx, res);
    term_answer (ctx, res->job_id, res->node, res->errnum, res->text);
}

/* Send (or send anew) JOB_TERMINATE to job node k: one request, tried
 * again every CTLD_TERM_RESEND s after a failure (term_again). */
static void term_send (struct ctld *ctx, struct job *j, size_t k, time_t now)
{
    static const struct request_retry retry = { .interval = CTLD_TERM_RESEND };
    struct term_node *tn = &j->term[k];
    struct msg_job_terminate m;

    if (term_msg (ctx, j, &m) < 0) {
        log_err ("job %u: JOB_TERMINATE: out of memory", j->id);
        tn->sent = now; /* term_tick tries again */
        return;
    }
    tn->inflight = true;
    tn->sent = now;
    tn->req = nodecomm_send_retry (ctx, j->nodes[k].node, MSG_JOB_TERMINATE, &m,
                                   &retry, term_again, term_nodecomm_cb, NULL);
    proto_clear (MSG_JOB_TERMINATE, &m);
}

#define TERM_REQUEUE_WAIT 60 /* s: a batch step's report retries this long */

/* Requeue j once it is done completing and its old batch step reported
 * (or could not any more: never launched, node not responding, or the
 * noded's retries are over). */
void term_requeue_check (struct ctld *ctx, struct job *j, time_t now)
{
    if (j->completing || !j->requeue_pending)
        return;
    if (j->batch_launched && !j->batch_reported && j->nnodes > 0
        && node_responding (&ctx->nodes[j->nodes[0].node], now)
        && now < j->end_time + TERM_REQUEUE_WAIT)
        return; /* term_tick looks again */
    (void)jobstate_post (ctx, j, JS_RERUN, NULL);
}

/* Job node k is done: its share goes back, the node leaves COMPLETING
 * for this job, and the job stops completing after its last node. */
static void term_node_done (struct ctld *ctx, struct job *j, size_t k)
{
    struct node *n = &ctx->nodes[j->nodes[k].node];

    if (j->nodes[k].released)
        return;
    nodecomm_cancel (ctx, j->term[k].req); /* nothing more to tell it */
    j->term[k].req = NULL;
    j->term[k].inflight = false;
    job_node_release (ctx, j, k);
    if (n->ncompleting > 0)
        n->ncompleting--;
    for (size_t i = 0; i < j->nnodes; i++)
        if (!j->nodes[i].released)
            return;
    (void)jobstate_post (ctx, j, JS_EPILOG_DONE, NULL);
}

/* ---- the start of the sequence ---------------------------------------- */

void term_begin (struct ctld *ctx, struct job *j)
{
    time_t now = ctld_now (ctx);

    for (size_t k = 0; k < j->nnodes; k++)
        ctx->nodes[j->nodes[k].node].ncompleting++;
    for (size_t k = 0; k < j->nnodes && j->completing; k++) {
        if (!node_responding (&ctx->nodes[j->nodes[k].node], now))
            term_node_done (ctx, j, k);
        else
            term_send (ctx, j, k, now);
    }
}

/* ---- answers ------------------------------------------------------------ */

void term_answer (struct ctld *ctx, uint32_t job_id, size_t node, int errnum,
                  const char *text)
{
    struct job *j = job_find (ctx, job_id);
    struct term_node *tn;
    int k;

    if (!j || (k = job_node_pos (j, node)) < 0)
        return;
    tn = &j->term[k];
    tn->req = NULL; /* its request is over */
    tn->inflight = false;
    tn->sent = time (NULL);
    if (!j->completing || j->nodes[k].released)
        return;
    if (errnum == 0) {
        tn->acked = true;
        log_debug ("job %u: %s is terminating it", j->id,
                   ctx->nodes[node].name);
        return;
    }
    term_failed (ctx, j, (size_t)k, errnum, text);
}

/* An EPILOG_COMPLETE asking for a drain. A DOWN node stays DOWN (with
 * its reason): RESUME is needed either way. */
void term_drain (struct ctld *ctx, size_t node, const char *why, uint32_t job)
{
    struct node *n = &ctx->nodes[node];

    if (n->base == NODE_DOWN) {
        log_warn ("node %s (DOWN) after job %u: %s", n->name, job, why);
        return;
    }
    n->base = NODE_DRAIN;
    n->drain = true;
    n->auto_drain = false;
    (void)node_set_reason (n, why, ctx->priv_uid, time (NULL));
    persist_node (ctx, node);
    log_warn ("node %s drained after job %u: %s", n->name, job, why);
}

int term_epilog_complete (struct ctld *ctx, const struct msg_epilog_complete *m,
                          arbor_error_t *err)
{
    int idx = node_index (ctx, m->node);
    struct job *j = job_find (ctx, m->job_id);
    int k;

    if (idx < 0) {
        errno = ENOENT;
        return errprintf (err, "invalid node name %s", m->node ? m->node : "");
    }
    if (!j) {
        log_verbose ("epilog complete for unknown job %u from %s", m->job_id,
                     m->node);
        return 0;
    }
    if ((k = job_node_pos (j, (size_t)idx)) < 0) {
        errno = ENOENT;
        return errprintf (err, "node %s is not in job %u", m->node, j->id);
    }
    if (!j->completing || j->nodes[k].released) {
        log_debug ("job %u: repeated epilog complete from %s", j->id, m->node);
        return 0;
    }
    j->term[k].acked = true;
    if (m->rc != 0)
        log_warn ("job %u: epilog on %s exited with status %d", j->id, m->node,
                  m->rc);
    if (m->drain_reason && m->drain_reason[0])
        term_drain (ctx, (size_t)idx, m->drain_reason, j->id);
    log_verbose ("job %u: epilog complete on %s", j->id, m->node);
    term_node_done (ctx, j, (size_t)k);
    return 0;
}

/* ---- node events -------------------------------------------------------- */

void term_node_down (struct ctld *ctx, size_t node, const char *why)
{
    bool gone = !node_responding (&ctx->nodes[node], time (NULL));

    for (struct job *j = ctx->jobs; j; j = j->next) {
        int k = job_node_pos (j, node);
        if (k < 0)
            continue;
        if (j->state == JOB_RUNNING) /* requeued if it asked (jobstate.c) */
            job_end (ctx, j, JOB_NODE_FAIL, why);
        else if (j->completing && gone)
            term_node_done (ctx, j, (size_t)k);
    }
}

void term_node_registered (struct ctld *ctx, size_t node, time_t now)
{
    for (struct job *j = ctx->jobs; j; j = j->next) {
        int k = job_node_pos (j, node);
        struct term_node *tn;
        if (k < 0 || !j->completing)
            continue;
        tn = &j->term[k];
        if (!j->nodes[k].released && tn->acked
            && now >= tn->sent + CTLD_TERM_REPEAT)
            tn->acked = false; /* term_tick asks again */
    }
}

/* ---- the 1 s timer ------------------------------------------------------ */

/* TIMEOUT, or the --signal warning. True when the job ended. Time spent
 * suspended does not count, as in Slurm: the limit moves on by it. */
static bool term_check_limit (struct ctld *ctx, struct job *j, time_t now)
{
    uint64_t over = ctx->conf->over_time_limit;
    uint64_t limit = (uint64_t)j->start_time + (uint64_t)j->time_limit * 60
                     + j->suspended_secs;

    if (j->time_limit == TIME_INFINITE || j->suspended)
        return false;
    if (over != TIME_INFINITE && (uint64_t)now >= limit + over * 60) {
        job_end (ctx, j, JOB_TIMEOUT, "TimeLimit");
        return true;
    }
    if (j->warn_signal && !j->warned && (uint64_t)now + j->warn_time >= limit) {
        j->warned = true;
        persist_job (ctx, j);
        int sig = j->warn_signal & ~WARN_SIGNAL_BATCH;
        bool shell = j->warn_signal & WARN_SIGNAL_BATCH;
        log_info ("job %u: signal %d to %s, %u s before its time limit", j->id,
                  sig, shell ? "its batch shell" : "its steps", j->warn_time);
        /* As sbatch --signal: B: the batch shell alone, else the steps
         * but the shell (which need not catch it) */
        cancel_signal_job (ctx, j, sig, shell ? CANCEL_BATCH : CANCEL_STEPS);
    }
    return false;
}

/* Nodes not responding count as done (also one that acknowledged and
 * then fell silent before its epilog completed); JOB_TERMINATE goes anew
 * where none is out and it is due: a node asked again after it
 * registered (term_node_registered), or a send that could not start.
 * (A failed one is tried again by its request, term_again.) */
static void term_resend (struct ctld *ctx, struct job *j, time_t now)
{
    for (size_t k = 0; k < j->nnodes && j->completing; k++) {
        struct job_node *jn = &j->nodes[k];
        struct term_node *tn = &j->term[k];
        if (jn->released)
            continue;
        if (!node_responding (&ctx->nodes[jn->node], now))
            term_node_done (ctx, j, k);
        else if (!tn->acked && !tn->inflight
                 && now >= tn->sent + CTLD_TERM_RESEND)
            term_send (ctx, j, k, now);
    }
}

bool term_tick (struct ctld *ctx, time_t now)
{
    bool freed = false;

    for (struct job *j = ctx->jobs; j; j = j->next) {
        if (j->state == JOB_RUNNING && term_check_limit (ctx, j, now))
            freed = true;
        if (j->completing) {
            term_resend (ctx, j, now);
            freed |= !j->completing;
        }
        if (j->requeue_pending && !j->completing)
            term_requeue_check (ctx, j, now);
    }
    return freed;
}
