/* credkey.h - the cluster's credential key, on the controller's side.
 *
 * Step credentials are sealed under one 32-byte key (cred/cred.h). The
 * controller makes it once and keeps it in StateSaveLocation/cred.key
 * (mode 0600, its own), so that a restart keeps the credentials it issued
 * valid. A noded learns it from the controller: its NODE_REGISTER names
 * the key it holds, and when that is not ours the key goes back in a
 * CRED_KEY message whose munge token only the noded's uid can decode
 * (encoded off the loop, in the auth pool).
 */
#ifndef ARBOR_CTLD_CREDKEY_H
#define ARBOR_CTLD_CREDKEY_H

#include <stddef.h>
#include <sys/types.h>

#include "cred.h"
#include "error.h"

struct ctld;
struct credkey;

/* Load StateSaveLocation/cred.key (dir NULL: a key for this process
 * only, for tests), making it if absent. NULL with errno and err naming
 * the file and what is wrong with it (owner, mode, size). */
struct credkey *credkey_create (struct ctld *ctx, const char *dir,
                                arbor_error_t *err);
/* Cancel the keys being encoded. NULL is accepted. */
void credkey_destroy (struct credkey *ck);

const struct cred_key *credkey_key (const struct credkey *ck);

/* Node index 'node' registered as 'uid', holding key 'held' ("" or NULL:
 * none): send it ours if that is another. */
void credkey_registered (struct credkey *ck, size_t node, uid_t uid,
                         const char *held);

#endif
