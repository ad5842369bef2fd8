/* launch.h - the LAUNCH handler: verify, forward, start, fan in.
 *
 * On LAUNCH a noded verifies the credential and the request against it
 * (launch_check.h: sender, ids, slice, layout, revocation), forwards it to
 * its sub-slices (fanout.c), starts its own stepd (stepd_spawn.c) and
 * answers its parent exactly once with a LAUNCH_REPLY covering its whole
 * slice: when its stepd and every chunk have answered, or when its own
 * deadline (budget - margin) passes, whichever comes first.
 */
#ifndef ARBOR_NODED_LAUNCH_H
#define ARBOR_NODED_LAUNCH_H

#include "conn.h"
#include "proto.h"

struct noded;

/* Handle a LAUNCH request received on 'c'. The contents of 'req' are
 * taken over (its fields are left NULL). */
void launch_handle (struct noded *nd, struct conn *c, const struct frame *f,
                    struct msg_launch *req);

/* The credential key arrived (credkey_held.h): verify the launches that
 * waited for it. */
void launch_key_arrived (struct noded *nd);

/* The connection 'c' closed: launches received on it can no longer
 * answer (they still run to completion). */
void launch_conn_closed (struct noded *nd, struct conn *c);

/* Free every launch in flight without answering (daemon shutdown). */
void launch_destroy_all (struct noded *nd);

#endif
