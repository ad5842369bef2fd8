/* acct.h - accounting: what ran, written to the accounting database
 * (acct_db.h) as it ends, and arbor acct's questions answered.
 *
 * A job's run is written once it is over (ended and done completing, or
 * ended before it ran; a requeued run as REQUEUED or NODE_FAIL before
 * the next starts), each step when it ends (or with its job), and each
 * node's usage report (STEP_COMPLETE from its stepd) as it comes.
 * Records are written again after a restart for the ended jobs the state
 * still has, so a commit lost with a power failure is made good.
 *
 * ACCT_QUERY is answered from both sources: the database for what it
 * holds, the controller's memory for the runs not yet written (pending,
 * running, completing) and for their running steps. The database work
 * is done by its thread; the loop only picks records and sends them.
 */
#ifndef ARBOR_CTLD_ACCT_H
#define ARBOR_CTLD_ACCT_H

#include "proto.h"

struct conn;
struct ctld;
struct frame;
struct job;
struct step;

/* Open the accounting database AccountingStorageType asks for (none:
 * no accounting, arbor acct answers from memory). -1 with err. */
int acct_open (struct ctld *ctx, arbor_error_t *err);
void acct_close (struct ctld *ctx);

/* j's run is over: write it (once per run). */
void acct_job_over (const struct ctld *ctx, struct job *j);
/* j's run ends to be run again: write it as 'state' (REQUEUED,
 * NODE_FAIL) before it is reset. */
void acct_job_requeued (const struct ctld *ctx, struct job *j);
/* Step s of j ended: by itself ('state' NULL: from how it ended), or
 * with its job ('state' what it is then: CANCELLED, COMPLETED...). */
void acct_step_over (const struct ctld *ctx, const struct job *j,
                     const struct step *s, const char *state);
/* Every running step of j ends with it (job_end). */
void acct_steps_over (const struct ctld *ctx, const struct job *j);
/* A node's STEP_COMPLETE with its usage, for j's current run. */
void acct_node_report (const struct ctld *ctx, const struct job *j,
                       const struct msg_step_complete *m);
/* After the restore: ended jobs written again. */
void acct_restored (struct ctld *ctx);

#endif
