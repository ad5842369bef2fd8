/* job_check.h - a request checked into a job (job_check.c). */
#ifndef ARBOR_CTLD_JOB_CHECK_H
#define ARBOR_CTLD_JOB_CHECK_H

#include "error.h"
#include "proto.h"

struct ctld;
struct job;

/* Check req and fill j's partition, request, node masks, time limit and
 * the fields the request sets. 0, or -1 with errno and err naming what was
 * wrong (j may be partly filled: the caller discards it). */
int job_fill (struct ctld *ctx, struct job *j, const struct msg_job_alloc *req,
              arbor_error_t *err);

#endif
