/* run_io.h - the launcher's side of the stepd I/O connections (run_io.c):
 * the listener, one struct run_peer per stepd, and the calls that reach
 * every stepd at once. Private to cli/run/.
 */
#ifndef ARBOR_CLI_RUN_IO_H
#define ARBOR_CLI_RUN_IO_H

#include <stdbool.h>
#include <stdint.h>
#include "run_base.h"

struct conn;

/* One stepd's I/O connection (owned by run_io.c; run_stdin.c and
 * run_pty.c read it to pick the stepds they write to). */
struct run_peer {
    struct run_ctx *ctx;
    struct conn *conn;
    bool hello;      /* IO_HELLO accepted */
    char *node;      /* node name from the hello */
    uint32_t *tasks; /* global ranks on this node */
    uint32_t ntasks;
    struct run_peer *next;
};

/* The listener the stepds connect back to: 0, or -1 after printing why. */
int run_io_listen (struct run_ctx *ctx);
void run_io_stop (struct run_ctx *ctx);
/* STEP_SIGNAL 'sig' to every stepd that said hello. */
void run_signal_stepds (struct run_ctx *ctx, int sig);
/* Stop the loop if everything is over (tasks ended, stepds gone). */
void run_check_done (struct run_ctx *ctx);

#endif
