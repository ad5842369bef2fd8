/* run_launch.h - LAUNCH to node zero and its answer (run_launch.c).
 * Private to cli/run/.
 */
#ifndef ARBOR_CLI_RUN_LAUNCH_H
#define ARBOR_CLI_RUN_LAUNCH_H

#include "run_base.h"

/* Send LAUNCH to the step's node zero; the answer is handled on the loop.
 * 0, or -1 after printing why. */
int run_launch_start (struct run_ctx *ctx);

#endif
