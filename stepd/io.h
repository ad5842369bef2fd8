/* io.h - the stepd's I/O connection to the launcher (io.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_IO_H
#define ARBOR_STEPD_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct conn;
struct stepd;
struct task;

void io_init (struct stepd *sd);
int io_connect (struct stepd *sd, arbor_error_t *err);
/* Queue IO_HELLO (the step, this node, its ranks) on c, the first frame
 * of an I/O connection: the launcher's or an attached client's. 0, or -1
 * with errno. */
int io_hello (struct stepd *sd, struct conn *c);
/* Start the output watchers of a forked task. */
void io_task_start (struct stepd *sd, struct task *t);
/* Write stdin data for the task 'task' (rank or STDIN_ALL). */
void io_stdin (struct stepd *sd, int32_t task, const char *data, size_t len);
/* Close every output pipe still open (after the drain grace). */
void io_close_outputs (struct stepd *sd);
bool io_outputs_open (const struct stepd *sd);
/* Write text to the launcher as stderr of the first local task whose
 * stderr is still open; false if none is (or no I/O connection). */
bool io_user_error (struct stepd *sd, const char *text);
void io_close_stdin (struct task *t);

#endif
