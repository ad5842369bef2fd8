/* jobid.h - job ids that never repeat across restarts.
 */
#ifndef ARBOR_CTLD_JOBID_H
#define ARBOR_CTLD_JOBID_H

#include <stdint.h>

#include "error.h"

struct conf;
struct ctld;
struct jobid;

/* Job ids from conf's StateSaveLocation (created if missing) and the
 * next id saved there; conf NULL: ids start at 1 and are not saved (unit
 * tests). NULL with errno and err (no StateSaveLocation, unreadable or
 * malformed file). jobid_destroy accepts NULL and keeps errno. */
struct jobid *jobid_create (const struct conf *conf, arbor_error_t *err);
void jobid_destroy (struct jobid *ji);
/* The next job id (from ctx->jobid), never one in use nor, when saved, one
 * handed out before a restart: ids are saved in blocks (written atomically)
 * before any of the block is handed out. -1 with errno and err when the
 * mark cannot be saved (no id is then handed out). */
int jobid_next (struct ctld *ctx, uint32_t *id, arbor_error_t *err);

#endif
