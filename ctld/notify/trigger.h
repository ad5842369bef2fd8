/* trigger.h - event triggers (strigger): programs run when nodes or jobs
 * change.
 *
 * A trigger watches a job (its end, its time limit, its nodes going
 * down or up) or nodes (down, up from DOWN, drained, idle for --offset
 * seconds; "*" for every node) and, once its event happened, runs its
 * program --offset seconds later (a negative offset runs a --time
 * trigger that long before the time limit) as the user who set it, with
 * the nodes (a hostlist) or the job id as its last argument. A trigger
 * fires once and is then removed, unless it was set with --flags=PERM.
 * Events are checked every second (trigger_tick); Arbor nodes have no
 * FAILING state, so a --fail trigger never fires.
 *
 * Who may do what (docs/triggers.md):
 *   - setting needs a controller running as root (it switches to the
 *     owner to run the program); a controller running as another user
 *     takes triggers from that user alone, as slurmctld does when
 *     SlurmUser is not root;
 *   - a job trigger: the job's owner, root or ArborUser; node triggers:
 *     anyone (the program runs as its owner);
 *   - the program must be an absolute path to a regular file its owner
 *     may execute, checked when set and again when it runs;
 *   - everyone may list triggers; only its owner, root or ArborUser
 *     may clear one.
 * Triggers are kept in the state database ("trigger/ID", TRIGGER_REC)
 * and survive a controller restart; a fired trigger whose program was
 * running then is not run again.
 */
#ifndef ARBOR_CTLD_TRIGGER_H
#define ARBOR_CTLD_TRIGGER_H

#include <time.h>

#include "error.h"
#include "proto.h"

struct conn;
struct ctld;
struct frame;
struct triggers;

#define TRIGGER_PROG_TIMEOUT 300 /* s: then its process group is killed */
#define TRIGGERS_MAX 4096        /* in all */
#define TRIGGERS_USER_MAX 128    /* of one user (not root or ArborUser) */
#define TRIGGER_PROG_MAX 1024    /* bytes of --program */
#define TRIGGER_ARGS_MAX 62      /* words of --program */

struct triggers *triggers_create (void);
/* Programs under way are let finish, no longer watched. NULL accepted. */
void triggers_destroy (struct triggers *ts);

/* The restore (persist_restore.c): one TRIGGER_REC. 0, or -1 with errno
 * and err (the record is then dropped). */
int trigger_restore (struct ctld *ctx, const struct msg_trigger_rec *r,
                     arbor_error_t *err);

/* Request handlers (serve.c's table, RPC_ANY; they check who asks). */
void trigger_set_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg);
void trigger_get_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg);
void trigger_clear_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg);

#endif
