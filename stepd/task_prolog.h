/* task_prolog.h - TaskProlog and --task-prolog, run by a task's child
 * before its exec (task_prolog.c), their output changing the task's
 * environment. The child's side of a task is task_child.h's.
 */
#ifndef ARBOR_STEPD_TASK_PROLOG_H
#define ARBOR_STEPD_TASK_PROLOG_H

struct env;
struct task_plan;

/* In the child (its own copy of the stepd's memory), its status fd
 * closed: run p->prologs in order with the task's environment,
 * acting on their output lines: "export NAME=VALUE" sets NAME, "unset
 * NAME" removes it, "print TEXT" writes TEXT to the task's stdout; other
 * lines are ignored. p->envp is then p->env's new array. Returns 0, or
 * the exit code the task must end with (a prolog failed, was killed or
 * ran over p->prolog_secs: said on its stderr). */
int task_prolog_run (struct task_plan *p);
/* One output line (no newline) acted on as above. 0, or -1 with errno
 * ENOMEM. */
int task_prolog_line (struct env *env, const char *line, int out_fd);

#endif
