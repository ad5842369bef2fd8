/* nodecomm.c - messages from arbor-ctld to the nodeds, without blocking.
 *
 * Each message (STEP_KILL, STEP_TERMINATE, JOB_TERMINATE, and LAUNCH of
 * a batch step, answered LAUNCH_REPLY) is one request
 * (common/wire/request.h) to NodeAddr:NodedPort, on the ctld's kept connection
 * to that noded (a munge-keyed session, common/wire/peers.h), answered
 * with an RC, given up after CTLD_KILL_TIMEOUT seconds (a liveness probe,
 * a STEP_KILL of job 0 with signal 0 that a noded answers without
 * touching anything, after CTLD_PROBE_TIMEOUT). This file is transport
 * only: the outcome goes to the callback the sender passed (term.c,
 * orphan.c, heard.c), which decides what it means. A message that must
 * get through (JOB_TERMINATE) is one request with the retry option
 * (nodecomm_send_retry): its sender is told of each failed attempt and
 * says whether to try again. Outstanding
 * messages live on struct nodecomm's list so that shutdown can cancel
 * them. With a sink set (unit tests, nodecomm_set_sink), messages go
 * there instead and nothing touches the network; no callback is called
 * then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctld.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"
#include "proto.h"
#include "request.h"

struct nodecomm {
    struct nodecomm_req *reqs; /* in flight */
    node_send_f sink;          /* NULL: the network */
    void *sink_arg;
};

struct nodecomm_req {
    struct nodecomm_req *next, *prev;
    struct ctld *ctx;
    struct request *req;
    struct nodecomm_result res; /* node, type, job_id known at start */
    nodecomm_f cb;
    nodecomm_again_f again; /* a retried message's (nodecomm_send_retry) */
    void *arg;
};

static void req_unlink (struct nodecomm_req *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else if (r->ctx->nodecomm->reqs == r)
        r->ctx->nodecomm->reqs = r->next;
    if (r->next)
        r->next->prev = r->prev;
}

/* r->res from an attempt's (or the request's) outcome. */
static void nodecomm_result_fill (struct nodecomm_req *r,
                                  const struct request_result *res)
{
    r->res.errnum = res->errnum;
    r->res.text = res->errnum ? res->err.text : NULL;
    if (res->outcome == REQUEST_ANSWERED && res->type == MSG_LAUNCH_REPLY) {
        const struct msg_launch_reply *lr = res->msg;
        r->res.errnum = lr->errnum;
        r->res.text = lr->failed_errors_count ? lr->failed_errors[0]
                      : lr->text              ? lr->text
                                              : NULL;
    }
    r->res.answered = request_answered (res);
}

static void nodecomm_done_cb (const struct request_result *res, void *arg)
{
    struct nodecomm_req *r = arg;

    req_unlink (r);
    nodecomm_result_fill (r, res);
    r->cb (r->ctx, &r->res, r->arg);
    free (r);
}

/* A retried message's failed attempt: its sender decides (the request
 * layer waits, then sends it again). */
static bool nodecomm_again_cb (const struct request_result *res, void *arg)
{
    struct nodecomm_req *r = arg;
    bool again;

    nodecomm_result_fill (r, res);
    again = r->again (r->ctx, &r->res, r, r->arg);
    if (again)
        log_debug ("%s %u to %s: again in a while",
                   proto_msg_name (r->res.type), r->res.job_id,
                   r->ctx->nodes[r->res.node].name);
    return again;
}

/* Job id of a message we send (all of them carry one). */
static uint32_t msg_job_id (int type, const void *msg)
{
    switch (type) {
    case MSG_STEP_KILL: return ((const struct msg_step_kill *)msg)->job_id;
    case MSG_STEP_TERMINATE:
        return ((const struct msg_step_terminate *)msg)->job_id;
    case MSG_JOB_TERMINATE:
        return ((const struct msg_job_terminate *)msg)->job_id;
    case MSG_LAUNCH: return ((const struct msg_launch *)msg)->job_id;
    case MSG_JOB_PROLOG: return ((const struct msg_job_prolog *)msg)->job_id;
    default: return 0;
    }
}

/* Start 'msg' to node 'node' with 'opts' (transport fields filled here).
 * The request, or NULL: sent to the sink, dropped at shutdown, or
 * failed at once (logged; no callback then). */
static struct nodecomm_req *nodecomm_start_opts (
    struct ctld *ctx, size_t node, int type, const void *msg,
    struct request_opts *opts, nodecomm_f cb, nodecomm_again_f again, void *arg)
{
    const struct node *n = &ctx->nodes[node];
    struct nodecomm *nc = ctx->nodecomm;
    struct nodecomm_req *r;

