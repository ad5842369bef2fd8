/* credkey_held.h - the cluster's credential key, on a node.
 *
 * Step credentials open with one key (cred/cred.h) that the controller
 * sends in CRED_KEY after a NODE_REGISTER that named another key or
 * none: a munge token minted by ArborUser and restricted to our uid,
 * decoded here off the loop (auth pool). Until it is held, launches wait
 * (launch.c); a new key replaces the old one at once.
 */
#ifndef ARBOR_NODED_CREDKEY_HELD_H
#define ARBOR_NODED_CREDKEY_HELD_H

#include "cred.h"
#include "proto.h"

struct noded;
struct conn;
struct frame;

/* CRED_KEY from the controller: answered RC at once, decoded in the pool;
 * a token that is not the controller's, not for us, or not a key is
 * refused with a logged reason. */
void credkey_handle (struct noded *nd, struct conn *c, const struct frame *f,
                     const struct msg_cred_key *m);

/* The key held, NULL before the controller's first CRED_KEY. */
const struct cred_key *credkey_held (const struct noded *nd);
/* Its id for NODE_REGISTER ("" when none). */
const char *credkey_held_id (const struct noded *nd);

/* A launch waits for the key: register now, so that it comes. */
void credkey_wanted (struct noded *nd);

/* Forget the key and any decode in progress (shutdown). */
void credkey_forget (struct noded *nd);

#endif
