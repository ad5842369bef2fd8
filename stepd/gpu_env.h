/* gpu_env.h - the GPU environment of each task (issue 35): which of the
 * step's GPUs on this node a task sees under srun's --gpu-bind and
 * --gpus-per-task, and the variables that say so, as Slurm sets them:
 *
 *   CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK,
 *   GPU_DEVICE_ORDINAL   the task's GPUs ("0,1"), as the task's runtime
 *                        numbers them: under ConstrainDevices=yes only
 *                        the step's GPUs can be opened, so they count
 *                        from 0 in the step's order; otherwise the
 *                        global indices
 *   SLURM_STEP_GPUS      the step's GPUs here, global indices ("2,3");
 *                        not in the batch step (as Slurm)
 *   SLURM_JOB_GPUS       the job's GPUs here, global indices
 *   SLURM_GPUS_ON_NODE   how many GPUs the step has here
 *
 * The binding, per Slurm's srun(1) --gpu-bind:
 *   none, or not given without --gpus-per-task: every task sees all of
 *     the step's GPUs; so does every binding when the step has a single
 *     task ("GPU binding is ignored if there is only one task")
 *   per_task:N, and --gpus-per-task=N without --gpu-bind: local task i
 *     sees GPUs i*N .. i*N+N-1 of the step's list, wrapping round when
 *     the step has fewer
 *   closest: the GPUs whose CPUs (gres.conf Cores=, NVML) meet the
 *     task's CPUs; all of the step's when none do or either is unknown
 *   single:N: one GPU per task, at most N tasks per GPU: task i takes the
 *     first GPU close to it (as closest) that lower tasks have not
 *     filled, else the first GPU not filled, else, when every GPU has N,
 *     a new round begins (each GPU takes N more)
 *   map_gpu:L / mask_gpu:L: local task i sees GPU L[i % n] / the GPUs of
 *     mask L[i % n]. The ids are in the numbering the task sees (as
 *     CUDA_VISIBLE_DEVICES would show them unbound): global indices, or,
 *     under ConstrainDevices=yes, positions in the step's list ("the GPU
 *     IDs are zero-based indexes relative to the GPUs allocated", srun(1);
 *     relative to the step's, which is all the device cgroup lets a task
 *     open). A GPU the step does not hold here is an error.
 *
 * Pure functions: no I/O, no globals, no logging. Unit-tested in
 * stepd/test/gpu_env_test.c.
 */
#ifndef ARBOR_STEPD_GPU_ENV_H
#define ARBOR_STEPD_GPU_ENV_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "error.h"
#include "gpubind.h"

/* GPUs of one step, or job, on one node. */
#define GPU_ENV_GPUS_MAX 1024u

/* What this node's share of the step holds, and how it binds. All
 * pointers are borrowed for the call. */
struct gpu_env_step {
    const uint32_t *gpus; /* the step's GPUs here: global indices, ascending */
    size_t ngpus;
    const uint32_t *job_gpus; /* the job's GPUs here (SLURM_JOB_GPUS) */
    size_t njob;
    bool constrained;            /* ConstrainDevices=yes */
    bool batch;                  /* the batch step: no SLURM_STEP_GPUS */
    const struct gpubind *bind;  /* --gpu-bind; NULL: not given */
    uint32_t gpus_per_task;      /* --gpus-per-task; 0: not given */
    uint32_t ntasks;             /* the step's tasks on this node */
    uint32_t step_tasks;         /* ... on all its nodes; 0: ntasks */
    const cpu_set_t *task_cpus;  /* ntasks sets, by local id; NULL unknown */
    const char *const *gpu_cpus; /* ngpus CPU lists ("0-15,32"), by
                                    position in gpus; NULL, or a NULL
                                    entry: unknown */
    const char *node;            /* for messages; NULL: none */
};

/* Check once per step, before any task starts, so that the stepd can
 * refuse the launch with a sentence: the lists are ascending, without
 * duplicates and within GPU_ENV_GPUS_MAX; the CPU lists parse; every
 * map_gpu id and every GPU of a mask_gpu mask is one of the step's
 * (unless the step has no GPUs here: then nothing binds). 0, or -1 with
 * errno EINVAL and err, e.g. "--gpu-bind=map_gpu:5: GPU 5 is not one of
 * the step's on node1 (0-1)". */
int gpu_env_check (const struct gpu_env_step *s, arbor_error_t *err);

/* Which of the step's GPUs local task 'local' sees: on[i] says whether
 * it sees s->gpus[i] ('on' has s->ngpus entries; NULL when there are
 * none). Returns how many, 0 when the step has no GPUs here; -1 with
 * errno EINVAL and err when this task's map_gpu id or mask_gpu mask
 * names a GPU the step does not hold (as gpu_env_check words it), for a
 * local id not below s->ntasks or more than GPU_ENV_GPUS_MAX GPUs; or
 * ENOMEM. Other lists gpu_env_check refuses give some answer, never a
 * fault: check first. */
int gpu_env_task_gpus (const struct gpu_env_step *s, uint32_t local, bool *on,
                       arbor_error_t *err);

/* Set the variables above in e for local task 'local'. Nothing is set
 * when neither the step nor the job has GPUs here. A step without GPUs
 * in a job with some gets empty lists (an unset CUDA_VISIBLE_DEVICES
 * would show a task every GPU). 0, or -1 with errno (EINVAL and err as
 * gpu_env_task_gpus; ENOMEM). */
int gpu_env_set (struct env *e, const struct gpu_env_step *s, uint32_t local,
                 arbor_error_t *err);

/* The line --gpu-bind=verbose,... prints on the task's stderr before it
 * runs, in the manner of --cpu-bind=verbose's:
 *   "gpu-bind=per_task:1 - node1, task  3  1: GPUs 3 visible as 1\n"
 * ('rank' is the task's rank in the step). Truncated to len; 0, or -1
 * with errno and err as gpu_env_task_gpus. */
int gpu_env_note (const struct gpu_env_step *s, uint32_t local, uint32_t rank,
                  char *buf, size_t len, arbor_error_t *err);

#endif
