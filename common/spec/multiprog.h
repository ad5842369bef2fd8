/* multiprog.h - srun --multi-prog: a different program for each task.
 *
 * Slurm's configuration file: each line that is neither blank nor a
 * comment (first non-blank character '#') reads
 *     TASKS PROGRAM [ARGS...]
 * TASKS is a comma-separated list of task ranks and ranges, lower bound
 * first ("0,2-3"), or "*" for every task not given a line above it (so
 * "*" belongs on the last line). Words are split as sh(1) would (quotes,
 * backslashes, '#' comments; see words.h). In PROGRAM and ARGS, "%t" is
 * replaced by the task's rank and "%o" by its offset in the TASKS list of
 * its line: "1,7 prog %o" gives task 1 "0" and task 7 "1". Under "*" the
 * offset is the rank, as in Slurm. A '%' inside quotes or after a
 * backslash is kept as it is ('%t' stays %t), "%%" gives '%', and any
 * other '%' is kept. Every task must have exactly one line.
 *     4-6   hostname
 *     1,7   echo task:%t
 *     0,2-3 echo 'offset %o:' %o
 */
#ifndef ARBOR_MULTIPROG_H
#define ARBOR_MULTIPROG_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

struct multiprog;

/* Parse the configuration text[0..len) for a step of 'ntasks' tasks.
 * Returns a new multiprog (free with multiprog_destroy), or NULL with errno
 * ENOMEM, or EINVAL and err naming the line and the problem:
 *   "line 2: task 8 is out of range (the step has 4 tasks)"
 *   "task 2 is on lines 1 and 3"
 *   "task 3 has no line in the configuration"
 *   "line 4: no program for tasks '0-3'"
 *   "line 5: malformed task list '2-1'"
 * ntasks 0 is EINVAL too. */
struct multiprog *multiprog_parse (const char *text, size_t len,
                                   uint32_t ntasks, arbor_error_t *err);

/* The argv of task 'rank' (< ntasks), %t and %o expanded: a new
 * NULL-terminated vector of malloc'd strings, argv[0] the program; free it
 * with multiprog_argv_free(). NULL with errno EINVAL (rank out of range) or
 * ENOMEM. */
char **multiprog_argv (const struct multiprog *mp, uint32_t rank);

/* Accepts NULL; keeps errno. */
void multiprog_argv_free (char **argv);

/* Accepts NULL; keeps errno. */
void multiprog_destroy (struct multiprog *mp);

#endif
