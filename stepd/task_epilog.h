/* task_epilog.h - --task-epilog and TaskEpilog, after each task
 * (task_epilog.c). Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_TASK_EPILOG_H
#define ARBOR_STEPD_TASK_EPILOG_H

#include <stdbool.h>
#include <sys/types.h>

struct stepd;
struct task;

/* --task-epilog, then TaskEpilog, after each task ends,
 * as the job's user with the task's environment, in the container, each
 * bounded (--task-epilog a few seconds, TaskEpilog PrologEpilogTimeout).
 * The step is not over while one runs (lifecycle.c). */
void epilog_task_ended (struct stepd *sd, const struct task *t);
/* A child reaped (reap.c): true if it was an epilog (the next one of
 * its task starts). */
bool epilog_reaped (struct stepd *sd, pid_t pid, int status);
bool epilog_busy (const struct stepd *sd);
/* Kill what still runs (the container goes next) and free. NULL-safe. */
void epilog_fini (struct stepd *sd);

#endif
