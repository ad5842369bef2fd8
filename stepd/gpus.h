/* gpus.h - the step's GPUs on this node, for its tasks' environments
 * (issue 35): STEPD_INIT's gres and job_gres (common/spec/gresalloc.h),
 * --gpu-bind and --gpus-per-task, the GPUs' local CPUs (dev_cores) and
 * each task's CPUs, put together once per step for gpu_env.h.
 */
#ifndef ARBOR_STEPD_GPUS_H
#define ARBOR_STEPD_GPUS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct stepd;
struct gpu_env_step;

/* After the tasks' binding is planned (tasks.c), before any task starts:
 * -1 with errno and err ("--gpu-bind=map_gpu:5: GPU 5 is not one of the
 * step's on node1 (0-1)"), the launch then fails. */
int gpus_prepare (struct stepd *sd, arbor_error_t *err);
/* What env_task_create gives each task; NULL when neither the step nor
 * its job has GPUs here. */
const struct gpu_env_step *gpus_env (const struct stepd *sd);
/* --gpu-bind=verbose: the line local task 'local' (rank 'rank') prints on
 * its stderr before it runs, into buf; "" when not asked. */
void gpus_note (const struct stepd *sd, uint32_t local, uint32_t rank,
                char *buf, size_t len);
void gpus_free (struct stepd *sd);

#endif
