/* heard.c - what the controller heard from its nodeds: each message's
 * outcome (nodecomm.c's callbacks report here first), each registration,
 * each probe's answer. An answer, any RC, proves the noded alive and its
 * failures are forgotten; a failure without an answer makes an UP or
 * DRAIN node unusable at once (node_usable) and due for probes. What is
 * heard is only noted: whether a silent node is dead is decided by
 * liveness.c on its timer, never here, so that the job life (which
 * reports its messages' outcomes here) never calls the code that ends
 * jobs on a dead node.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctld.h"
#include "log.h"
#include "nodes/heard.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"
#include "proto.h"
#include "sched/sched_wake.h"

bool heard_watched (const struct node *n)
{
    return n->base == NODE_UP || n->base == NODE_DRAIN;
}

void heard_forget (struct node *n)
{
    n->comm_fails = 0;
    n->first_fail = 0;
    n->probe_at = 0;
}

void heard_node (struct ctld *ctx, size_t node, time_t now)
{
    struct node *n = &ctx->nodes[node];

    if (n->comm_fails > 0) {
        log_info ("node %s answers again", n->name);
        sched_request (ctx); /* usable again */
    }
    n->last_heard = now;
    heard_forget (n);
}

void heard_result (struct ctld *ctx, size_t node, bool answered, bool probe,
                   const char *why, time_t now)
{
    struct node *n = &ctx->nodes[node];

    if (probe)
        n->probe_inflight = false;
    if (answered) {
        heard_node (ctx, node, now);
        return;
    }
    if (!heard_watched (n))
        return;
    if (n->comm_fails == 0) {
        n->first_fail = now;
        log_warn ("node %s does not answer (%s): no new work until it "
                  "does; probing",
                  n->name, why ? why : "?");
        sched_request (ctx); /* unusable now: waiting reasons change */
    } else
        log_verbose ("node %s: %s (failure %u)", n->name, why ? why : "?",
                     n->comm_fails + 1);
    n->comm_fails++;
    n->probe_at = now + CTLD_PROBE_INTERVAL;
}

/* Why a message failed, for the log. */
static const char *heard_why (const struct nodecomm_result *res)
{
    return res->text && res->text[0] ? res->text : strerror (res->errnum);
}

void heard_nodecomm (struct ctld *ctx, const struct nodecomm_result *res)
{
    heard_result (ctx, res->node, res->answered, false, heard_why (res),
                  time (NULL));
}

void heard_nodecomm_cb (struct ctld *ctx, const struct nodecomm_result *res,
                        void *arg)
{
    const char *name = proto_msg_name (res->type);

    (void)arg;
    heard_nodecomm (ctx, res);
    if (res->errnum != 0)
        log_warn ("%s %u to %s: %s", name ? name : "?", res->job_id,
                  ctx->nodes[res->node].name, heard_why (res));
    else
        log_debug ("%s %u to %s: done", name ? name : "?", res->job_id,
                   ctx->nodes[res->node].name);
}

/* A probe's outcome counts as any other, and the probe is over. */
void heard_probe_cb (struct ctld *ctx, const struct nodecomm_result *res,
                     void *arg)
{
    (void)arg;
    heard_result (ctx, res->node, res->answered, true, heard_why (res),
                  time (NULL));
}

bool node_responding (const struct node *n, time_t now)
{
    if (n->base == NODE_UNKNOWN)
        return false;
    if (n->base != NODE_DOWN)
        return true; /* a silent UP or DRAIN node is made DOWN
                        (liveness.c) */
    return n->admin_down && n->last_heard != 0
           && now < n->last_heard + CTLD_NODE_TIMEOUT;
}
