/* acct_usage.h - a step's accounting record and its nodes' reports.
 *
 * Pure functions, shared by the accounting database's thread (which
 * adds the reports it kept to each step it reads) and the controller.
 */
#ifndef ARBOR_CTLD_ACCT_USAGE_H
#define ARBOR_CTLD_ACCT_USAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "proto.h"

/* The srun-style code of an end: 128+signal, else the exit status. */
int acct_end_code (int exit_code, int signal);

/* Fold the usage reports 'u' (STEP_COMPLETEs with usage, one per node)
 * into step record 's': CPU times summed, the largest MaxRSS with its task
 * and node, AveRSS over every measured task, and the worst end when the
 * record has none of its own. -1 with errno ENOMEM. */
int acct_step_add_usage (struct msg_acct_step *s,
                         const struct msg_step_complete *u, size_t n);

/* A step's end state from how it ended: OUT_OF_MEMORY, FAILED (a
 * non-zero exit or a signal) or COMPLETED. */
const char *acct_step_state (int exit_code, int signal, bool oom);

#endif
