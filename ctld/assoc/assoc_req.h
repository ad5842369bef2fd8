/* assoc_req.h - sacctmgr's add, modify and delete on the site's policy
 * (assoc.h), with who may do what (issue 36):
 *   - administrators (root, ArborUser, AdminLevel=Administrator) and
 *     operators (AdminLevel=Operator) change anything, except that only
 *     an administrator makes anyone an administrator;
 *   - the coordinator of an account adds, changes and removes its
 *     sub-accounts and the users' membership in it and below it, and
 *     sets those users' default account, never an admin level;
 *   - anyone else changes nothing.
 * A request is applied whole or not at all; 'said' tells what changed,
 * as sacctmgr prints it before asking to commit.
 * The interface of one module in several files: assoc_req.c,
 * assoc_words.c and the verbs' (assoc_private.h).
 */
#ifndef ARBOR_CTLD_ASSOC_REQ_H
#define ARBOR_CTLD_ASSOC_REQ_H

#include <stdio.h>

#include "assoc/assoc.h"

/* Who asks. */
struct assoc_actor {
    const char *name;       /* user name */
    enum assoc_admin level; /* root and ArborUser: administrator */
};

/* What a change touched: the entities to write (or, gone, to delete),
 * as "kind/name". */
struct assoc_touched {
    char **v;
    uint32_t n;
};
void assoc_touched_clear (struct assoc_touched *t);

/* Apply req (an "add", "modify" or "delete") to a, telling what changed
 * into 'said' (a memstream) and what it touched into *t. 0, or -1 with
 * errno (EINVAL a bad key or value, ENOENT, EEXIST, EPERM, EBUSY,
 * ENOMEM) and err; a may then be half changed: apply to a copy. */
int assoc_apply (struct assoc *a, const struct assoc_actor *who,
                 const struct msg_assoc_req *req, FILE *said,
                 struct assoc_touched *t, arbor_error_t *err);

/* A request's size, bounded before anything is done with it (a
 * condition is checked against every row a show answers): at most
 * ASSOC_ITEMS_MAX names and values in all (each of a comma list
 * counts), each word at most ASSOC_WORD_MAX characters. 0, or -1 with
 * errno EINVAL and err. */
#define ASSOC_ITEMS_MAX 256
#define ASSOC_WORD_MAX 4096
int assoc_req_bounded (const struct msg_assoc_req *req, arbor_error_t *err);

/* "None", "Operator", "Administrator" (any case, or their starts "oper",
 * "admin") into *out. -1 with errno EINVAL. */
int assoc_admin_parse (const char *s, enum assoc_admin *out);
const char *assoc_admin_name (enum assoc_admin l);

#endif
