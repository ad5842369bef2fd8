/* orphan.c - jobs a noded runs that the controller does not expect there.
 *
 * Each registration lists the jobs with a stepd on the node
 * (NODE_REGISTER job_ids). A job is expected there while it is RUNNING on
 * that node, or completing there (its share not yet released). Any other
 * is an orphan: a job of a controller that restarted without durable
 * state (its id is unknown here), or one ended while its node was not
 * responding (term_node_down counted that node done at once, but its
 * stepds may have survived). Slurm kills such jobs ("Killing unknown
 * job"); so do we, through the ordinary termination sequence so that the
 * Epilog runs: JOB_TERMINATE, one request tried again every
 * CTLD_TERM_RESEND s until answered (its retry: orphan_again), and asked
 * anew on a registration CTLD_TERM_REPEAT s after an answer (a noded
 * that restarted forgets). Until the node's
 * EPILOG_COMPLETE for it, the orphan keeps the node out of scheduling:
 * what it uses is not known, so the node is shown COMPLETING (DRAINING
 * when drained) and takes no job (node_usable).
 *
 * An orphan of an unknown job is terminated with uid and gid
 * ORPHAN_UNKNOWN_ID and an empty user (its Epilog sees
 * SLURM_JOB_UID=4294967295): the controller cannot know whose it was,
 * and naming root would be worse. A node that stops responding forgets
 * its orphans (it reports them again when it registers).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctld.h"
#include "job/job.h"
#include "nodes/heard.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"
#include "request.h"
#include "nodes/orphan.h"
#include "proto.h"
#include "sched/sched.h"
#include "states.h"
#include "job/term.h"
#include "sched/sched_wake.h"
#include "job/jobs.h"

#define ORPHAN_MAX 4096 /* per node; more are left for later */
#define ORPHAN_UNKNOWN_ID UINT32_MAX

struct orphan {
    uint32_t job_id;
    bool acked; /* the noded answered JOB_TERMINATE with 0 */
    bool inflight;
    time_t sent;
    struct nodecomm_req *req; /* its JOB_TERMINATE while in flight */
};

/* Is job 'id' expected to have stepds on node 'node'? */
static bool orphan_expected (const struct ctld *ctx, size_t node, uint32_t id)
{
    const struct job *j = job_find (ctx, id);

    if (!j)
        return false;
    for (size_t k = 0; k < j->nnodes; k++) {
        if (j->nodes[k].node != node)
            continue;
        return j->state == JOB_RUNNING
               || (j->completing && !j->nodes[k].released);
    }
    return false;
}

static struct orphan *orphan_find (const struct node *n, uint32_t id)
{
    for (size_t i = 0; i < n->norphans; i++)
        if (n->orphans[i].job_id == id)
            return &n->orphans[i];
    return NULL;
}

/* The Epilog's environment, with what is known of the job. */
static int orphan_env (const struct ctld *ctx, const struct job *j, uint32_t id,
                       struct msg_job_terminate *m)
{
    const char *cluster =
        ctx->conf->cluster_name ? ctx->conf->cluster_name : "arbor";
    char **env = calloc (6, sizeof (char *));
    int rc = 0;

    if (!env)
        return -1;
    m->env = env;
    rc |= asprintf (&env[0], "SLURM_JOB_ID=%u", id);
    rc |= asprintf (&env[1], "SLURM_JOBID=%u", id);
    rc |= asprintf (&env[2], "SLURM_JOB_USER=%s", j ? j->user : "");
    rc |= asprintf (&env[3], "SLURM_JOB_UID=%u", m->uid);
    rc |= asprintf (&env[4], "SLURM_CLUSTER_NAME=%s", cluster);
    if (rc < 0) {
        memset (env, 0, 6 * sizeof (char *)); /* asprintf left garbage */
        return -1;
    }
    m->env_count = 5;
    return 0;
}

/* A JOB_TERMINATE that got no answer is tried again while the node
 * still lists the orphan; the failure counts toward the node's
 * liveness. */
static bool orphan_again (struct ctld *ctx, const struct nodecomm_result *res,
                          struct nodecomm_req *req, void *arg)
{
    struct orphan *o = orphan_find (&ctx->nodes[res->node], res->job_id);

    (void)req;
    (void)arg;
    if (!o)
        return false;
    heard_nodecomm (ctx, res);
    o->sent = time (NULL);
    return true;
}

/* The noded's answer to an orphan's JOB_TERMINATE, or why there was
 * none. */
static void orphan_nodecomm_cb (struct ctld *ctx,
                                const struct nodecomm_result *res, void *arg)
{
    struct orphan *o = orphan_find (&ctx->nodes[res->node], res->job_id);

    (void)arg;
    if (o)
        o->req = NULL; /* over: the handle is the callback's no more */
    heard_nodecomm (ctx, res);
    orphan_answer (ctx, res->job_id, res->node, res->errnum);
}

