/* tasks.h - start, feed and reap the tasks (tasks.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_TASKS_H
#define ARBOR_STEPD_TASKS_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"

struct stepd;
struct task;

/* Check what STEPD_INIT asks of the tasks before anything is set up
 * (--cpu-bind: map_cpu's CPUs must be the step's here). -1 with err. */
int tasks_check (struct stepd *sd, arbor_error_t *err);
/* Fork and exec the local tasks, each put in the container before it
 * may exec. -1 with err on a launch failure (tasks already started are
 * killed). */
int tasks_start (struct stepd *sd, arbor_error_t *err);
void tasks_destroy (struct stepd *sd);
/* Task t ended with wait status 'status' (reap.c reaped it): log it, claim
 * an OOM kill, update the step's rc, queue its TASK_EXIT, tell MPI. */
void tasks_exited (struct task *t, int status);
/* Send one TASK_EXIT for the exits not reported yet. */
void tasks_flush_exits (struct stepd *sd);
/* The parent's side of a child just started from a plan: unless it puts
 * itself in the container (go_w -1), add it and let it go on (writing
 * go_w); then read its status pipe (status_r) until it execs (EOF) or
 * says why it could not. Returns what was read (the reason, NUL-ended in
 * buf; 0: it exec'd), -1 on a read error; *add_errno is the container's
 * refusal (the child then exits on its own), else 0. The caller closes
 * the fds. */
ssize_t tasks_release (struct stepd *sd, pid_t pid, int go_w, int status_r,
                       char *buf, size_t len, int *add_errno);

#endif
