/* job_slurm.h - Slurm's other submission options as a job keeps them
 * (-M, -N MIN-MAX, --comment, --time-min, --mincpus, --tmp); see
 * job_slurm.c. */
#ifndef ARBOR_CTLD_JOB_SLURM_H
#define ARBOR_CTLD_JOB_SLURM_H

#include "error.h"
#include "proto.h"

struct ctld;
struct job;

/* Check req's fields and store them in j (j->comment replaced). 0, or -1
 * with errno and err naming what was wrong; j unchanged then. */
int job_slurm_fill (const struct ctld *ctx, struct job *j,
                    const struct msg_job_alloc *req, arbor_error_t *err);

/* Once the time limit is known: --time-min may not exceed it. */
int job_slurm_check_time (const struct job *j, arbor_error_t *err);

#endif
