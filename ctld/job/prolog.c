/* prolog.c - Prologs at allocation time and their failures; see prolog.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctld.h"
#include "env.h"
#include "job/job.h"
#include "nodes/heard.h"
#include "log.h"
#include "state/persist.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"
#include "nodes/part.h"
#include "job/prolog.h"
#include "job/jobstate.h"
#include "states.h"
#include "job/term.h"
#include "job/jobs.h"

#define PROLOG_SLACK 10 /* s on top of PrologEpilogTimeout */

void prolog_failed (struct ctld *ctx, struct job *j, size_t node,
                    const char *why)
{
    term_drain (ctx, node, why, j->id);
    prolog_requeue (ctx, j, node, why);
}

void prolog_requeue (struct ctld *ctx, struct job *j, size_t node,
                     const char *why)
{
    if (!job_is_active (j) || j->requeue_pending)
        return;
    if (j->granted && !j->batch) { /* its requester holds it already */
        job_end (ctx, j, JOB_NODE_FAIL, why);
        return;
    }
    log_info ("job %u: prolog failed on %s: requeued", j->id,
              ctx->nodes[node].name);
    j->prologs_left = 0;
    (void)jobstate_post (
        ctx, j, JS_REQUEUE,
        &(struct jobstate_arg){ .state = JOB_NODE_FAIL, .reason = why });
}

void prolog_failed_msg (struct ctld *ctx, const struct msg_prolog_failed *m)
{
    struct job *j = job_find (ctx, m->job_id);
    int idx = node_index (ctx, m->node);

    if (idx < 0)
        return;
    if (!j || j->restarts != m->restarts) {
        term_drain (ctx, (size_t)idx,
                    m->reason && *m->reason ? m->reason : "Prolog error",
                    m->job_id);
        return;
    }
    prolog_failed (ctx, j, (size_t)idx,
                   m->reason && *m->reason ? m->reason : "Prolog error");
}

/* A node's answer to JOB_PROLOG. */
static void prolog_answer_cb (struct ctld *ctx,
                              const struct nodecomm_result *res, void *arg)
{
    struct job *j = job_find (ctx, res->job_id);
    uintptr_t run = (uintptr_t)arg;

    heard_nodecomm (ctx, res);
    if (!j || j->state != JOB_RUNNING || j->restarts != run
        || j->prologs_left == 0)
        return;
    if (res->errnum && !res->answered) { /* liveness deals with it */
        prolog_requeue (ctx, j, res->node, "Prolog not answered");
        return;
    }
    if (res->errnum) {
        prolog_failed (ctx, j, res->node,
                       res->text ? res->text : "Prolog error");
        return;
    }
    persist_job (ctx, j);
    if (--j->prologs_left == 0) {
        log_verbose ("job %u: prologs done", j->id);
        (void)jobstate_post (ctx, j, JS_PROLOG_DONE, NULL);
    }
}

bool prolog_alloc_start (struct ctld *ctx, struct job *j)
{
    const struct conf *conf = ctx->conf;
    struct msg_job_prolog m = {
        .job_id = j->id,
        .restarts = j->restarts,
        .uid = (uint32_t)j->uid,
        .gid = (uint32_t)j->gid,
        .user = j->user,
    };
    struct env *e;

    if (!(conf->prolog_flags & CONF_PROLOG_ALLOC) || !conf->prolog
        || !*conf->prolog || j->nnodes == 0)
        return false;
    if (!(e = env_create (NULL, 0))
        || env_set (e, "SLURM_JOB_NODELIST", j->nodelist) < 0
        || env_set (e, "SLURM_JOB_NAME", j->name) < 0
        || env_set (e, "SLURM_JOB_PARTITION", ctx->parts[j->part].name) < 0
        || gres_job_env (ctx, j, e) < 0) {
        env_destroy (e);
        log_err ("job %u: prolog: out of memory", j->id);
        return false;
    }
    m.env = env_vars (e);
    m.env_count = (uint32_t)env_count (e);
    j->prologs_left = (uint32_t)j->nnodes;
    (void)job_set_reason (j, "Prolog");
    for (size_t k = 0; k < j->nnodes; k++)
        nodecomm_send_timeout (ctx, j->nodes[k].node, MSG_JOB_PROLOG, &m,
                               conf->prolog_epilog_timeout + PROLOG_SLACK,
                               prolog_answer_cb,
                               (void *)(uintptr_t)j->restarts);
    env_destroy (e);
    return true;
}
