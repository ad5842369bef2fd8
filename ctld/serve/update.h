/* update.h - NODE_UPDATE: administrators' DOWN, DRAIN and RESUME.
 */
#ifndef ARBOR_CTLD_UPDATE_H
#define ARBOR_CTLD_UPDATE_H

#include <stdint.h>

#include "error.h"
#include "proto.h"

struct ctld;

/* Apply NODE_UPDATE 'm' from 'uid' (the caller checked the sender is
 * privileged; a DOWN or DRAIN reason is recorded as set by 'uid'):
 * state DOWN, DRAIN or RESUME (IDLE and UNDRAIN mean RESUME), any case,
 * on every node of the hostlist 'm->nodelist'; DOWN and DRAIN need a
 * reason. All is checked before anything changes: -1 with errno EINVAL
 * (unknown node, bad state, no reason) or ENOMEM and err, else 0. */
int node_update (struct ctld *ctx, const struct msg_node_update *m,
                 uint32_t uid, arbor_error_t *err);

#endif
