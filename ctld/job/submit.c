/* submit.c - a job enters the queue: room under MaxJobCount, a request
 * that can ever run, an id, and its SUBMIT event; see submit.h. And it
 * leaves: jobs_purge forgets ended jobs after MinJobAge (JS_PURGE).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "conf.h"
#include "ctld.h"
#include "error.h"
#include "job/job.h"
#include "job/jobid.h"
#include "job/jobs.h"
#include "job/jobstate.h"
#include "job/submit.h"
#include "sched/sched.h"

/* Room for one more job record under MaxJobCount: finished jobs kept
 * for JOB_INFO give way first (oldest end first), active ones never. */
static int submit_room (struct ctld *ctx, size_t n, arbor_error_t *err)
{
    uint32_t max = ctx->conf->max_job_count;

    if (n > max) {
        errno = EAGAIN;
        return errprintf (err, "%zu jobs are more than MaxJobCount (%u)", n,
                          max);
    }
    while (ctx->njobs + n > max) {
        struct job **pp, **oldest = NULL;
        for (pp = &ctx->jobs; *pp; pp = &(*pp)->next)
            if (!job_is_active (*pp) && !(*pp)->completing
                && (!oldest || (*pp)->end_time < (*oldest)->end_time))
                oldest = pp;
        if (!oldest) {
            errno = EAGAIN;
            return errprintf (err,
                              "MaxJobCount reached: the controller "
                              "holds %zu jobs (at most %u); try again "
                              "later",
                              ctx->njobs, max);
        }
        struct job *j = *oldest;
        jobs_unlink (ctx, oldest);
        (void)jobstate_post (ctx, j, JS_PURGE, NULL);
        job_destroy (j);
    }
    return 0;
}

int job_submit_check (struct ctld *ctx, const struct job *j, size_t n,
                      arbor_error_t *err)
{
    if (submit_room (ctx, n, err) < 0 || sched_ever_fits (ctx, j, err) < 0)
        return -1;
    return 0;
}

int job_enqueue (struct ctld *ctx, struct job *j, arbor_error_t *err)
{
    if (jobid_next (ctx, &j->id, err) < 0)
        return -1;
    if (jobs_append (ctx, j) < 0)
        return errprintf (err, "out of memory");
    (void)jobstate_post (ctx, j, JS_SUBMIT, NULL); /* asks for a pass */
    return 0;
}

int job_submit (struct ctld *ctx, struct job *j, arbor_error_t *err)
{
    if (job_submit_check (ctx, j, 1, err) < 0 || job_enqueue (ctx, j, err) < 0)
        return -1;
    sched_flush (ctx);
    return 0;
}

void jobs_purge (struct ctld *ctx, time_t now, bool all)
{
    struct job **pp = &ctx->jobs;

    while (*pp) {
        struct job *j = *pp;
        if (all
            || (!job_is_active (j) && !j->completing
                && j->end_time + (time_t)ctx->conf->min_job_age <= now)) {
            jobs_unlink (ctx, pp);
            if (!all) /* at shutdown ('all') nothing is forgotten on disk */
                (void)jobstate_post (ctx, j, JS_PURGE, NULL);
            job_destroy (j);
        } else
            pp = &j->next;
    }
}
