/* heard.h - what the controller heard from its nodeds: messages'
 * outcomes, registrations, probes (heard.c). Whether a node is dead is
 * liveness.h's, on its timer.
 */
#ifndef ARBOR_CTLD_HEARD_H
#define ARBOR_CTLD_HEARD_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct ctld;
struct node;
struct nodecomm_result;

#define CTLD_PROBE_INTERVAL 2 /* s between probes of a failing node */
#define CTLD_PROBE_TRIES 3    /* failures in a row that make it DOWN ... */
#define CTLD_PROBE_SPAN 10    /* ... over at least this many s */
#define CTLD_PROBE_SILENT                          \
    45 /* s of silence before an UP node is probed \
          (nodeds register every 30 s) */

/* A message to node 'node' was answered (any RC), or failed without an
 * answer ('why': refused, closed, timed out). Failures of an UP or DRAIN
 * node make it unusable at once and probe it every CTLD_PROBE_INTERVAL;
 * liveness_tick makes it DOWN. 'probe': the message was a probe. Never
 * changes job or node states itself (callers may be inside loops). */
void heard_result (struct ctld *ctx, size_t node, bool answered, bool probe,
                   const char *why, time_t now);
/* Every nodecomm callback reports here first: the outcome of a message
 * counts toward the node's liveness (heard_result). */
void heard_nodecomm (struct ctld *ctx, const struct nodecomm_result *res);
/* The nodecomm callback of messages whose answer is only logged
 * (STEP_KILL, STEP_TERMINATE): heard_nodecomm, then the log line. A
 * noded that missed a STEP_KILL still refuses late launches once the
 * credential expires. */
void heard_nodecomm_cb (struct ctld *ctx, const struct nodecomm_result *res,
                        void *arg);
/* The node registered: it is alive. */
void heard_node (struct ctld *ctx, size_t node, time_t now);
/* The nodecomm callback of a probe (STEP_KILL of job 0, signal 0): its
 * outcome counts as any other, and the probe is over. */
void heard_probe_cb (struct ctld *ctx, const struct nodecomm_result *res,
                     void *arg);
/* Node n's liveness is watched: registered and not yet DOWN. */
bool heard_watched (const struct node *n);
/* Forget n's failures and planned probe. */
void heard_forget (struct node *n);
/* Can the node's noded still be expected to answer? False for a node DOWN
 * because not responding, and for one set DOWN whose noded has been
 * silent for CTLD_NODE_TIMEOUT; true otherwise. */
bool node_responding (const struct node *n, time_t now);

#endif
