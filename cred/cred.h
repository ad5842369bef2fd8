/* cred.h - step credentials: create, sign, verify.
 *
 * A credential is a munge token whose payload is the msgpack encoding of
 * struct msg_cred_claims (common/proto_msgs.def): job id, step id, uid, gid,
 * user name, node list, cores per node, memory per node, the I/O key, the
 * expiry, the cluster name and tasks per node. arbor-ctld signs it; every noded
 * of the step verifies it before launching anything.
 *
 * Replay: the same credential is legitimately decoded once per node of the
 * step, and nodes emulated on one host share one munged, which answers every
 * decode after the first with EMUNGE_CRED_REPLAYED (still returning payload
 * and uid). cred_verify() therefore accepts a replayed credential; what keeps
 * a replay harmless is that (1) the claims name the nodes it is valid on,
 * (2) it expires (claims.expires and munge's own TTL), (3) the noded's cache
 * of revoked steps refuses steps cancelled after issue and steps whose
 * stepd has ended (so a credential starts its step at most once per node),
 * (4) the launch frame carrying it is itself authenticated by a single-use
 * token, and (5) the launch must ask for exactly the claims' layout.
 */
#ifndef ARBOR_CRED_H
#define ARBOR_CRED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "error.h"
#include "proto.h"

struct auth;

/* Sign 'claims' (claims->expires must be set). *token is malloc'd text.
 * -1 with errno and err. */
int cred_sign (struct auth *a, const struct msg_cred_claims *claims,
               char **token, arbor_error_t *err);

/* The first half of cred_sign(), for a caller that encodes on its own
 * (auth_pool_encode): the msgpack bytes of 'claims' (*buf malloc'd, caller
 * frees) and the munge TTL in seconds to encode them with (claims->expires
 * from now, at least 1). -1 with errno (EINVAL: no expiry) and err. */
int cred_claims_pack (const struct msg_cred_claims *claims, char **buf,
                      size_t *len, int *ttl, arbor_error_t *err);

/* Verify 'token': munge-valid (replays accepted, see above), minted by
 * 'signer' (the ctld's uid), decodable claims, not expired at 'now', and
 * bound to 'cluster' and, if node != NULL, listing 'node'. On success
 * 'claims' is filled (caller proto_clear(MSG_CRED_CLAIMS, claims)).
 * -1 with errno EPERM (forged, tampered, foreign, expired, wrong node)
 * or EPROTO (undecodable) and err saying which. */
int cred_verify (struct auth *a, const char *token, uid_t signer,
                 const char *cluster, const char *node, time_t now,
                 struct msg_cred_claims *claims, arbor_error_t *err);

/* The second half of cred_verify(), for a caller that decoded the token on
 * its own (auth_pool_decode with AUTH_ALLOW_REPLAY): 'payload' (len bytes,
 * borrowed) and 'minter', the token's uid, get every check cred_verify()
 * makes after munge's. Same results, errno and ownership of 'claims'. */
int cred_check (const void *payload, size_t len, uid_t minter, uid_t signer,
                const char *cluster, const char *node, time_t now,
                struct msg_cred_claims *claims, arbor_error_t *err);

/* Fill buf with a random hex I/O key of len-1 characters (NUL-terminated).
 * 0 or -1 with errno. */
int cred_io_key (char *buf, size_t len);

#endif
