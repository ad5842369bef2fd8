/* acctmgr_args.h - sacctmgr's command words turned into an ASSOC_REQ.
 *
 *   VERB ENTITY [NAMES...] [KEY=VALUE...] [where KEY=VALUE...]
 *               [set KEY=VALUE...]
 *
 * VERB (any case): add|create, modify|update, delete|remove, show|list;
 * ENTITY (any case, singular or plural): account, user, cluster, qos,
 * coordinator, association (or assoc). They go on the wire as the first
 * of each spelling ("add", "account"...).
 *
 * The words after them, in order:
 *   where, set       start the conditions, the settings (set: modify only;
 *                    where: not in add); they may come in either order
 *   withassoc, withcoord, withdeleted
 *                    show only; accepted and ignored
 *   NAME[,NAME...]   a bare word: entity names, as typed (the controller
 *                    folds case); not after "set"
 *   KEY=VALUE        the key folded to lower case, the value as typed,
 *                    sent as "key=value". Before where/set: name=, names=
 *                    (and user(s)= for users, account(s)= for accounts,
 *                    cluster(s)= for clusters) are names on add, delete
 *                    and show; format= on show is the column choice
 *                    (acctmgr_table.h), not sent; any other key is a
 *                    setting of add, a condition of show and delete, an
 *                    error in modify (which needs where and set). After
 *                    where: a condition; after set: a setting.
 * add, delete and modify need names or conditions; modify needs a
 * setting. The controller checks keys and values; this only sorts words.
 */
#ifndef ARBOR_CLI_ACCTMGR_ARGS_H
#define ARBOR_CLI_ACCTMGR_ARGS_H

#include "error.h"
#include "proto.h"

/* A command, parsed. Owns every string but verb and entity (static). */
struct acctmgr_cmd {
    struct msg_assoc_req req; /* dry_run false */
    char *format;             /* show's format=, NULL: the default */
};

/* Parse the command words argv[0..argc-1] (what follows the options)
 * into *c (zeroed first). 0, or -1 with errno (EINVAL, ENOMEM) and err
 * saying what is wrong ("Unknown entity 'acount' (valid: account, user,
 * cluster, coordinator, association)"); *c is then empty. */
int acctmgr_args_parse (struct acctmgr_cmd *c, int argc, char **argv,
                        arbor_error_t *err);

/* Free what acctmgr_args_parse put in *c and zero it. Keeps errno. */
void acctmgr_cmd_clear (struct acctmgr_cmd *c);

#endif
