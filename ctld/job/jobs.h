/* jobs.h - ctld->jobs, the job records in submit order and their index
 * by id (jobs.c).
 */
#ifndef ARBOR_CTLD_JOBS_H
#define ARBOR_CTLD_JOBS_H

#include <stdint.h>

struct ctld;
struct job;

/* The job with id 'id'; NULL when there is none. */
struct job *job_find (const struct ctld *ctx, uint32_t id);
/* Link j at the end of ctx->jobs (and index it by id); unlink the job at
 * *pp (the caller destroys it). -1 with errno ENOMEM: j is not linked. */
int jobs_append (struct ctld *ctx, struct job *j);
void jobs_unlink (struct ctld *ctx, struct job **pp);

#endif