    if (!nc)
        return NULL; /* shutting down */
    if (nc->sink) {
        nc->sink (ctx, node, type, msg, nc->sink_arg);
        return NULL;
    }
    opts->peers = ctx->peers;
    opts->peer_uid = ctx->noded_uid;
    opts->resp_type = type == MSG_LAUNCH ? MSG_LAUNCH_REPLY : MSG_RC;
    if (again)
        opts->retry.again = nodecomm_again_cb;
    if (!(r = calloc (1, sizeof (*r)))
        || !(r->req = request_tcp (ctx->loop, n->addr, ctx->conf->noded_port,
                                   type, msg, opts, nodecomm_done_cb, r))) {
        log_err ("%s %u to %s: %s", proto_msg_name (type),
                 msg_job_id (type, msg), n->name, strerror (errno));
        free (r);
        return NULL;
    }
    r->ctx = ctx;
    r->res = (struct nodecomm_result){ .node = node,
                                       .type = type,
                                       .job_id = msg_job_id (type, msg) };
    r->cb = cb;
    r->again = again;
    r->arg = arg;
    r->next = nc->reqs;
    if (r->next)
        r->next->prev = r;
    nc->reqs = r;
    log_debug ("%s %u to %s", proto_msg_name (type), r->res.job_id, n->name);
    return r;
}

static void nodecomm_start (struct ctld *ctx, size_t node, int type,
                            const void *msg, double timeout, nodecomm_f cb,
                            void *arg)
{
    struct request_opts opts = { .timeout = timeout };

    (void)nodecomm_start_opts (ctx, node, type, msg, &opts, cb, NULL, arg);
}

void nodecomm_send (struct ctld *ctx, size_t node, int type, const void *msg,
                    nodecomm_f cb, void *arg)
{
    nodecomm_start (ctx, node, type, msg, CTLD_KILL_TIMEOUT, cb, arg);
}

struct nodecomm_req *nodecomm_send_retry (struct ctld *ctx, size_t node,
                                          int type, const void *msg,
                                          const struct request_retry *retry,
                                          nodecomm_again_f again, nodecomm_f cb,
                                          void *arg)
{
    struct request_opts opts = { .timeout = CTLD_KILL_TIMEOUT,
                                 .retry = *retry };

    return nodecomm_start_opts (ctx, node, type, msg, &opts, cb, again, arg);
}

int nodecomm_set_msg (struct nodecomm_req *r, const void *msg)
{
    return request_set_msg (r->req, msg);
}

void nodecomm_cancel (struct ctld *ctx, struct nodecomm_req *r)
{
    int saved = errno;

    if (!r || !ctx->nodecomm)
        return; /* nodecomm_destroy cancelled it already */
    req_unlink (r);
    request_cancel (r->req);
    free (r);
    errno = saved;
}

void nodecomm_launch (struct ctld *ctx, size_t node, const struct msg_launch *m,
                      uint32_t timeout_ms, nodecomm_f cb, void *arg)
{
    nodecomm_start (ctx, node, MSG_LAUNCH, m, timeout_ms / 1000.0, cb, arg);
}

uint32_t launch_budget_ms (const struct conf *conf)
{
    uint32_t s = conf->launch_timeout;

    if (conf->prolog && *conf->prolog)
        s += conf->prolog_epilog_timeout;
    return s * 1000;
}

void nodecomm_send_timeout (struct ctld *ctx, size_t node, int type,
                            const void *msg, double timeout, nodecomm_f cb,
                            void *arg)
{
    nodecomm_start (ctx, node, type, msg, timeout, cb, arg);
}

void nodecomm_probe (struct ctld *ctx, size_t node, nodecomm_f cb, void *arg)
{
    struct msg_step_kill m = {
        .job_id = 0, .step_id = STEP_ID_ALL, .signal = 0, .revoke = false
    };

    nodecomm_start (ctx, node, MSG_STEP_KILL, &m, CTLD_PROBE_TIMEOUT, cb, arg);
}

void nodecomm_step_kill (struct ctld *ctx, size_t node, uint32_t job,
                         uint32_t step, int sig, bool revoke, nodecomm_f cb,
                         void *arg)
{
    struct msg_step_kill m = {
        .job_id = job, .step_id = step, .signal = sig, .revoke = revoke
    };

    nodecomm_send (ctx, node, MSG_STEP_KILL, &m, cb, arg);
}

static void nodecomm_reregister_cb (struct ctld *ctx,
                                    const struct nodecomm_result *res,
                                    void *arg)
{
    if (res->errnum)
        log_debug ("NODE_REREGISTER to %s: %s", ctx->nodes[res->node].name,
                   res->text ? res->text : strerror (res->errnum));
}

void nodecomm_reregister_all (struct ctld *ctx, const char *reason)
{
    struct msg_node_reregister m = { .reason = (char *)reason };

    for (size_t i = 0; i < ctx->nnodes; i++)
        nodecomm_start (ctx, i, MSG_NODE_REREGISTER, &m, CTLD_PROBE_TIMEOUT,
                        nodecomm_reregister_cb, NULL);
}

struct nodecomm *nodecomm_create (void)
{
    return calloc (1, sizeof (struct nodecomm));
}

void nodecomm_set_sink (struct nodecomm *nc, node_send_f sink, void *arg)
{
    nc->sink = sink;
    nc->sink_arg = arg;
}

void nodecomm_destroy (struct nodecomm *nc)
{
    int saved = errno;

    if (!nc)
        return;
    while (nc->reqs) {
        struct nodecomm_req *r = nc->reqs;
        nc->reqs = r->next;
        request_cancel (r->req);
        free (r);
    }
    free (nc);
    errno = saved;
}
