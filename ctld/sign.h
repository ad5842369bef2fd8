/* sign.h - step credentials signed off the loop.
 *
 * STEP_CREATE takes the step's cores at once (step_create), but its
 * credential is a munge encode, which goes to the auth pool so that a slow
 * munged never stalls the controller. The answer (STEP_CREATED with the
 * credential) is sent when the pool is done. Meanwhile the requester may
 * go away (sign_conn_closed) or the job may end: either way the step is
 * given back and nothing is sent.
 */
#ifndef ARBOR_CTLD_SIGN_H
#define ARBOR_CTLD_SIGN_H

#include <stdint.h>

#include "proto.h"

struct ctld;
struct conn;
struct sign;

struct sign *sign_create (struct ctld *ctx);
/* Cancel every signature in progress (their steps stay as they are: the
 * controller is going away). NULL is accepted. */
void sign_destroy (struct sign *sg);

/* Sign 'claims' (cred_claims_pack's payload, copied) for the step
 * out->step_id of job out->job_id, and then answer the request 'tag' on
 * 'c' with *out (taken: *out is zeroed). -1 with errno if the signature
 * could not even be queued (the caller answers and gives the step back). */
int sign_step (struct ctld *ctx, struct conn *c, uint32_t tag,
               struct msg_step_created *out, const char *claims, size_t len,
               int ttl);

/* The requester's connection closed: forget what was signed for it and
 * give those steps back. */
void sign_conn_closed (struct ctld *ctx, struct conn *c);

/* The controller's own steps of a job (the batch step, the extern step):
 * their credential is signed in the pool too, and then 'cb' gets it
 * (token NULL and 'error' set if munge failed) with the step's layout
 * 'st', both borrowed for the call. *slot (in the job) holds the
 * signature in progress: sign_own_cancel(*slot) when the job goes, so
 * that cb never sees a freed job; it is NULL again when cb runs. */
struct job;
struct step_claims;
struct sign_own;
typedef void (*sign_own_f) (struct ctld *ctx, struct job *j, const char *token,
                            const char *error,
                            const struct msg_step_created *st);
/* Sign 'claims' (copied) for j; *st is taken (zeroed). -1 with errno
 * when the signature cannot be queued (*st is then cleared). */
int sign_own_step (struct ctld *ctx, struct job *j, struct msg_step_created *st,
                   const struct step_claims *claims, struct sign_own **slot,
                   sign_own_f cb);
void sign_own_cancel (struct sign_own *s);

/* What the LAUNCH of one of j's own steps (the batch step, the extern
 * step) always says: the credential, ids, the step's layout from 'st',
 * the job's node list and name, no launcher (io_host ""), no stdin, no
 * MPI, the launch budget (launch_budget_ms). The caller adds the slice,
 * argv and what is its own; strings are borrowed. Its answer may take
 * OWN_LAUNCH_SLACK_MS more than the budget. */
#define OWN_LAUNCH_SLACK_MS 2000
struct msg_launch launch_msg_own (const struct ctld *ctx, const struct job *j,
                                  uint32_t step_id, const char *cred,
                                  const struct msg_step_created *st);

#endif
