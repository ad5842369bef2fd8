/* batch.h - the batch step (batch.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_BATCH_H
#define ARBOR_STEPD_BATCH_H

#include <stdbool.h>

#include "error.h"

struct stepd;

/* The batch step (STEP_ID_BATCH): its script in the spool
 * area, run as the one task with its output in files. */
bool batch_step (const struct stepd *sd);
/* Write the script (nothing for other steps). -1 with err fails the
 * launch. */
int batch_prepare (struct stepd *sd, arbor_error_t *err);
/* The script's path (the task's argv[0]); NULL for other steps. */
const char *batch_script_path (const struct stepd *sd);
/* The step is over: remove the script and its directory. NULL-safe. */
void batch_finish (struct stepd *sd);

#endif
