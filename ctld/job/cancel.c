/* cancel.c - JOB_CANCEL (scancel): cancel or signal a job or a step.
 *
 * The sender must own the job or be root/ArborUser. With signal 0:
 *   - the whole job (STEP_ID_ALL): a pending job is CANCELLED at once (its
 *     waiting allocating connection gets an RC error "Job 5 cancelled");
 *     a running one goes through the termination sequence (term.c);
 *   - one step: STEP_TERMINATE(reason CANCELLED) to the step's nodes that
 *     still run it; the step then ends through its stepds' STEP_COMPLETE
 *     and the job goes on.
 * With a signal: STEP_KILL(signal, no revoke) to the nodes of the step,
 * or for the whole job, as scancel does: to each of its steps but the
 * batch shell and the extern step (a batch script that does not catch
 * USR1 must not die of a signal meant for its steps), to every process of
 * the job with 'full' (scancel -f) or for SIGKILL, to the batch shell
 * alone with batch_only (scancel -b: its own process, not its children,
 * SIGNAL_LEADER_ONLY; SIGKILL to the batch step when no signal is given);
 * nothing ends by itself. A pending job takes only SIGKILL (as a cancel);
 * other signals are refused ("Job 5 is pending execution"), as slurmctld
 * does.
 *
 * An array's id (the id of its first task, struct job's array_job_id)
 * names every task of the array when the whole job is meant (STEP_ID_ALL):
 * each task the sender may act on and that is still active is handled as
 * above, as if named alone (pending ones are cancelled at once, running
 * ones go through the termination sequence). With a step id it names the
 * first task only, as any job id. One task alone is named by its own job
 * id, which the commands find from "ID_TASK" with JOB_INFO.
 *
 * Errors follow scancel's wording: "Invalid job id 5", "Access/permission
 * denied for job 5", "Job 5 has already finished".
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/cancel.h"
#include "ctld.h"
#include "error.h"
#include "job/events.h"
#include "job/job.h"
#include "job/jobstate.h"
#include "nodes/heard.h"
#include "log.h"
#include "nodes/nodecomm.h"
#include "proto.h"
#include "states.h"
#include "job/step.h"
#include "job/term.h"
#include "job/jobs.h"

#define CANCEL_MAX_SIGNAL 64

/* STEP_KILL or STEP_TERMINATE to every node still running step s. */
static void step_send (struct ctld *ctx, const struct job *j,
                       const struct step *s, int sig)
{
    struct msg_step_terminate t = {
        .job_id = j->id,
        .step_id = s->id,
        .restarts = j->restarts,
        .reason = "CANCELLED",
    };

    for (size_t i = 0; i < s->nnodes; i++) {
        size_t node = j->nodes[s->jnodes[i]].node;
        if (s->done[i])
            continue;
        if (sig == 0)
            nodecomm_send (ctx, node, MSG_STEP_TERMINATE, &t, heard_nodecomm_cb,
                           NULL);
        else
            nodecomm_step_kill (ctx, node, j->id, s->id, sig, false,
                                heard_nodecomm_cb, NULL);
    }
}

static struct step *cancel_find_step (const struct job *j, uint32_t step,
                                      arbor_error_t *err)
{
    struct step *s = step_find (j, step);

    if (!s) {
        errno = ENOENT;
        errprintf (err, "Invalid job step id %u.%u", j->id, step);
    }
    return s;
}

static int cancel_batch (struct ctld *ctx, struct job *j, int sig,
                         arbor_error_t *err)
{
    struct step *s = step_find (j, STEP_ID_BATCH);

    if (!s) {
        errno = EINVAL;
        return errprintf (err, "Job %u has no batch step", j->id);
    }
    /* scancel -b: the shell alone, not the commands it runs (SIGKILL,
     * the default, ends the whole batch step) */
    step_send (ctx, j, s,
               sig && sig != SIGKILL ? sig | SIGNAL_LEADER_ONLY : SIGKILL);
    return 0;
}

