/* run_pty.h - --pty: our terminal for task 0 (run_pty.c).
 * Private to cli/run/.
 */
#ifndef ARBOR_CLI_RUN_PTY_H
#define ARBOR_CLI_RUN_PTY_H

#include <stdint.h>
#include "run_base.h"

/* start: our terminal raw (put back at exit), size changes sent on; stop:
 * put it back. size: our terminal's size. */
void run_pty_start (struct run_ctx *ctx);
void run_pty_stop (struct run_ctx *ctx);
void run_pty_size (uint32_t *rows, uint32_t *cols);

#endif
