/* run_place.h - where ranks run and what they run: -m arbitrary and
 * --multi-prog (run_place.c). Private to cli/run/.
 */
#ifndef ARBOR_CLI_RUN_PLACE_H
#define ARBOR_CLI_RUN_PLACE_H

#include "run_base.h"

/* Before the allocation: read SLURM_HOSTFILE (-m arbitrary; -n from it)
 * and the --multi-prog file (checked against -n when given). */
int run_place_prepare (struct run_ctx *ctx);
/* The step exists: LAUNCH's task_nodes, and the --multi-prog file checked
 * against the step's task count. */
int run_place_step (struct run_ctx *ctx);
void run_place_free (struct run_ctx *ctx);

#endif
