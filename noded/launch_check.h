/* launch_check.h - the checks of a LAUNCH against its verified credential
 * (launch_check.c), run by launch.c before anything starts.
 */
#ifndef ARBOR_NODED_LAUNCH_CHECK_H
#define ARBOR_NODED_LAUNCH_CHECK_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "error.h"
#include "proto.h"

struct revoke;

/* Names taken from an unverified request are echoed at most this long. */
#define LAUNCH_ECHO_MAX 64

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

#endif
