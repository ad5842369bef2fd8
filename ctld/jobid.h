/* jobid.h - job ids that never repeat across restarts.
 */
#ifndef ARBOR_CTLD_JOBID_H
#define ARBOR_CTLD_JOBID_H

#include <stdint.h>

#include "error.h"

struct ctld;

/* Directory StateSaveLocation (created if missing) and the saved next job
 * id. -1 with errno and err (unreadable or malformed file). */
int jobid_init (struct ctld *ctx, arbor_error_t *err);
void jobid_fini (struct ctld *ctx);
/* The next job id, never one in use nor, with jobid_init done, one handed
 * out before a restart: ids are saved in blocks (written atomically)
 * before any of the block is handed out. -1 with errno and err when the
 * mark cannot be saved (no id is then handed out). */
int jobid_next (struct ctld *ctx, uint32_t *id, arbor_error_t *err);

#endif
