/* bcast_cred.h - may this request write or read files of this job here?
 *
 * sbcast and sgather present the credential the controller sealed for
 * them (BCAST_CRED, ctld/serve/bcast.c): claims of the job's user and nodes,
 * with step_id STEP_ID_ALL and no tasks, so that it can start no step
 * (launch_check refuses a credential without the task layout) and a
 * step's credential cannot pass for it. A node accepts it when it opens
 * under the cluster's key, is not expired, names this cluster and this
 * node, is for the job the request names, comes from its user or from a
 * daemon (a parent noded forwarding it), and the job has not ended here
 * (revoked). Whether this node's memory of ended jobs covers the
 * credential at all (revoke_unsure) is the caller's to ask (bcast_req.c
 * asks the controller).
 */
#ifndef ARBOR_NODED_BCAST_CRED_H
#define ARBOR_NODED_BCAST_CRED_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cred.h"
#include "error.h"
#include "proto.h"

struct revoke;

struct bcast_policy {
    const struct cred_key *key; /* NULL: none held yet (EAGAIN) */
    const char *cluster;
    const char *self;
    uid_t arbor_uid, noded_uid;   /* with root: may forward for anyone */
    const struct revoke *revoked; /* may be NULL */
    time_t now;
};

/* 0 with 'claims' filled (caller proto_clear (MSG_CRED_CLAIMS, ...)), or
 * -1 with errno (EPERM, EAGAIN, EPROTO) and err saying why; claims then
 * hold nothing. */
int bcast_cred_check (const struct bcast_policy *p, const char *cred,
                      uint32_t job_id, uid_t sender,
                      struct msg_cred_claims *claims, arbor_error_t *err);

/* The slice a block is forwarded along: itself first, then nodes of
 * the claims, none twice, no more than they list. 0, or -1 with errno
 * EPERM/EINVAL and err. */
int bcast_slice_check (const struct msg_cred_claims *claims, char *const *slice,
                       uint32_t count, const char *self, arbor_error_t *err);

#endif