static void orphan_send (struct ctld *ctx, size_t node, struct orphan *o,
                         time_t now)
{
    static const struct request_retry retry = { .interval = CTLD_TERM_RESEND };
    const struct job *j = job_find (ctx, o->job_id);
    struct msg_job_terminate m = {
        .job_id = o->job_id,
        .uid = j ? (uint32_t)j->uid : ORPHAN_UNKNOWN_ID,
        .gid = j ? (uint32_t)j->gid : ORPHAN_UNKNOWN_ID,
        .restarts = j ? j->restarts : 0,
    };

    o->sent = now;
    if (!(m.user = strdup (j ? j->user : ""))
        || !(m.state = strdup (j ? job_state_str (j->state) : "CANCELLED"))
        || orphan_env (ctx, j, o->job_id, &m) < 0) {
        log_err ("job %u: JOB_TERMINATE: out of memory", o->job_id);
        proto_clear (MSG_JOB_TERMINATE, &m);
        return; /* orphans_tick tries again */
    }
    o->inflight = true;
    o->req = nodecomm_send_retry (ctx, node, MSG_JOB_TERMINATE, &m, &retry,
                                  orphan_again, orphan_nodecomm_cb, NULL);
    proto_clear (MSG_JOB_TERMINATE, &m);
}

/* Add job 'id' as an orphan of node 'node' and terminate it there. */
static void orphan_add (struct ctld *ctx, size_t node, uint32_t id, time_t now)
{
    struct node *n = &ctx->nodes[node];
    struct orphan *v;

    if (n->norphans >= ORPHAN_MAX)
        return;
    if (!(v = realloc (n->orphans, (n->norphans + 1) * sizeof (*v)))) {
        log_err ("node %s: orphan job %u: out of memory", n->name, id);
        return;
    }
    n->orphans = v;
    v = &n->orphans[n->norphans++];
    memset (v, 0, sizeof (*v));
    v->job_id = id;
    log_warn ("node %s runs job %u, which %s: terminating it there", n->name,
              id,
              job_find (ctx, id) ? "has ended on it"
                                 : "this controller does "
                                   "not know");
    orphan_send (ctx, node, v, now);
}

void orphans_register (struct ctld *ctx, size_t node, const uint32_t *ids,
                       size_t n, time_t now)
{
    struct node *nd = &ctx->nodes[node];

    for (size_t i = 0; i < nd->norphans; i++) {
        struct orphan *o = &nd->orphans[i];
        if (o->acked && now >= o->sent + CTLD_TERM_REPEAT)
            o->acked = false; /* orphans_tick asks again */
    }
    for (size_t i = 0; i < n; i++) {
        if (ids[i] == 0 || orphan_find (nd, ids[i])
            || orphan_expected (ctx, node, ids[i]))
            continue;
        orphan_add (ctx, node, ids[i], now);
    }
}

void orphan_answer (struct ctld *ctx, uint32_t job, size_t node, int errnum)
{
    struct orphan *o = orphan_find (&ctx->nodes[node], job);

    if (!o)
        return;
    o->inflight = false;
    o->sent = time (NULL);
    o->acked = errnum == 0;
}

bool orphan_epilog_complete (struct ctld *ctx, size_t node, uint32_t job)
{
    struct node *n = &ctx->nodes[node];
    struct orphan *o = orphan_find (n, job);

    if (!o)
        return false;
    nodecomm_cancel (ctx, o->req);
    *o = n->orphans[--n->norphans];
    if (n->norphans == 0)
        sched_request (ctx); /* the node takes work again */
    log_info ("node %s: orphan job %u is gone%s", n->name, job,
              n->norphans ? "" : "; node back in service");
    return true;
}

void orphans_clear (struct ctld *ctx, struct node *n)
{
    for (size_t i = 0; i < n->norphans; i++)
        nodecomm_cancel (ctx, n->orphans[i].req);
    free (n->orphans);
    n->orphans = NULL;
    n->norphans = 0;
}

bool orphans_tick (struct ctld *ctx, time_t now)
{
    bool freed = false;

    for (size_t i = 0; i < ctx->nnodes; i++) {
        struct node *n = &ctx->nodes[i];
        if (n->norphans == 0)
            continue;
        if (!node_responding (n, now)) {
            orphans_clear (ctx, n);
            sched_request (ctx);
            freed = true;
            continue;
        }
        for (size_t k = 0; k < n->norphans; k++) {
            struct orphan *o = &n->orphans[k];
            if (!o->acked && !o->inflight && now >= o->sent + CTLD_TERM_RESEND)
                orphan_send (ctx, i, o, now);
        }
    }
    return freed;
}