/* "cancelled by arbortest (uid 1001)" in j's history. */
static void cancel_event (struct ctld *ctx, struct job *j, uid_t uid,
                          const char *what)
{
    char *who = event_who (uid);

    job_event (ctx, j, "%s by %s", what, who ? who : "?");
    free (who);
}

/* The whole job: "cancelled by ..." and its end (jobstate.c). */
static void cancel_whole (struct ctld *ctx, struct job *j, uid_t uid)
{
    struct jobstate_arg a = { .has_who = true, .who = uid };

    (void)jobstate_post (ctx, j, JS_CANCEL, &a);
}

static int cancel_pending (struct ctld *ctx, struct job *j, int sig, uid_t uid,
                           arbor_error_t *err)
{
    if (sig != 0 && sig != SIGKILL) {
        errno = EINVAL;
        return errprintf (err, "Job %u is pending execution", j->id);
    }
    cancel_whole (ctx, j, uid);
    return 0;
}

static int cancel_running (struct ctld *ctx, struct job *j,
                           const struct msg_job_cancel *m, uid_t uid,
                           arbor_error_t *err)
{
    struct step *s = NULL;

    if (m->step_id != STEP_ID_ALL
        && !(s = cancel_find_step (j, m->step_id, err)))
        return -1;
    if (m->signal == 0 && !s) {
        log_info ("job %u cancelled by uid %lu", j->id, (unsigned long)uid);
        cancel_whole (ctx, j, uid);
        return 0;
    }
    if (s) {
        char what[64];
        if (m->signal == 0)
            log_info ("step %u.%u cancelled by uid %lu", j->id, s->id,
                      (unsigned long)uid);
        if (m->signal == 0)
            snprintf (what, sizeof (what), "step %u cancelled", s->id);
        else
            snprintf (what, sizeof (what), "step %u sent signal %d", s->id,
                      m->signal);
        cancel_event (ctx, j, uid, what);
        step_send (ctx, j, s, m->signal);
        return 0;
    }
    log_verbose ("job %u: signal %d from uid %lu%s", j->id, m->signal,
                 (unsigned long)uid, m->full ? " (all processes)" : "");
    {
        char what[48];
        snprintf (what, sizeof (what), "sent signal %d%s", m->signal,
                  m->full ? " (all processes)" : "");
        cancel_event (ctx, j, uid, what);
    }
    cancel_signal_job (ctx, j, m->signal, m->full ? CANCEL_ALL : CANCEL_STEPS);
    return 0;
}

void cancel_signal_job (struct ctld *ctx, const struct job *j, int sig,
                        enum cancel_whom whom)
{
    if (whom == CANCEL_ALL || (whom == CANCEL_STEPS && sig == SIGKILL)) {
        for (size_t k = 0; k < j->nnodes; k++)
            nodecomm_step_kill (ctx, j->nodes[k].node, j->id, STEP_ID_ALL, sig,
                                false, heard_nodecomm_cb, NULL);
        return;
    }
    for (const struct step *s = j->steps; s; s = s->next) {
        bool batch = s->id == STEP_ID_BATCH;
        if (s->ended || s->id == STEP_ID_EXTERN
            || batch != (whom == CANCEL_BATCH))
            continue;
        step_send (ctx, j, s, batch ? sig | SIGNAL_LEADER_ONLY : sig);
    }
}

/* Job j, found: today's checks, then pending or running. */
static int cancel_job (struct ctld *ctx, struct job *j,
                       const struct msg_job_cancel *m, uid_t uid,
                       arbor_error_t *err)
{
    if (!job_access (ctx, j, uid)) {
        errno = EPERM;
        return errprintf (err, "Access/permission denied for job %u", j->id);
    }
    errno = EINVAL;
    if (j->completing)
        return errprintf (err, "Job %u is already completing", j->id);
    if (!job_is_active (j))
        return errprintf (err, "Job %u has already finished", j->id);
    if (m->signal < 0 || m->signal > CANCEL_MAX_SIGNAL)
        return errprintf (err, "Invalid signal %d", m->signal);
    if (m->batch_only)
        return cancel_batch (ctx, j, m->signal, err);
    if (j->state == JOB_PENDING) {
        if (m->step_id != STEP_ID_ALL) {
            errno = ENOENT; /* a pending job has no steps */
            return errprintf (err, "Invalid job step id %u.%u", j->id,
                              m->step_id);
        }
        return cancel_pending (ctx, j, m->signal, uid, err);
    }
    return cancel_running (ctx, j, m, uid, err);
}

