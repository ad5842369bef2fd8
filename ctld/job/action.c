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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/action.h"
#include "ctld.h"
#include "job/events.h"
#include "job/job.h"
#include "nodes/liveness.h"
#include "log.h"
#include "nodes/nodecomm.h"
#include "state/persist.h"
#include "sched/sched.h"
#include "states.h"
#include "job/term.h"

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

/* One job; 0, or an errno with 'why' filled. */
static void act_event (struct ctld *ctx, struct job *j, uid_t uid,
                       const char *what)
{
    char *who = event_who (uid);

    job_event (ctx, j, "%s by %s", what, who ? who : "?");
    free (who);
}

/* SIGSTOP or SIGCONT to every step of running job j, on each node. */
static void act_signal_nodes (struct ctld *ctx, struct job *j, int sig)
{
    for (size_t k = 0; k < j->nnodes; k++)
        nodecomm_step_kill (ctx, j->nodes[k].node, j->id, STEP_ID_ALL, sig,
                            false, liveness_nodecomm_cb, NULL);
}

/* Suspend or resume running job j (the caller checked the sender is
 * privileged). 0, or an errno with 'why' filled. */
static int act_suspend (struct ctld *ctx, struct job *j, bool suspend,
                        uid_t uid, char *why, size_t len)
{
    time_t now = ctld_now (ctx);

    if (j->state == JOB_PENDING)
        return snprintf (why, len, "Job is pending execution"), EINVAL;
    if (j->state != JOB_RUNNING || j->completing)
        return snprintf (why, len, "Job is no longer running"), EINVAL;
    if (j->suspended == suspend)
        return snprintf (why, len, "Job is %s suspended",
                         suspend ? "already" : "not"),
               EINVAL;
    if (!suspend && now > j->suspend_time)
        j->suspended_secs += (uint32_t)(now - j->suspend_time);
    j->suspended = suspend;
    j->suspend_time = suspend ? now : 0;
    act_signal_nodes (ctx, j, suspend ? SIGSTOP : SIGCONT);
    act_event (ctx, j, uid, suspend ? "suspended" : "resumed");
    persist_job (ctx, j);
    return 0;
}

static int act_one (struct ctld *ctx, struct job *j, enum act a, uid_t uid,
                    char *why, size_t len)
{
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
        j->held = true;
        j->held_admin = a == ACT_HOLD && is_priv (ctx, uid) && uid != j->uid;
        (void)job_set_reason (j,
                              j->held_admin ? "JobHeldAdmin" : "JobHeldUser");
        act_event (ctx, j, uid, j->held_admin ? "held (admin)" : "held");
        return 0;
    case ACT_RELEASE:
        if (j->held_admin && !is_priv (ctx, uid))
            return snprintf (why, len, "held by an administrator"), EPERM;
        j->held = j->held_admin = false;
        act_event (ctx, j, uid, "released");
        sched_request (ctx);
        return 0;
    case ACT_REQUEUE:
        if (!j->batch)
            return snprintf (why, len, "only batch jobs can be requeued"),
                   EINVAL;
        if (j->state == JOB_PENDING)
            return snprintf (why, len, "Job is pending"), EINVAL;
        j->requeue_pending = true;
        act_event (ctx, j, uid, "requeue asked");
        if (j->state == JOB_RUNNING)
            job_end (ctx, j, JOB_CANCELLED, "Requeued");
        else
            term_requeue_check (ctx, j, time (NULL));
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
