/* when.c - holds, begin times, dependencies and array caps; see when.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "begintime.h"
#include "sched/cpulimits.h"
#include "ctld.h"
#include "job/job.h"
#include "log.h"
#include "sched/sched.h"
#include "states.h"
#include "timestr.h"
#include "sched/when.h"
#include "sched/sched_wake.h"

/* Does any job match dependency term d (a job, an array, a task)? */
static bool when_names (const struct job *t, const struct dep *d)
{
    if (d->task != DEP_ALL_TASKS)
        return t->array_job_id == d->job_id && t->array_task_id == d->task;
    return t->id == d->job_id
           || (t->array_job_id == d->job_id && t->array_job_id != 0);
}

static int when_check_deps (struct ctld *ctx, const struct depspec *ds,
                            const char *text, arbor_error_t *err)
{
    for (size_t i = 0; i < ds->n; i++) {
        const struct dep *d = &ds->deps[i];
        bool found = d->type == DEP_SINGLETON;
        for (const struct job *t = ctx->jobs; t && !found; t = t->next)
            found = when_names (t, d);
        if (!found) {
            errno = EINVAL;
            if (d->task != DEP_ALL_TASKS)
                return errprintf (err,
                                  "invalid --dependency '%s': job %u_%u "
                                  "not found",
                                  text, d->job_id, d->task);
            return errprintf (err,
                              "invalid --dependency '%s': job %u not "
                              "found",
                              text, d->job_id);
        }
    }
    return 0;
}

int when_init (struct ctld *ctx, struct job *j, const struct msg_job_alloc *req,
               arbor_error_t *err)
{
    const char *dep = req->dependency ? req->dependency : "";

    if (begin_check (req->begin_time, ctld_now (ctx), err) < 0)
        return -1;
    j->held = req->hold;
    j->begin_time = (time_t)req->begin_time;
    j->requeue = req->requeue;
    j->keep_invalid_dep = req->keep_invalid_dep;
    if (!(j->dependency = strdup (dep))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    if (!*dep)
        return 0;
    if (depspec_parse (dep, &j->deps, err) < 0)
        return -1;
    return when_check_deps (ctx, &j->deps, dep, err);
}

void when_clear (struct job *j)
{
    depspec_clear (&j->deps);
    free (j->dependency);
    j->dependency = NULL;
}

/* ---- dependencies ------------------------------------------------------ */

/* One job's answer to a term (not singleton). */
static enum when_verdict when_job (const struct job *t, enum dep_type type)
{
    bool ended = !job_is_active (t);

    switch (type) {
    case DEP_AFTER: return t->state != JOB_PENDING ? WHEN_READY : WHEN_WAIT;
    case DEP_AFTERANY: return ended ? WHEN_READY : WHEN_WAIT;
    case DEP_AFTEROK:
        return !ended                      ? WHEN_WAIT
               : t->state == JOB_COMPLETED ? WHEN_READY
                                           : WHEN_NEVER;
    case DEP_AFTERNOTOK:
        return !ended                      ? WHEN_WAIT
               : t->state != JOB_COMPLETED ? WHEN_READY
                                           : WHEN_NEVER;
    default: return WHEN_READY;
    }
}

/* singleton: no active job of the same user and name before j. */
static enum when_verdict when_singleton (const struct ctld *ctx,
                                         const struct job *j)
{
    for (const struct job *t = ctx->jobs; t && t != j; t = t->next)
        if (job_is_active (t) && t->uid == j->uid && !strcmp (t->name, j->name))
            return WHEN_WAIT;
    return WHEN_READY;
}

/* A term over every job it names: all must be ready. A job that is
 * gone (forgotten long after it ended) satisfies after and afterany, not
 * afterok or afternotok (its end state is unknown). */
static enum when_verdict when_term (const struct ctld *ctx, const struct job *j,
                                    const struct dep *d)
{
    enum when_verdict v = WHEN_READY;
    bool found = false;

    if (d->type == DEP_SINGLETON)
        return when_singleton (ctx, j);
    for (const struct job *t = ctx->jobs; t && v != WHEN_NEVER; t = t->next) {
        if (!when_names (t, d))
            continue;
        found = true;
        enum when_verdict tv = when_job (t, d->type);
        if (tv > v)
            v = tv;
    }
    if (!found && (d->type == DEP_AFTEROK || d->type == DEP_AFTERNOTOK))
        return WHEN_NEVER;
    return v;
}

static enum when_verdict when_deps (const struct ctld *ctx, struct job *j)
{
    const struct depspec *ds = &j->deps;
    size_t never = 0, ready = 0;

    for (size_t i = 0; i < ds->n; i++) {
        enum when_verdict v = when_term (ctx, j, &ds->deps[i]);
        never += v == WHEN_NEVER;
        ready += v == WHEN_READY;
    }
    if (ds->any)
        return ready ? WHEN_READY : never == ds->n ? WHEN_NEVER : WHEN_WAIT;
    return never ? WHEN_NEVER : ready == ds->n ? WHEN_READY : WHEN_WAIT;
}

static struct when_array *when_array_find (const struct when_pass *p,
                                           uint32_t id)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->arrays[i].array_job_id == id)
            return &p->arrays[i];
    return NULL;
}

/* ---- CPU-hour limits (cpulimits.h) -----------------------------------------
 */

/* What j asks for: its CPUs (allocated, else requested) times its time
 * limit in hours; no limit asks for everything. */
