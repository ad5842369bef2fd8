/* when.h - when a pending job may start: holds, --begin, dependencies,
 * and the running cap of its job array.
 *
 * A pending job is eligible only once nothing of these holds it back;
 * sched.c asks when_eligible() for each pending job in every pass, with
 * the pass's count of running array tasks (struct when_pass), and skips
 * ineligible jobs (they never block the queue behind them). Their
 * pending reason is Slurm's: JobHeldUser, JobHeldAdmin, BeginTime,
 * Dependency, JobArrayTaskLimit, and CPUHoursLimit when the job would
 * take its user past their CPU-hour limit (cpulimits.h). A dependency that can
 * no longer be satisfied (afterok on a job that failed...) is
 * DependencyNeverSatisfied: the job is cancelled with that reason, or stays
 * pending with it under
 * --kill-on-invalid-dep=no.
 */
#ifndef ARBOR_CTLD_WHEN_H
#define ARBOR_CTLD_WHEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "error.h"
#include "proto.h"

struct ctld;
struct job;

enum when_verdict {
    WHEN_READY, /* may start now */
    WHEN_WAIT,  /* not yet: *reason says why */
    WHEN_NEVER, /* a dependency can never be satisfied */
};

/* Running tasks of throttled arrays, counted once per pass. */
struct when_array {
    uint32_t array_job_id;
    uint32_t running;
};
/* CPU-hours asked by a user's running jobs (cpulimits.h), when limits
 * are in force. */
struct when_user {
    uid_t uid;
    double hours;
};
struct when_pass {
    struct when_array *arrays;
    size_t n;
    bool limited;            /* CPU-hour limits are in force */
    struct when_user *users; /* sorted by uid */
    size_t nusers;
    time_t now;
};

/* The submission's hold, begin time, requeue flag and dependencies into
 * j (dependencies must name known jobs). -1 with errno EINVAL/ENOMEM and
 * err ("invalid --dependency 'afterok:99': job 99 not found"). */
int when_init (struct ctld *ctx, struct job *j, const struct msg_job_alloc *req,
               arbor_error_t *err);
/* Free what when_init kept. */
void when_clear (struct job *j);

/* Start a pass (counts the running tasks of throttled arrays); end it. */
int when_pass_begin (struct ctld *ctx, struct when_pass *p);
void when_pass_end (struct when_pass *p);
/* May pending job j start now? */
enum when_verdict when_eligible (const struct ctld *ctx, struct job *j,
                                 const struct when_pass *p,
                                 const char **reason);
/* j started during the pass: one more running task of its array. */
void when_started (struct when_pass *p, const struct job *j);
/* Every second: a pass is due when a pending job's begin time passed. */
void when_tick (struct ctld *ctx, time_t now);

#endif
