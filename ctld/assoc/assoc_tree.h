/* assoc_tree.h - the account tree (assoc.h) as indices, built once for
 * a walk: each account's sub-accounts and users, in the order the
 * policy keeps them. Built in O(n log n) (names sorted once), so that
 * walking a site of 10,000 users costs no more than reading it.
 */
#ifndef ARBOR_CTLD_ASSOC_TREE_H
#define ARBOR_CTLD_ASSOC_TREE_H

#include <stddef.h>

#include "assoc/assoc.h"

struct assoc_tree {
    /* account i's sub-accounts: child[child_at[i] .. child_at[i + 1]),
     * its users: user[user_at[i] .. user_at[i + 1]) (indices into
     * a->accounts and a->users) */
    size_t *child_at, *child, *user_at, *user;
    size_t root; /* a->naccounts when there is none */
};

/* -1 with errno ENOMEM. */
int assoc_tree_build (const struct assoc *a, struct assoc_tree *t);
void assoc_tree_free (struct assoc_tree *t);

#endif
