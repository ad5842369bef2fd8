/* willrun.h - --test-only for srun, salloc and sbatch: ask the controller
 * when the job would start and print it as Slurm does:
 *   sbatch: Job 42 to start at 2026-11-28T10:00:00 using 4 processors on
 *   nodes node[1-2] in partition debug
 */
#ifndef ARBOR_CLI_WILLRUN_H
#define ARBOR_CLI_WILLRUN_H

#include "client.h"
#include "proto.h"

/* Send req (its test_only set) on c and print the answer to stderr,
 * prefixed "prog: ". Returns the command's exit status: 0, or 1 after
 * printing why the job could not be submitted. */
int willrun_print (struct client *c, const struct msg_job_alloc *req,
                   const char *prog);

#endif
