/* submit.h - a job enters the queue (submit.c).
 *
 * A job lives in ctx->jobs (submit order) from job_submit or job_enqueue
 * until it is purged, finished jobs giving way first when MaxJobCount is
 * reached.
 */
#ifndef ARBOR_CTLD_SUBMIT_H
#define ARBOR_CTLD_SUBMIT_H
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "error.h"

struct ctld;
struct job;

/* Queue a validated job: -1 with errno EINVAL and err if it can never
 * run (the job is then not queued and still the caller's), else 0 and the
 * job belongs to ctx. A pass runs at once (sched_flush), so that the
 * caller sees whether the job started or waits (JOB_ALLOCATED or
 * JOB_PENDING is the requester's answer). */
int job_submit (struct ctld *ctx, struct job *j, arbor_error_t *err);
/* job_submit in two halves, for batch jobs and arrays (answered with
 * their id before any pass runs): job_submit_check refuses a job that can
 * never run, or n more jobs than MaxJobCount allows (errno EINVAL,
 * EAGAIN); job_enqueue gives j its id and queues it (it is then ctx's)
 * and requests a pass. -1 with errno and err. */
int job_submit_check (struct ctld *ctx, const struct job *j, size_t n,
                      arbor_error_t *err);
int job_enqueue (struct ctld *ctx, struct job *j, arbor_error_t *err);
/* Forget jobs ended over MinJobAge seconds ago (all when 'all', at
 * shutdown: then nothing is forgotten on disk). Each goes through
 * JS_PURGE. */
void jobs_purge (struct ctld *ctx, time_t now, bool all);

#endif
