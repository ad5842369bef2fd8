/* liveness.c - noticing nodeds that are gone, within seconds.
 *
 * A noded registers every 30 s; a node silent for CTLD_NODE_TIMEOUT was
 * the only way a dead one used to be noticed, so for five minutes jobs
 * kept being placed on a node whose every message was refused. Now every
 * message the controller sends a noded (nodecomm.c) reports its outcome
 * to heard.c, from the sender's callback (heard_nodecomm), and this
 * file decides on the 1 s timer:
 *
 *   - an answer, any RC, proves the noded alive: failures are forgotten;
 *   - a failure without an answer (connection refused, closed before the
 *     answer, no answer in time) makes the node unusable at once
 *     (node_usable: no new job is placed there) and starts probes: a
 *     STEP_KILL of job 0 with signal 0 every CTLD_PROBE_INTERVAL s, which
 *     any live noded answers without touching anything;
 *   - CTLD_PROBE_TRIES failures in a row spread over at least
 *     CTLD_PROBE_SPAN s make the node DOWN "Not responding": its jobs end
 *     NODE_FAIL through term_node_down, as when an administrator sets it
 *     DOWN. The span is there so a noded that is merely restarting (its
 *     stepds survive that) is not taken for dead.
 *
 * Nodes silent for CTLD_PROBE_SILENT s (a registration missed) are probed
 * too, so a dead noded is found even when nothing is sent to it; the old
 * CTLD_NODE_TIMEOUT stays as a backstop. A DOWN node comes back when its
 * noded registers again (node_register).
 *
 * Decisions are taken only in liveness_tick (the 1 s timer), never in a
 * callback reporting an outcome: job and node states change in one
 * place, on the timer.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctld.h"
#include "nodes/heard.h"
#include "nodes/liveness.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"
#include "nodes/orphan.h"
#include "job/term.h"
#include "sched/sched_wake.h"

/* The node is DOWN, not responding: its running jobs end NODE_FAIL. A
 * drain keeps its reason for when the node is back. */
static void liveness_down (struct ctld *ctx, size_t i, const char *what)
{
    struct node *n = &ctx->nodes[i];
    char why[160];

    n->base = NODE_DOWN;
    n->auto_drain = false;
    n->probe_inflight = false;
    heard_forget (n);
    orphans_clear (ctx, n);
    sched_request (ctx);
    if (!n->drain)
        (void)node_set_reason (n, "Not responding", ctx->priv_uid, time (NULL));
    log_warn ("node %s not responding (%s), now DOWN", n->name, what);
    snprintf (why, sizeof (why), "node %s not responding", n->name);
    term_node_down (ctx, i, why);
}

/* Should node n go DOWN now? 'what' says why. */
static bool liveness_dead (const struct node *n, time_t now, char *what,
                           size_t len)
{
    if (n->comm_fails >= CTLD_PROBE_TRIES
        && now - n->first_fail >= CTLD_PROBE_SPAN) {
        snprintf (what, len, "%u messages unanswered over %ld s", n->comm_fails,
                  (long)(now - n->first_fail));
        return true;
    }
    if (n->last_heard + CTLD_NODE_TIMEOUT <= now) {
        snprintf (what, len, "silent for %ld s", (long)(now - n->last_heard));
        return true;
    }
    return false;
}

/* Is a probe of n due? After a failure, every CTLD_PROBE_INTERVAL; else
 * once per CTLD_PROBE_SILENT of silence. */
static bool liveness_probe_due (const struct node *n, time_t now)
{
    if (n->probe_inflight)
        return false;
    if (n->probe_at)
        return now >= n->probe_at;
    return now >= n->last_heard + CTLD_PROBE_SILENT
           && now >= n->probe_sent + CTLD_PROBE_SILENT;
}

bool liveness_tick (struct ctld *ctx, time_t now)
{
    bool down = false;
    char what[96];

    for (size_t i = 0; i < ctx->nnodes; i++) {
        struct node *n = &ctx->nodes[i];
        if (!heard_watched (n))
            continue;
        if (liveness_dead (n, now, what, sizeof (what))) {
            liveness_down (ctx, i, what);
            down = true;
        } else if (liveness_probe_due (n, now)) {
            n->probe_inflight = true;
            n->probe_at = 0;
            n->probe_sent = now;
            nodecomm_probe (ctx, i, heard_probe_cb, NULL);
        }
    }
    return down;
}
