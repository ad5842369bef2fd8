/* run_signal.h - the launcher's signal handling: forward, Ctrl-C, abort
 * (run_signal.c). Private to cli/run/.
 */
#ifndef ARBOR_CLI_RUN_SIGNAL_H
#define ARBOR_CLI_RUN_SIGNAL_H

#include "run_base.h"

void run_signals_start (struct run_ctx *ctx);
void run_signals_stop (struct run_ctx *ctx);
/* Kill the step (launch failure, double Ctrl-C): SIGKILL to every stepd,
 * and a deadline after which we stop waiting for them. */
void run_abort (struct run_ctx *ctx);

#endif
