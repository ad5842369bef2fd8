/* auth.h - munge, in one place.
 *
 * Every TCP connection opens with a munge token that carries its session
 * key (session.h), restricted to the receiving daemon's uid; the receiver
 * learns the sender's uid and gid from it. Such tokens are single use:
 * munged refuses a replay. Step credentials are no munge tokens (they are
 * sealed under the cluster's credential key, cred/cred.h); the key itself
 * reaches each noded in a munge token restricted to the noded's uid.
 *
 * The munge calls block on munged's unix socket (tens of microseconds when
 * munged is healthy, much longer when it is loaded): daemons make them
 * through an auth_pool (authpool.h), off their loops; commands, which have
 * no loop to keep, call them directly.
 */
#ifndef ARBOR_AUTH_H
#define ARBOR_AUTH_H

#include <stddef.h>
#include <sys/types.h>
#include "error.h"

struct auth;

/* socket: munged's socket path, NULL for libmunge's default. */
struct auth *auth_create (const char *socket, arbor_error_t *err);
void auth_destroy (struct auth *a);

/* Encode 'payload' into a NUL-terminated token (caller frees *token).
 * 'ttl' in seconds, 0 for munged's default. -1 with errno and err
 * ("munge: Socket communication error") on failure. */
int auth_encode (struct auth *a, const void *payload, size_t len, int ttl,
                 char **token, arbor_error_t *err);

/* The same, decodable only by 'restrict_uid' (munge's uid restriction;
 * (uid_t)-1: anyone). */
int auth_encode_for (struct auth *a, const void *payload, size_t len, int ttl,
                     uid_t restrict_uid, char **token, arbor_error_t *err);

/* Decode 'token'. On success *payload (malloc'd, caller frees, may be NULL
 * when empty), *len, *uid and *gid are set. Expired, rewound, invalid
 * tokens, or replayed ones, give -1 with errno
 * EPERM and err naming munge's reason ("munge: Expired credential"). */
int auth_decode (struct auth *a, const char *token, size_t token_len,
                 void **payload, size_t *len, uid_t *uid, gid_t *gid,
                 arbor_error_t *err);

/* After a successful auth_decode: the uid the token was restricted to,
 * (uid_t)-1 if none. munged refuses a restricted token to anyone else,
 * but a receiver that must be the token's only reader checks it too
 * rather than depend on how munged is configured. */
uid_t auth_last_restriction (struct auth *a);

#endif
