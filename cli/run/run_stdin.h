/* run_stdin.h - forward our stdin to the tasks (run_stdin.c).
 * Private to cli/run/.
 */
#ifndef ARBOR_CLI_RUN_STDIN_H
#define ARBOR_CLI_RUN_STDIN_H

#include <stdint.h>
#include "run_base.h"

/* The stdin mode to launch with: STDIN_NONE when our stdin is /dev/null,
 * else 'requested'. */
int32_t run_stdin_mode (int32_t requested);
/* A stepd said hello: start reading stdin, or replay what was read. */
void run_stdin_hello (struct run_ctx *ctx, struct run_peer *p);
void run_stdin_free (struct run_ctx *ctx);

#endif
