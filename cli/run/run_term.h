/* run_term.h - what ends a step early: --kill-on-bad-exit, the
 * controller's notices, lost stepds, MPI aborts, OOM reports (run_term.c).
 * Private to cli/run/.
 */
#ifndef ARBOR_CLI_RUN_TERM_H
#define ARBOR_CLI_RUN_TERM_H

#include <stdbool.h>
#include <stdint.h>
#include "error.h"
#include "proto.h"
#include "run_base.h"

/* Watch the controller connection for notices while the loop runs. */
void run_term_start (struct run_ctx *ctx);
void run_term_stop (struct run_ctx *ctx);
/* The controller connection is back (client_reconnect, attached to our
 * allocation when we made it), tried for at most RUN_RECONNECT_S seconds:
 * 0, or -1 with err (blocking: for the end of the run). */
#define RUN_RECONNECT_S 90
int run_reconnect_wait (struct run_ctx *ctx, arbor_error_t *err);
/* A task ended (code, or sig if signalled; oom: killed for memory): print
 * srun's line and apply --kill-on-bad-exit. */
void run_term_task_exit (struct run_ctx *ctx, const char *node, uint32_t task,
                         int code, int sig, bool oom);
/* The connection of the stepd of 'node' was lost with tasks running: an
 * MPI step cannot go on, cancel it. */
void run_term_lost (struct run_ctx *ctx, const char *node);
/* A stepd of 'node' says the MPI layer ended the step: print why (once)
 * and make its code the command's exit status. */
void run_term_abort (struct run_ctx *ctx, const char *node,
                     const struct msg_step_abort *m);
/* At the end: the OOM summary line, if any task was OOM-killed. */
void run_term_summary (const struct run_ctx *ctx);

#endif
