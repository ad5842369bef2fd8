/* bcast.h - the controller's part in sbcast and sgather.
 *
 * BCAST_CRED: the job's owner (or root, ArborUser) gets a credential of
 * the job's user for the nodes of the running job (or of one of its
 * running steps), which the nodes accept for writing and reading files
 * as that user (noded/bcast_cred.h). It binds step_id STEP_ID_ALL and no
 * task layout, so it can launch nothing, and lives CredExpire seconds,
 * no longer than a node remembers the job's end (noded/revoke.h).
 * BCAST_LIVE: a node that cannot vouch for such a credential asks
 * whether the job still runs there.
 */
#ifndef ARBOR_CTLD_BCAST_H
#define ARBOR_CTLD_BCAST_H

#include "conn.h"
#include "error.h"
#include "proto.h"

struct ctld;
struct job;

/* Fill 'out' for job j (running) and step_id (STEP_ID_ALL: the whole
 * job). 0, or -1 with errno (EINVAL: not running, ENOENT: no such step,
 * ENOMEM) and err. Caller proto_clear()s out. */
int bcast_cred_make (const struct ctld *ctx, const struct job *j,
                     uint32_t step_id, struct msg_bcast_cred_reply *out,
                     arbor_error_t *err);

/* serve.c's handlers: BCAST_CRED (any user; owner checked here) and
 * BCAST_LIVE (root, ArborUser and NodedUser, checked here). */
void bcast_cred_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                        void *arg);
void bcast_live_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                        void *arg);

#endif
