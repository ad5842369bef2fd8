/* run_verbose.h - srun -v's Slurm lines for the allocation and the step's
 * launch (run_verbose.c). Private to cli/run/.
 */
#ifndef ARBOR_CLI_RUN_VERBOSE_H
#define ARBOR_CLI_RUN_VERBOSE_H

#include "proto.h"
#include "run_base.h"

/* "jobid N: nodes(n):`list', cpu counts: ..." for allocation 'a'. */
void run_verbose_job (const struct run_ctx *ctx,
                      const struct msg_job_allocated *a);
/* One "launching StepId=..." line per node of the step. */
void run_verbose_step (const struct run_ctx *ctx);

#endif
