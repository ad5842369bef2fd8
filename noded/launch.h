/* launch.h - the LAUNCH handler: verify, forward, start, fan in.
 *
 * On LAUNCH a noded verifies the credential and the request against it
 * (launch_check: sender, ids, slice, layout, revocation), forwards it to
 * its sub-slices (fanout.c), starts its own stepd (stepd_spawn.c) and
 * answers its parent exactly once with a LAUNCH_REPLY covering its whole
 * slice: when its stepd and every chunk have answered, or when its own
 * deadline (budget - margin) passes, whichever comes first.
 */
#ifndef ARBOR_NODED_LAUNCH_H
#define ARBOR_NODED_LAUNCH_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "conn.h"
#include "error.h"
#include "proto.h"

struct noded;
struct revoke;

/* What a launch is checked against, besides the credential's signature. */
struct launch_policy {
    const char *self;             /* this node's name */
    uid_t arbor_uid;              /* ArborUser (root is always privileged) */
    const struct revoke *revoked; /* may be NULL */
    time_t now;
};

/* Before anything else (no credential verified, nothing expanded or
 * echoed yet): a slice larger than the configured cluster ('cluster_nodes'
 * nodes) is refused at once. 0, or -1 with errno EPERM and err. */
int launch_precheck (const struct msg_launch *req, size_t cluster_nodes,
                     arbor_error_t *err);

/* Check a launch whose credential verified into 'claims': the sender is
 * claims->uid or privileged, job/step ids match the claims, slice[0] is
 * self, the slice is no larger than the claims' node list and every slice
 * node is one of them, the step node list is the claims' (as text), the
 * per-node task and cpu counts are exactly the claims' (nothing that
 * decides what runs where is taken from the unsigned launch), and the
 * step is not revoked. Returns 0 and sets *node_id (index of self in the
 * step), or -1 with errno EPERM or EINVAL and err (a sentence without the
 * node name, naming what differs). */
int launch_check (const struct launch_policy *p, const struct msg_launch *req,
                  uid_t sender, const struct msg_cred_claims *claims,
                  uint32_t *node_id, arbor_error_t *err);

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
