/* liveness.h - noticing nodeds that stopped answering (liveness.c);
 * what was heard from them is heard.h's.
 */
#ifndef ARBOR_CTLD_LIVENESS_H
#define ARBOR_CTLD_LIVENESS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "nodes/heard.h" /* CTLD_PROBE_*: when a node is dead */

struct ctld;

/* Every second: sends due probes (also to nodes silent for
 * CTLD_PROBE_SILENT), and makes DOWN ("Not responding") the nodes that
 * failed CTLD_PROBE_TRIES times over CTLD_PROBE_SPAN s, or were silent
 * for CTLD_NODE_TIMEOUT: their jobs end NODE_FAIL (term_node_down).
 * Returns true when a node went DOWN. */
bool liveness_tick (struct ctld *ctx, time_t now);

#endif