static double when_cpu_hours (const struct job *j)
{
    uint64_t cpus = 0;

    if (j->time_limit == TIME_INFINITE)
        return HUGE_VAL;
    for (size_t k = 0; k < j->nnodes; k++)
        cpus += j->nodes[k].cpus;
    if (!cpus)
        cpus = select_req_cpus (&j->req);
    return (double)cpus * j->time_limit / 60.0;
}

static int user_cmp (const void *pa, const void *pb)
{
    uid_t a = ((const struct when_user *)pa)->uid;
    uid_t b = ((const struct when_user *)pb)->uid;

    return a < b ? -1 : a > b;
}

static struct when_user *when_user_find (const struct when_pass *p, uid_t uid)
{
    struct when_user key = { .uid = uid };

    return p->nusers
               ? bsearch (&key, p->users, p->nusers, sizeof (key), user_cmp)
               : NULL;
}

/* Add j's CPU-hours to its user's, keeping the list sorted. */
static int when_user_add (struct when_pass *p, const struct job *j)
{
    struct when_user *u = when_user_find (p, j->uid), *v;
    size_t at = 0;

    if (u) {
        u->hours += when_cpu_hours (j);
        return 0;
    }
    if (!(v = realloc (p->users, (p->nusers + 1) * sizeof (*v))))
        return -1;
    p->users = v;
    while (at < p->nusers && p->users[at].uid < j->uid)
        at++;
    memmove (&p->users[at + 1], &p->users[at], (p->nusers - at) * sizeof (*v));
    p->users[at] = (struct when_user){ j->uid, when_cpu_hours (j) };
    p->nusers++;
    return 0;
}

/* Would j take its user past their limit? */
static bool when_over_limit (const struct ctld *ctx, const struct job *j,
                             const struct when_pass *p)
{
    const struct when_user *u;
    double limit;

    if (!cpulimits_for (ctx->limits, j->uid, j->gid, &limit))
        return false;
    u = when_user_find (p, j->uid);
    return (u ? u->hours : 0) + when_cpu_hours (j) > limit;
}

/* ---- the pass ------------------------------------------------------------ */

int when_pass_begin (struct ctld *ctx, struct when_pass *p)
{
    memset (p, 0, sizeof (*p));
    p->now = ctld_now (ctx);
    p->limited = ctx->limits != NULL;
    for (const struct job *j = ctx->jobs; p->limited && j; j = j->next)
        if (j->state == JOB_RUNNING && !j->completing
            && when_user_add (p, j) < 0)
            return -1;
    for (const struct job *j = ctx->jobs; j; j = j->next) {
        struct when_array *a;
        if (!j->array_throttle || j->state != JOB_RUNNING)
            continue;
        if (!(a = when_array_find (p, j->array_job_id))) {
            a = realloc (p->arrays, (p->n + 1) * sizeof (*a));
            if (!a)
                return -1;
            p->arrays = a;
            a = &p->arrays[p->n++];
            *a = (struct when_array){ j->array_job_id, 0 };
        }
        a->running++;
    }
    return 0;
}

void when_pass_end (struct when_pass *p)
{
    free (p->arrays);
    free (p->users);
    memset (p, 0, sizeof (*p));
}

void when_started (struct when_pass *p, const struct job *j)
{
    struct when_array *a;

    if (p->limited)
        (void)when_user_add (p, j); /* out of memory: counted next pass */
    if (!j->array_throttle)
        return;
    if ((a = when_array_find (p, j->array_job_id))) {
        a->running++;
        return;
    }
    if ((a = realloc (p->arrays, (p->n + 1) * sizeof (*a)))) {
        p->arrays = a;
        p->arrays[p->n++] = (struct when_array){ j->array_job_id, 1 };
    }
}

enum when_verdict when_eligible (const struct ctld *ctx, struct job *j,
                                 const struct when_pass *p, const char **reason)
{
    const struct when_array *a;

    if (j->held) {
        *reason = j->held_admin ? "JobHeldAdmin" : "JobHeldUser";
        return WHEN_WAIT;
    }
    if (j->reattach_by && !j->owner && !j->batch) {
        /* restored: its requester may come back (persist_resume) */
        *reason = "RequesterReconnecting";
        return WHEN_WAIT;
    }
    if (j->begin_time > p->now) {
        *reason = "BeginTime";
        return WHEN_WAIT;
    }
    if (j->deps.n > 0) {
        enum when_verdict v = when_deps (ctx, j);
        if (v != WHEN_READY) {
            *reason =
                v == WHEN_NEVER ? "DependencyNeverSatisfied" : "Dependency";
            return v;
        }
        depspec_clear (&j->deps); /* satisfied for good, as in Slurm */
    }
    if (j->array_throttle && (a = when_array_find (p, j->array_job_id))
        && a->running >= j->array_throttle) {
        *reason = "JobArrayTaskLimit";
        return WHEN_WAIT;
    }
    if (ctx->limits && when_over_limit (ctx, j, p)) {
        *reason = "CPUHoursLimit";
        return WHEN_WAIT;
    }
    return WHEN_READY;
}

void when_tick (struct ctld *ctx, time_t now)
{
    for (const struct job *j = ctx->jobs; j; j = j->next) {
        if (j->state == JOB_PENDING && j->begin_time && j->begin_time <= now
            && j->reason && !strcmp (j->reason, "BeginTime")) {
            sched_request (ctx);
            return;
        }
    }
}
