/* tasks.h - what the launcher knows about each task of its step.
 *
 * A table of task records indexed by global rank: still running, exited
 * with a code, killed by a signal, or lost (its stepd's connection closed
 * before it reported). From it come srun's exit status rule and the task
 * summary printed on the first Ctrl-C. Pure bookkeeping: no I/O here
 * except the summary text handed to a callback.
 */
#ifndef ARBOR_CLI_TASKS_H
#define ARBOR_CLI_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum task_state {
    TASK_STARTING = 0, /* its stepd has not said hello yet */
    TASK_RUNNING,
    TASK_EXITED,   /* code holds the exit status */
    TASK_SIGNALED, /* sig holds the terminating signal */
    TASK_LOST,     /* its stepd connection closed before it reported */
};

struct task_rec {
    enum task_state state;
    int code;
    int sig;
};

struct task_table {
    uint32_t n;
    uint32_t ended; /* tasks in EXITED, SIGNALED or LOST */
    struct task_rec *t;
};

/* 0 or -1 with errno ENOMEM. */
int tasks_init (struct task_table *tt, uint32_t n);
void tasks_clear (struct task_table *tt);

/* Transitions; out-of-range tasks and tasks already ended are ignored
 * (return -1 with errno EINVAL / EALREADY). */
int tasks_set_running (struct task_table *tt, uint32_t task);
int tasks_set_exit (struct task_table *tt, uint32_t task, int code, int sig);
int tasks_set_lost (struct task_table *tt, uint32_t task);

bool tasks_all_ended (const struct task_table *tt);

/* srun's rule: any task killed by a signal -> 128 + the largest such
 * signal; else the highest exit code (a lost task counts as code 1). */
int tasks_exit_code (const struct task_table *tt);

/* How the task that decided tasks_exit_code ended, for accounting: the
 * largest terminating signal (*exit_code 0), else the highest exit code
 * (*signal 0). */
void tasks_exit_status (const struct task_table *tt, int *exit_code,
                        int *signal);

/* The ranged form of a sorted list of task ids, "0-3,5,7-9", into buf
 * (truncated with "..." if too long). Returns buf. */
char *tasks_ranged (const uint32_t *ids, size_t n, char *buf, size_t len);

/* Call line() once per group of tasks in the same summary state with
 * "tasks 0-15: running" / "tasks 3: exited" / "tasks 4-5: exited
 * abnormally" / "tasks 6: launching". */
void tasks_summary (const struct task_table *tt,
                    void (*line) (const char *text, void *arg), void *arg);

#endif