/* Is 'id' the id of an array (some job's array_job_id)? */
static bool cancel_is_array (const struct ctld *ctx, uint32_t id)
{
    for (const struct job *j = ctx->jobs; id && j; j = j->next)
        if (j->array_job_id == id)
            return true;
    return false;
}

/* What cancel_array met among the tasks of an array. */
struct cancel_tally {
    int seen;        /* tasks the sender may act on */
    int acted;       /* ... and acted on */
    int first;       /* errno of the first task that failed, 0 none */
    bool completing; /* a task passed over was completing */
    bool pending;    /* a pending task was passed over (signal) */
};

/* A pending task takes no signal but SIGKILL and has no batch step: the
 * array's pending tasks are passed over then, not errors. */
static bool cancel_array_skips (const struct job *j,
                                const struct msg_job_cancel *m)
{
    return j->state == JOB_PENDING
           && (m->batch_only || (m->signal != 0 && m->signal != SIGKILL));
}

/* The answer when no task was acted on and none failed. */
static int cancel_array_none (uint32_t id, const struct cancel_tally *t,
                              arbor_error_t *err)
{
    errno = t->seen ? EINVAL : EPERM;
    if (!t->seen)
        return errprintf (err, "Access/permission denied for job %u", id);
    if (t->pending)
        return errprintf (err, "Job %u is pending execution", id);
    if (t->completing)
        return errprintf (err, "Job %u is already completing", id);
    return errprintf (err, "Job %u has already finished", id);
}

/* Every task of array m->job_id that uid may act on and that is still
 * active, each as a single job (cancel_job). 0 when at least one task
 * was acted on (other tasks' errors are then only logged), else -1 with
 * the first task's error, or cancel_array_none's. */
static int cancel_array (struct ctld *ctx, const struct msg_job_cancel *m,
                         uid_t uid, arbor_error_t *err)
{
    struct cancel_tally t = { 0 };
    arbor_error_t e;

    if (m->signal < 0 || m->signal > CANCEL_MAX_SIGNAL) {
        errno = EINVAL;
        return errprintf (err, "Invalid signal %d", m->signal);
    }
    for (struct job *j = ctx->jobs; j; j = j->next) {
        if (j->array_job_id != m->job_id || !job_access (ctx, j, uid))
            continue;
        t.seen++;
        t.completing |= j->completing;
        if (j->completing || !job_is_active (j))
            continue;
        if (cancel_array_skips (j, m)) {
            t.pending = true;
            continue;
        }
        if (cancel_job (ctx, j, m, uid, &e) == 0)
            t.acted++;
        else if (t.first)
            log_verbose ("array %u: %s", m->job_id, e.text);
        else {
            t.first = errno;
            *err = e;
        }
    }
    if (t.acted) {
        log_info ("array %u: %d task(s) %s by uid %lu%s%s", m->job_id, t.acted,
                  m->signal ? "signalled" : "cancelled", (unsigned long)uid,
                  t.first ? "; " : "", t.first ? err->text : "");
        return 0;
    }
    if (t.first) {
        errno = t.first;
        return -1;
    }
    return cancel_array_none (m->job_id, &t, err);
}

int job_cancel (struct ctld *ctx, const struct msg_job_cancel *m, uid_t uid,
                arbor_error_t *err)
{
    struct job *j;

    if (m->step_id == STEP_ID_ALL && !m->task_only
        && cancel_is_array (ctx, m->job_id))
        return cancel_array (ctx, m, uid, err);
    if (!(j = job_find (ctx, m->job_id))) {
        errno = ENOENT;
        return errprintf (err, "Invalid job id %u", m->job_id);
    }
    return cancel_job (ctx, j, m, uid, err);
}
