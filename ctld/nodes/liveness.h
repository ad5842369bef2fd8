/* liveness.h - noticing nodeds that stopped answering.
 */
#ifndef ARBOR_CTLD_LIVENESS_H
#define ARBOR_CTLD_LIVENESS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct ctld;
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
void liveness_result (struct ctld *ctx, size_t node, bool answered, bool probe,
                      const char *why, time_t now);
/* Every nodecomm callback reports here first: the outcome of a message
 * counts toward the node's liveness (liveness_result). */
void liveness_nodecomm (struct ctld *ctx, const struct nodecomm_result *res);
/* The nodecomm callback of messages whose answer is only logged
 * (STEP_KILL, STEP_TERMINATE): liveness_nodecomm, then the log line. A
 * noded that missed a STEP_KILL still refuses late launches once the
 * credential expires. */
void liveness_nodecomm_cb (struct ctld *ctx, const struct nodecomm_result *res,
                           void *arg);
/* The node registered: it is alive. */
void liveness_heard (struct ctld *ctx, size_t node, time_t now);
/* Every second: sends due probes (also to nodes silent for
 * CTLD_PROBE_SILENT), and makes DOWN ("Not responding") the nodes that
 * failed CTLD_PROBE_TRIES times over CTLD_PROBE_SPAN s, or were silent
 * for CTLD_NODE_TIMEOUT: their jobs end NODE_FAIL (term_node_down).
 * Returns true when a node went DOWN. */
bool liveness_tick (struct ctld *ctx, time_t now);

#endif
