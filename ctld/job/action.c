/* action.c - hold, release, requeue, suspend and resume; see action.h.
 *
 * A hold keeps a pending job from starting (reason JobHeldUser, or
 * JobHeldAdmin when an administrator held someone else's job: only an
 * administrator may release that). Release lets it go. Requeue sends a
 * batch job back to pending with the same id: a running one first ends
 * through the termination sequence (term.c requeues it once its nodes
 * are done), an ended one at once. Suspend (administrators only, as in
 * Slurm) sends SIGSTOP to every step of a running job through the nodes'
 * containers and stops its time limit counting; resume sends SIGCONT.
 * The job stays RUNNING with its 'suspended' flag, so its nodes stay
 * allocated. Every job named is tried; the answer lists those that could
 * not be changed.
 *
 * This file parses, authorises and checks; each change is a transition
 * posted to jobstate.c (JS_HOLD, JS_RELEASE, JS_REQUEUE, JS_SUSPEND,
 * JS_RESUME), which records, commits and acts on it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/action.h"
#include "ctld.h"
#include "job/job.h"
#include "job/jobstate.h"
#include "log.h"
#include "states.h"

enum act {
    ACT_HOLD,
    ACT_UHOLD,
    ACT_RELEASE,
    ACT_REQUEUE,
    ACT_SUSPEND,
    ACT_RESUME
};

static bool is_priv (const struct ctld *ctx, uid_t uid)
{
    return uid == 0 || uid == ctx->priv_uid;
}

/* Who did it, for the job's history. */
static struct jobstate_arg act_by (uid_t uid)
{
    return (struct jobstate_arg){ .has_who = true, .who = uid };
}

/* Suspend or resume running job j (the caller checked the sender is
 * privileged). 0, or an errno with 'why' filled. */
static int act_suspend (struct ctld *ctx, struct job *j, bool suspend,
                        uid_t uid, char *why, size_t len)
{
    struct jobstate_arg a = act_by (uid);

    if (j->state == JOB_PENDING)
        return snprintf (why, len, "Job is pending execution"), EINVAL;
    if (j->state != JOB_RUNNING || j->completing)
        return snprintf (why, len, "Job is no longer running"), EINVAL;
    if (j->suspended == suspend)
        return snprintf (why, len, "Job is %s suspended",
                         suspend ? "already" : "not"),
               EINVAL;
    (void)jobstate_post (ctx, j, suspend ? JS_SUSPEND : JS_RESUME, &a);
    return 0;
}

static int act_one (struct ctld *ctx, struct job *j, enum act a, uid_t uid,
                    char *why, size_t len)
{
    struct jobstate_arg by = act_by (uid);

    if (!job_access (ctx, j, uid)
        || ((a == ACT_SUSPEND || a == ACT_RESUME) && !is_priv (ctx, uid)))
        return snprintf (why, len, "Access/permission denied"), EPERM;
    switch (a) {
    case ACT_SUSPEND:
    case ACT_RESUME:
        return act_suspend (ctx, j, a == ACT_SUSPEND, uid, why, len);
    case ACT_HOLD:
    case ACT_UHOLD:
        if (j->state != JOB_PENDING)
            return snprintf (why, len, "Job is no longer pending"), EINVAL;
        /* JobHeldAdmin: only an administrator may release it */
        by.admin = a == ACT_HOLD && is_priv (ctx, uid) && uid != j->uid;
        (void)jobstate_post (ctx, j, JS_HOLD, &by);
        return 0;
    case ACT_RELEASE:
        if (j->held_admin && !is_priv (ctx, uid))
            return snprintf (why, len, "held by an administrator"), EPERM;
        (void)jobstate_post (ctx, j, JS_RELEASE, &by);
        return 0;
    case ACT_REQUEUE:
        if (!j->batch)
            return snprintf (why, len, "only batch jobs can be requeued"),
                   EINVAL;
        if (j->state == JOB_PENDING)
            return snprintf (why, len, "Job is pending"), EINVAL;
        (void)jobstate_post (ctx, j, JS_REQUEUE, &by);
        return 0;
    }
    return EINVAL;
}

static int act_parse (const char *s, enum act *a)
{
    static const char *const names[] = { "hold",    "uhold",   "release",
                                         "requeue", "suspend", "resume" };

    for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++)
        if (s && !strcmp (s, names[i])) {
            *a = (enum act)i;
            return 0;
        }
    return -1;
}

/* Act on job 'id' (alone, or with every task of the array it names);
 * failures noted in err, the first errno in *first. */
static void act_id (struct ctld *ctx, enum act a, const char *action,
                    uint32_t id, bool alone, uid_t uid, arbor_error_t *err,
                    int *first)
{
    bool found = false;
    char why[96];

    for (struct job *j = ctx->jobs; j; j = j->next) {
        int e;
        if (j->id != id && (alone || j->array_job_id != id))
            continue;
        found = true;
        if ((e = act_one (ctx, j, a, uid, why, sizeof (why))) != 0) {
            errappend (err, "job %u: %s", j->id, why);
            *first = *first ? *first : e;
        } else
            log_info ("job %u: %s by uid %u", j->id, action, (unsigned)uid);
    }
    if (!found) {
        errappend (err, "job %u: %s", id, "Invalid job id");
        *first = *first ? *first : ENOENT;
    }
}

int job_action (struct ctld *ctx, const struct msg_job_action *m, uid_t uid,
                arbor_error_t *err)
{
    int first = 0;
    enum act a;

    err->text[0] = '\0';
    if (job_ids_check (m->job_ids_count + (uint64_t)m->task_ids_count, err) < 0)
        return -1;
    if (act_parse (m->action, &a) < 0) {
        errno = EINVAL;
        return errprintf (err,
                          "unknown action '%s' (hold, uhold, release, "
                          "requeue, suspend, resume)",
                          m->action ? m->action : "");
    }
    for (uint32_t i = 0; i < m->job_ids_count; i++)
        act_id (ctx, a, m->action, m->job_ids[i], false, uid, err, &first);
    for (uint32_t i = 0; i < m->task_ids_count; i++)
        act_id (ctx, a, m->action, m->task_ids[i], true, uid, err, &first);
    errno = first;
    return first ? -1 : 0;
}
