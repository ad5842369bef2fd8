/* node_features.h - a node's features (Features= in arbor.conf, or
 * scontrol update NodeName=... AvailableFeatures=), what -C/--constraint
 * is checked against (ctld/sched/constraint.h).
 *
 * Arbor has no node_features plugin (no reboot into another mode), so a
 * node's active features are its available ones. A node keeps its
 * features both as written ("a100,ib", what sinfo %f and scontrol show)
 * and as an array of names (what featspec_node_ok takes).
 */
#ifndef ARBOR_CTLD_NODE_FEATURES_H
#define ARBOR_CTLD_NODE_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct node;

/* Set n's features to the comma list 'text' (NULL or "": none), checked
 * as Features= is (featspec_list_check). 0, or -1 with
 * errno EINVAL (err names the fault) or ENOMEM, n unchanged. */
int node_features_set (struct node *n, const char *text, arbor_error_t *err);
void node_features_clear (struct node *n);
/* Does n have feature 'name'? */
bool node_has_feature (const struct node *n, const char *name);

#endif
