/* persist.h - the controller's records in its state database (store.h).
 *
 * What is kept: every job (JOB_REC: its request and what happened to it
 * since, its allocation while it has one), its running steps (STEP_REC),
 * batch scripts once per array (BATCH_REC) and what was decided about
 * nodes (NODE_REC: drains, DOWN by an administrator, reasons). The job id
 * mark stays jobid.c's.
 *
 * The modules say what changed: persist_job marks a job (written before
 * the loop next waits), persist_job_gone deletes it, persist_node writes
 * a node. persist_then calls back once everything said so far is
 * durable: answers that promise durability (a submission accepted) wait
 * for it. Without a store (CTLD_STATE_VOLATILE: unit tests) all of this
 * is a no-op and persist_then calls back at once.
 *
 * At start persist_restore reads the records back into ctx in submit
 * order: pending jobs pending again, running jobs with their allocation
 * and steps, ended ones listed until purged (persist_restore.h).
 */
#ifndef ARBOR_CTLD_PERSIST_H
#define ARBOR_CTLD_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "error.h"
#include "proto.h"
#include "state/store.h"

struct ctld;
struct job;

/* Write what is pending and close (NULL store accepted). */
void persist_close (struct ctld *ctx);

void persist_job (const struct ctld *ctx, struct job *j);
void persist_job_gone (const struct ctld *ctx, struct job *j);
void persist_node (const struct ctld *ctx, size_t node);
/* cb once everything said so far is durable (see store_sync). -1 with
 * errno ENOMEM. */
int persist_then (struct ctld *ctx, store_done_f cb, void *arg);
/* 0 while the state database can be written (always, without one);
 * else the errno of its last failed commit, with err ("StateSaveLocation
 * DIR: No space left on device"). Until it can, no change is accepted
 * and no job starts: what is not recorded must not be acted on. */
int persist_writable (const struct ctld *ctx, char *err, size_t size);
/* 'req' encoded as a job keeps it: its JOB_ALLOC without the batch
 * fields (the script is its BATCH_REC's). 0, or -1 with errno. */
int persist_request (const struct msg_job_alloc *req, char **buf, size_t *len);

#endif
