/* jobstart.c - what the scheduler decides, carried out: a job starts
 * (allocated, recorded, then its extern step, Prologs and script or
 * requester), becomes eligible, or ends because its dependency can
 * never be satisfied; see jobstart.h.
 *
 * The scheduler calls these through the hooks jobstart_init gives it
 * (sched.h), so that sched/ never calls into job/; jobstart_init also
 * gives the state machine its reactions (jobstate.h: the batch launch,
 * the termination sequence), which post events to it in turn.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "ctld.h"
#include "job/batch.h"
#include "job/extern.h"
#include "job/job.h"
#include "job/jobstart.h"
#include "job/jobstate.h"
#include "job/prolog.h"
#include "job/term.h"
#include "log.h"
#include "notify/mail.h"
#include "sched/sched.h"
#include "sched/select.h"
#include "state/persist.h"
#include "job/jobs.h"

/* A start waiting for its record to be committed. */
struct jobstart_wait {
    struct ctld *ctx;
    uint32_t job_id;
    time_t start_time; /* the start it waits for (not a later run's) */
};

static void jobstart_recorded_cb (int errnum, const char *err, void *arg);

/* Out of memory for the wait itself: the job goes back to pending,
 * nothing having been sent to its nodes. */
static void jobstart_wait (struct ctld *ctx, struct jobstart_wait *st)
{
    struct job *j;

    if (persist_then (ctx, jobstart_recorded_cb, st) == 0)
        return;
    log_err ("job %u: cannot wait for its start to be recorded: out of "
             "memory",
             st->job_id);
    if ((j = job_find (ctx, st->job_id)))
        (void)jobstate_post (ctx, j, JS_RERUN, NULL);
    free (st);
}

/* A start that could not be recorded: its requester (arbor run, alloc)
 * is told and the job ends, nothing having run; a batch job keeps its
 * allocation and waits, its record being tried again until it is
 * written (store.c), then it starts. */
static void jobstart_unrecorded (struct ctld *ctx, struct job *j,
                                 struct jobstart_wait *st, const char *err)
{
    if (j->owner) {
        conn_send_rc (j->owner, j->owner_tag, EIO,
                      "cannot record the change: %s; job %u was not started",
                      err, j->id);
        j->owner = NULL;
        job_end (ctx, j, JOB_CANCELLED, "StateSaveFailed");
        free (st);
        return;
    }
    jobstart_wait (ctx, st);
}

/* The job's start is on disk (or not): only now may its nodes hear of
 * it, so that a restarted controller never starts again a job that ran. */
static void jobstart_recorded_cb (int errnum, const char *err, void *arg)
{
    struct jobstart_wait *st = arg;
    struct ctld *ctx = st->ctx;
    struct job *j = job_find (ctx, st->job_id);

    if (!j || j->state != JOB_RUNNING || j->granted || j->completing
        || j->start_time != st->start_time) {
        free (st); /* it ended (cancelled, say) while it waited */
        return;
    }
    if (errnum) {
        jobstart_unrecorded (ctx, j, st, err);
        return;
    }
    free (st);
    if (!extern_start (ctx, j) && !prolog_alloc_start (ctx, j))
        (void)jobstate_post (ctx, j, JS_PROLOG_DONE, NULL);
}

/* The scheduler's start (sched_hooks): allocate, then wait for the
 * record before anything runs. 1 started, 0 not (logged). */
static int jobstart_start (struct ctld *ctx, struct job *j,
                           const struct select_result *res)
{
    struct jobstate_arg a = { .res = res };
    struct jobstart_wait *st;

    if (!(st = calloc (1, sizeof (*st)))
        || jobstate_post (ctx, j, JS_ALLOCATE, &a) < 0) {
        log_err ("job %u: cannot start: %s", j->id,
                 strerror (errno ? errno : ENOMEM));
        free (st);
        return 0;
    }
    st->ctx = ctx;
    st->job_id = j->id;
    st->start_time = j->start_time;
    jobstart_wait (ctx, st);
    return 1;
}

/* A pending job may start from now on (first time this run). */
static void jobstart_eligible (struct ctld *ctx, struct job *j, time_t now)
{
    (void)jobstate_post (ctx, j, JS_ELIGIBLE,
                         &(struct jobstate_arg){ .now = now });
}

/* Its dependency can never be satisfied: its owner hears (--mail-type),
 * and it ends unless it asked to stay (--kill-on-invalid-dep=no). */
static void jobstart_never (struct ctld *ctx, struct job *j, const char *why)
{
    mail_job_invalid_depend (ctx, j);
    if (!j->keep_invalid_dep)
        job_end (ctx, j, JOB_CANCELLED, why);
    else
        (void)job_set_reason (j, why);
}

void jobstart_init (struct ctld *ctx)
{
    static const struct sched_hooks hooks = {
        .start = jobstart_start,
        .eligible = jobstart_eligible,
        .never = jobstart_never,
    };

    static const struct jobstate_hooks js_hooks = {
        .script_start = batch_start,
        .nodes_terminate = term_begin,
        .requeue_check = term_requeue_check,
    };

    sched_hooks_set (ctx, &hooks);
    jobstate_hooks_set (ctx, &js_hooks);
}
