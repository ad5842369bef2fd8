/* persist_restore.h - the controller's state read back at start
 * (persist_restore.c).
 *
 * persist_open reads the records into ctx in submit order: pending
 * jobs pending again, running jobs with their allocation and steps, ended
 * ones listed until purged. persist_resume, once the controller can talk
 * to nodes, gives the allocations whose requesters (arbor run, arbor
 * alloc) talked to the previous controller, pending or running, time to
 * reconnect (JOB_ATTACH); a pending one does not start meanwhile.
 */
#ifndef ARBOR_CTLD_PERSIST_RESTORE_H
#define ARBOR_CTLD_PERSIST_RESTORE_H
#include <stdbool.h>
#include <time.h>

#include "error.h"

struct ctld;

/* Open StateSaveLocation's database ('clear': set it aside and start
 * empty) and restore its records into ctx (nodes and partitions exist
 * already), then let persist.c commit to it. -1 with err: the controller
 * must not start. */
int persist_open (struct ctld *ctx, bool clear, arbor_error_t *err);

/* After the transport is up: give pending and running allocations
 * PERSIST_REATTACH_GRACE seconds for their requesters to reconnect
 * (JOB_ATTACH); persist_tick (every second) ends those that did not
 * (a pending one CANCELLED, a running one COMPLETED). */
#define PERSIST_REATTACH_GRACE 60
void persist_resume (struct ctld *ctx);
void persist_tick (struct ctld *ctx, time_t now);

#endif
