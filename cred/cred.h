/* cred.h - step credentials: sealed by the controller, opened on nodes.
 *
 * A credential is the msgpack encoding of struct msg_cred_claims
 * (common/wire/proto_msgs.def: job id, step id, uid, gid, user, node list,
 * cores, memory, the I/O key, the expiry and issue time, the cluster
 * name, tasks per node...) sealed with libsodium's crypto_secretbox
 * (XSalsa20-Poly1305) under the cluster's credential key, a 32-byte secret that
 * arbor-ctld makes once and keeps in StateSaveLocation, and hands to each noded
 * in a munge token restricted to the noded's uid (ctld/credkey.c). As text:
 *
 *     arbor-cred1:<key id, 16 hex>:<base64url(nonce[24] | box)>
 *
 * The box authenticates and hides the claims: nobody without the key can
 * make one that opens, change a byte of one, or read its I/O key (a munge
 * credential could be decoded by anyone who captured it). The key id,
 * a hash of the key, names which key sealed it, so that a node holding
 * another (a controller that lost its state) says so instead of "forged".
 *
 * Trust is munge's: whoever holds the munge key can mint munge tokens as
 * the controller, and so could obtain this key; the nodeds hold it as
 * they hold munge.key. Sealing and opening cost microseconds and no
 * munged round trip, where a munge credential cost an encode in the
 * controller and a decode on every node of every step.
 *
 * Replay: a credential opens on every node of its step, as many times as
 * it is presented; what keeps a replay harmless is that (1) the claims
 * name the nodes it is valid on, (2) it expires (claims.expires), (3) the
 * noded's cache of revoked steps refuses steps cancelled after issue and
 * steps whose stepd has ended (so a credential starts its step at most
 * once per node), and where that cache cannot vouch for the credential
 * (claims.issued before the noded started, or an evicted revocation:
 * noded/revoke.h) the controller must say the step is live, (4) the launch
 * frame carrying it is itself authenticated, and (5) the launch must ask for
 * exactly the claims' layout. Nothing here logs: every refusal is errno + err
 * text.
 */
#ifndef ARBOR_CRED_H
#define ARBOR_CRED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "error.h"
#include "proto.h"

#define CRED_KEY_SIZE 32    /* crypto_secretbox_KEYBYTES */
#define CRED_KEY_ID_SIZE 17 /* 16 hex digits and a NUL */
#define CRED_PREFIX "arbor-cred1:"

struct cred_key {
    unsigned char key[CRED_KEY_SIZE];
    char id[CRED_KEY_ID_SIZE]; /* its BLAKE2b-256 hash's first 8 bytes, hex */
};

/* A new random key. -1 with errno and err (libsodium unusable). */
int cred_key_new (struct cred_key *k, arbor_error_t *err);

/* The key of 'len' raw bytes (CRED_KEY_SIZE, else EINVAL). */
int cred_key_set (struct cred_key *k, const void *raw, size_t len,
                  arbor_error_t *err);

/* Seal 'claims' (claims->expires must be set) under 'k'. *token is
 * malloc'd text. -1 with errno (EINVAL: no expiry) and err. */
int cred_seal (const struct cred_key *k, const struct msg_cred_claims *claims,
               char **token, arbor_error_t *err);

/* cred_seal's last half: 'len' bytes, whatever they are, sealed under
 * 'k' in a credential's text (malloc'd), NULL with errno ENOMEM. Tests
 * and fuzzers put bytes of their choice behind a box that opens. */
char *cred_seal_bytes (const struct cred_key *k, const void *msg, size_t len);

/* Open 'token' with 'k' and check its claims: sealed under 'k', not
 * expired at 'now', and, unless NULL, bound to 'cluster' and listing
 * 'node'. On success 'claims' is filled (caller proto_clear
 * (MSG_CRED_CLAIMS, claims)). -1 with errno EPERM (none, not ours,
 * forged, tampered, another key, expired, wrong cluster or node) or
 * EPROTO (malformed under our prefix, undecodable claims) and err saying
 * which; 'claims' then holds nothing. */
int cred_open (const struct cred_key *k, const char *token, const char *cluster,
               const char *node, time_t now, struct msg_cred_claims *claims,
               arbor_error_t *err);

/* Fill buf with a random hex I/O key of len-1 characters (NUL-terminated).
 * 0 or -1 with errno. */
int cred_io_key (char *buf, size_t len);

#endif
