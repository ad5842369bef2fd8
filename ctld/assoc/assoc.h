/* assoc.h - the site's policy, as Slurm's associations keep it (issue 36):
 * clusters, accounts in a tree under "root", users in accounts with a
 * default account and an administrative level, and the coordinators of
 * an account. Each entity is one ASSOC_REC (common/wire/proto_msgs.def),
 * kept in the accounting database (acct_db.h) and in memory here; names
 * are lower case, as Slurm keeps them.
 *
 * This module owns the entities and their rules (a name's form, the tree
 * stays a tree, a user's default account is one of its accounts); who
 * may change what is assoc_req.h's, the job's account assoc_job.h's.
 */
#ifndef ARBOR_CTLD_ASSOC_H
#define ARBOR_CTLD_ASSOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "proto.h"

#define ASSOC_ROOT "root"
#define ASSOC_NAME_MAX 64

enum assoc_admin {
    ASSOC_ADMIN_NONE = 0,
    ASSOC_ADMIN_OPERATOR = 1,
    ASSOC_ADMIN_ADMINISTRATOR = 2,
};

struct assoc {
    struct msg_assoc_rec *clusters, *accounts, *users, *qos;
    size_t nclusters, naccounts, nusers, nqos;
};

#define ASSOC_QOS_NORMAL "normal" /* the QOS there always is */

/* An empty policy: the one cluster 'cluster', the root account and the
 * QOS "normal". -1 with errno ENOMEM. */
int assoc_init (struct assoc *a, const char *cluster);
void assoc_clear (struct assoc *a);
/* Deep copy (a dry run works on one). -1 with errno ENOMEM. */
int assoc_copy (struct assoc *dst, const struct assoc *src);

/* The entity of 'kind' ("cluster", "account", "user", "qos") named
 * 'name' (any case), or NULL. */
struct msg_assoc_rec *assoc_find (const struct assoc *a, const char *kind,
                                  const char *name);
/* Add a copy of r (its names lower-cased; a user's accounts and default
 * checked). -1 with errno EEXIST, ENOENT (a parent or account that is
 * not there), EINVAL (a bad name) or ENOMEM, and err. */
int assoc_add (struct assoc *a, const struct msg_assoc_rec *r,
               arbor_error_t *err);
/* Take r as it is (a record read back: its rules are checked once all
 * are in, assoc_check), replacing one of its kind and name; r is a's
 * from now on. -1 with errno EINVAL (a kind that is none) or ENOMEM (r
 * is then still the caller's). */
int assoc_adopt (struct assoc *a, struct msg_assoc_rec *r);
/* Remove entity kind/name. -1 with errno ENOENT, or EBUSY (an account
 * with sub-accounts or users, root) and err. */
int assoc_remove (struct assoc *a, const char *kind, const char *name,
                  arbor_error_t *err);
/* Is r well formed against the rest (after a change in place)? 0, or -1
 * with errno and err as assoc_add. */
int assoc_check (const struct assoc *a, const struct msg_assoc_rec *r,
                 arbor_error_t *err);

/* Is s a UsageFactor (a decimal, 0 or more: "1", "0.5")? */
bool assoc_decimal_ok (const char *s);
/* PreemptMode's words: "cluster", "cancel", "requeue", "suspend". */
bool assoc_preempt_mode_ok (const char *s);

/* Is 'name' a valid entity name (letters, digits, '-', '_', '.', at
 * most ASSOC_NAME_MAX)? */
bool assoc_name_ok (const char *name);
/* Is 'acct' 'anc' or below it? */
bool assoc_under (const struct assoc *a, const char *acct, const char *anc);
/* Is user 'user' in account 'acct'? Does it coordinate 'acct' or one of
 * its parents? */
bool assoc_user_in (const struct msg_assoc_rec *u, const char *acct);
bool assoc_coordinates (const struct assoc *a, const char *user,
                        const char *acct);
/* A string list's helpers on ASSOC_REC's lists: has 'name'; add it
 * (once); drop it. -1 with errno ENOMEM. */
bool assoc_list_has (char *const *v, uint32_t n, const char *name);
int assoc_list_add (char ***v, uint32_t *n, const char *name);
void assoc_list_drop (char **v, uint32_t *n, const char *name);
/* Append s (even when there already). -1 with errno ENOMEM. */
int assoc_list_push (char ***v, uint32_t *n, const char *s);

#endif
