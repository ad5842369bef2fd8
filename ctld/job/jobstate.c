/* jobstate.c - the one place a job's state changes; see jobstate.h.
 *
 * jobstate_post runs four stages, in the order flux-core's job-manager
 * (event.c) taught: legal? (a table by the job's phase), update (the
 * record's fields), record (its history) and commit (persist_job, once),
 * then act (the reactions of the new state). Posting from a reaction is
 * allowed: a job that cannot be told it started fails at once, a job
 * whose nodes are all gone is done completing at once.
 *
 * Policy that used to sit in request handlers lives here: which exit code
 * wins (STEP_DONE, EXIT, BATCH_DONE), what a JOB_COMPLETE means for a
 * pending job, when a node failure requeues a batch job, that an OOM kill
 * makes the end OUT_OF_MEMORY.
 *
 * Dependencies: the handlers (serve/) and the scheduler's pass post here;
 * from here go the termination sequence (term.c), the batch script
 * (batch.c), accounting (acct/), mail (notify/), the waiters (wait.h),
 * the durable commit (state/) and sched_request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct.h"
#include "conn.h"
#include "ctld.h"
#include "job/events.h"
#include "job/job.h"
#include "job/job_alloc.h"
#include "job/jobstate.h"
#include "job/step.h"
#include "log.h"
#include "nodes/heard.h"
#include "nodes/nodecomm.h"
#include "notify/mail.h"
#include "proto.h"
#include "sched/sched.h"
#include "notify/wait.h"
#include "state/persist.h"
#include "sched/sched_wake.h"

/* Where a job is in its life, as a bit for the legality table. */
enum {
    PH_PENDING = 1,
    PH_RUNNING = 2,
    PH_COMPLETING = 4, /* ended, its epilogs not all done */
    PH_ENDED = 8,
    PH_ACTIVE = PH_PENDING | PH_RUNNING,
    PH_ANY = 15,
};

static const struct js_rule {
    const char *name;
    unsigned from; /* phases in which the event is legal */
} js_rules[JS_NEVENTS] = {
    [JS_SUBMIT] = { "submit", PH_PENDING },
    [JS_ELIGIBLE] = { "eligible", PH_PENDING },
    [JS_HOLD] = { "hold", PH_PENDING },
    /* releasing a job that is not held was always harmless */
    [JS_RELEASE] = { "release", PH_ANY },
    [JS_ALLOCATE] = { "allocate", PH_PENDING },
    [JS_PROLOG_DONE] = { "prolog-done", PH_RUNNING },
    /* late reports still count: an OOM kill names a completing end */
    [JS_STEP_DONE] = { "step-done", PH_ANY },
    [JS_EXIT] = { "exit", PH_ANY },
    [JS_BATCH_DONE] = { "batch-done", PH_RUNNING },
    [JS_COMPLETE] = { "complete", PH_ACTIVE },
    [JS_DONE] = { "done", PH_ACTIVE },
    [JS_FAIL] = { "fail", PH_ACTIVE },
    [JS_CANCEL] = { "cancel", PH_ACTIVE },
    [JS_TIMEOUT] = { "timeout", PH_RUNNING },
    [JS_NODE_FAIL] = { "node-fail", PH_ACTIVE },
    [JS_REQUEUE] = { "requeue", PH_RUNNING | PH_COMPLETING | PH_ENDED },
    /* RUNNING: a start that could not be waited for (sched.c) */
    [JS_RERUN] = { "rerun", PH_RUNNING | PH_ENDED },
    [JS_SUSPEND] = { "suspend", PH_RUNNING },
    [JS_RESUME] = { "resume", PH_RUNNING },
    [JS_ATTACH] = { "attach", PH_ACTIVE },
    [JS_EPILOG_DONE] = { "epilog-done", PH_COMPLETING },
    [JS_PURGE] = { "purge", PH_ENDED },
};

static unsigned js_phase (const struct job *j)
{
    if (j->state == JOB_PENDING)
        return PH_PENDING;
    if (j->state == JOB_RUNNING)
        return j->completing ? PH_COMPLETING : PH_RUNNING;
    return j->completing ? PH_COMPLETING : PH_ENDED;
}

const char *jobstate_ev_name (enum jobstate_ev ev)
{
    return (unsigned)ev < JS_NEVENTS ? js_rules[ev].name : "?";
}

bool jobstate_legal (const struct job *j, enum jobstate_ev ev)
{
    return (unsigned)ev < JS_NEVENTS && (js_rules[ev].from & js_phase (j));
}

/* The end state an ending event gives j (arg may say for REQUEUE). */
static enum job_state js_end_state (const struct job *j, enum jobstate_ev ev,
                                    const struct jobstate_arg *a)
{
    switch (ev) {
    case JS_DONE: return JOB_COMPLETED;
    case JS_CANCEL: return JOB_CANCELLED;
    case JS_TIMEOUT: return JOB_TIMEOUT;
    case JS_NODE_FAIL: return JOB_NODE_FAIL;
    case JS_COMPLETE:
        /* the requester of a job that never started gave it up */
        if (j->state == JOB_PENDING)
            return JOB_CANCELLED;
        return a->rc == 0 ? JOB_COMPLETED : JOB_FAILED;
    case JS_BATCH_DONE: return a->rc == 0 ? JOB_COMPLETED : JOB_FAILED;
    case JS_REQUEUE: return a->state ? a->state : JOB_CANCELLED;
    default: return JOB_FAILED;
    }
}

void job_note_exit (struct job *j, int rc, int signal, bool oom)
{
    if (rc > j->exit_rc) {
        j->exit_rc = rc;
        j->exit_signal = signal;
    }
    if (oom && !j->oom) {
        j->oom = true;
        /* Still completing: the end state may yet say why. */
        if (j->completing
            && (j->state == JOB_COMPLETED || j->state == JOB_FAILED))
            j->state = JOB_OUT_OF_MEMORY;
    }
}

/* ---- the end of a run --------------------------------------------------- */

/* A still-waiting allocating connection learns its job is over (arbor run
 * stops waiting for nodes; arbor alloc says the allocation was revoked). */
static void js_tell_owner (struct job *j, enum job_state state)
{
    int e = state == JOB_CANCELLED ? ECANCELED
            : state == JOB_TIMEOUT ? ETIME
                                   : EIO;

    if (state == JOB_CANCELLED)
        (void)conn_send_rc (j->owner, j->owner_tag, e, "Job %u cancelled",
                            j->id);
    else if (state == JOB_TIMEOUT)
        (void)conn_send_rc (j->owner, j->owner_tag, e,
                            "Job %u time limit reached", j->id);
    else
        (void)conn_send_rc (j->owner, j->owner_tag, e, "Job %u ended: %s",
                            j->id, job_state_str (state));
}

/* Update for every ending event: the final state (OUT_OF_MEMORY for a
 * clean or failed end after an OOM kill), its time and reason; a running
 * job goes on completing until its nodes are done (term.c). */
static void js_end_update (struct ctld *ctx, struct job *j, enum job_state st,
                           const char *reason)
{
    bool was_running = j->state == JOB_RUNNING;

    if (was_running && j->oom && (st == JOB_COMPLETED || st == JOB_FAILED))
        st = JOB_OUT_OF_MEMORY;
    if (j->owner && !j->requeue_pending) {
        js_tell_owner (j, st);
        j->owner = NULL;
    } /* a requeued job's requester waits for its next start */
    j->state = st;
    j->end_time = ctld_now (ctx);
    j->completing = was_running;
    (void)job_set_reason (j, reason);
    job_event_note (ctx, j, "ended %s%s%s, exit code %d", job_state_str (st),
                    reason ? ": " : "", reason ? reason : "", j->exit_rc);
}

/* The reactions of an end: mail, accounting, the waiters for a job that
 * never ran; the termination sequence for one that ran. */
static void js_end_act (struct ctld *ctx, struct job *j, const char *reason)
{
    log_info ("job %u %s%s%s", j->id, job_state_str (j->state),
              reason ? ": " : "", reason ? reason : "");
    sched_request (ctx); /* what waits behind it may start */
    mail_job_ended (ctx, j);
    if (!j->completing) {
        acct_job_over (ctx, j);
        wait_job_over (ctx, j);
        return;
    }
    acct_steps_over (ctx, j);
    steps_release (j);
    ctx->jobstate_hooks->nodes_terminate (ctx, j);
}

/* ---- events by kind ----------------------------------------------------- */

/* "held by arbortest (uid 1001)" in j's history. */
static void js_event_by (struct ctld *ctx, struct job *j,
                         const struct jobstate_arg *a, const char *what)
{
    char *who = a->has_who ? event_who (a->who) : NULL;

    if (a->has_who)
        job_event_note (ctx, j, "%s by %s", what, who ? who : "?");
    free (who);
}

/* Tell the job's connection it got its nodes. */
static void js_tell_allocated (struct ctld *ctx, struct job *j)
{
    struct msg_job_allocated m;

    if (!j->owner)
        return;
    if (job_allocated_msg (ctx, j, &m) < 0
        || conn_send (j->owner, MSG_JOB_ALLOCATED, j->owner_tag,
                      FRAME_F_RESPONSE, &m)
               < 0) {
        log_err ("job %u: cannot answer %s: %s", j->id, conn_peer (j->owner),
                 strerror (errno));
        proto_clear (MSG_JOB_ALLOCATED, &m);
        job_end (ctx, j, JOB_FAILED, "cannot reach the requester");
        return;
    }
    proto_clear (MSG_JOB_ALLOCATED, &m);
}

static int js_allocate (struct ctld *ctx, struct job *j,
                        const struct jobstate_arg *a)
{
    if (job_start (ctx, j, a->res) < 0)
        return -1;
    j->state = JOB_RUNNING;
    j->start_time = ctld_now (ctx);
    j->suspended = false; /* an earlier run's, if requeued */
    j->suspended_secs = 0;
    (void)job_set_reason (j, NULL);
    job_event_note (ctx, j, "allocated %s", j->nodelist);
    return 0;
}

/* SIGSTOP or SIGCONT to every step of running job j, on each node. */
static void js_signal_nodes (struct ctld *ctx, struct job *j, int sig)
{
    for (size_t k = 0; k < j->nnodes; k++)
        nodecomm_step_kill (ctx, j->nodes[k].node, j->id, STEP_ID_ALL, sig,
                            false, heard_nodecomm_cb, NULL);
}

static void js_suspend (struct ctld *ctx, struct job *j, bool suspend,
                        const struct jobstate_arg *a)
{
    time_t now = ctld_now (ctx);

    if (!suspend && j->suspended && now > j->suspend_time)
        j->suspended_secs += (uint32_t)(now - j->suspend_time);
    j->suspended = suspend;
    j->suspend_time = suspend ? now : 0;
    js_event_by (ctx, j, a, suspend ? "suspended" : "resumed");
}

/* The ended (or never granted) run is forgotten; j waits again with its
 * id. Accounting and mail see the old run before it goes. */
static void js_rerun (struct ctld *ctx, struct job *j)
{
    acct_job_requeued (ctx, j);
    mail_job_requeued (ctx, j);
    job_unrun (ctx, j);
    j->state = JOB_PENDING;
    j->completing = j->requeue_pending = false;
    j->oom = j->warned = false;
    j->exit_rc = j->exit_signal = 0;
    j->acct_written = false;
    j->start_time = j->end_time = 0;
    j->next_step_id = 0;
    j->batch_launched = j->batch_reported = j->granted = false;
    j->restarts++;
    j->eligible_time = 0;
    (void)job_set_reason (j, "Requeued");
    job_event_note (ctx, j, "requeued (run %u)", j->restarts + 1);
    log_info ("job %u requeued (%u time%s)", j->id, j->restarts,
              j->restarts == 1 ? "" : "s");
}

/* A step's report: the batch step's lets a requeue go on (term.c); which
 * exit code counts: a batch job's is its script's (BATCH_DONE), an
 * allocation's its launchers', and a node's report only says OOM. */
static void js_step_done (struct job *j, const struct jobstate_arg *a)
{
    bool from_node = a->node && a->node[0];

    if (a->step_id == STEP_ID_BATCH)
        j->batch_reported = true;
    if ((!from_node && !j->batch) || a->oom)
        job_note_exit (j, from_node ? 0 : a->rc, from_node ? 0 : a->signal,
                       a->oom);
}

/* The update and record stages of the events that do not end a run.
 * Returns -1 with errno when nothing could change (JS_ALLOCATE). */
static int js_update (struct ctld *ctx, struct job *j, enum jobstate_ev ev,
                      const struct jobstate_arg *a)
{
    switch (ev) {
    case JS_SUBMIT:
        job_event_note (ctx, j, "submitted by %s (uid %lu)", j->user,
                        (unsigned long)j->uid);
        return 0;
    case JS_ELIGIBLE:
        j->eligible_time = a->now ? a->now : ctld_now (ctx);
        job_event_note (ctx, j, "eligible");
        return 0;
    case JS_HOLD:
        j->held = true;
        j->held_admin = a->admin;
        (void)job_set_reason (j, a->admin ? "JobHeldAdmin" : "JobHeldUser");
        js_event_by (ctx, j, a, a->admin ? "held (admin)" : "held");
        return 0;
    case JS_RELEASE:
        j->held = j->held_admin = false;
        js_event_by (ctx, j, a, "released");
        return 0;
    case JS_ALLOCATE: return js_allocate (ctx, j, a);
    case JS_PROLOG_DONE:
        j->granted = true;
        (void)job_set_reason (j, NULL); /* "Prolog" until now */
        return 0;
    case JS_STEP_DONE: js_step_done (j, a); return 0;
    case JS_EXIT: job_note_exit (j, a->rc, a->signal, a->oom); return 0;
    case JS_SUSPEND:
    case JS_RESUME: js_suspend (ctx, j, ev == JS_SUSPEND, a); return 0;
    case JS_ATTACH:
        j->reattach_by = 0; /* no longer ended at that time */
        return 0;
    case JS_EPILOG_DONE:
        j->completing = false;
        job_event_note (ctx, j, "done completing");
        return 0;
    case JS_RERUN: js_rerun (ctx, j); return 0;
    default: return 0;
    }
}

/* The act stage of the events that do not end a run. */
static void js_act (struct ctld *ctx, struct job *j, enum jobstate_ev ev)
{
    switch (ev) {
    case JS_SUBMIT:
        log_verbose ("job %u submitted by %s", j->id, j->user);
        sched_request (ctx);
        break;
    case JS_RELEASE:
    case JS_RERUN: sched_request (ctx); break;
    case JS_ATTACH:
        if (j->state == JOB_PENDING) /* it may start now (when_eligible) */
            sched_request (ctx);
        break;
    case JS_ALLOCATE:
        mail_job_began (ctx, j);
        log_info ("job %u allocated %s to %s", j->id, j->nodelist, j->user);
        break;
    case JS_PROLOG_DONE:
        if (j->batch)
            ctx->jobstate_hooks->script_start (ctx, j);
        else
            js_tell_allocated (ctx, j);
        break;
    case JS_SUSPEND:
    case JS_RESUME:
        js_signal_nodes (ctx, j, ev == JS_SUSPEND ? SIGSTOP : SIGCONT);
        break;
    case JS_EPILOG_DONE:
        log_info ("job %u done completing (%s)", j->id,
                  job_state_str (j->state));
        if (j->requeue_pending)
            ctx->jobstate_hooks->requeue_check (ctx, j, ctld_now (ctx));
        else {
            acct_job_over (ctx, j);
            wait_job_over (ctx, j);
        }
        break;
    default: break;
    }
}

static bool js_ends (enum jobstate_ev ev)
{
    return ev == JS_COMPLETE || ev == JS_DONE || ev == JS_FAIL
           || ev == JS_CANCEL || ev == JS_TIMEOUT || ev == JS_NODE_FAIL
           || ev == JS_BATCH_DONE;
}

/* An end: update, record, commit, act. */
static void js_end (struct ctld *ctx, struct job *j, enum jobstate_ev ev,
                    const struct jobstate_arg *a)
{
    const char *reason = a->reason;

    if (ev == JS_BATCH_DONE) { /* a batch job's exit code is its script's */
        j->exit_rc = a->rc;
        j->exit_signal = a->signal;
    }
    if (ev == JS_CANCEL)
        js_event_by (ctx, j, a, "cancelled");
    /* a batch job asked for it (--requeue, JobRequeue=1) */
    if (ev == JS_NODE_FAIL && j->state == JOB_RUNNING)
        j->requeue_pending |= j->batch && j->requeue;
    js_end_update (ctx, j, js_end_state (j, ev, a), reason);
    persist_job (ctx, j);
    js_end_act (ctx, j, reason);
}

/* A batch job to run again: a running one ends first, an ended one goes
 * back to pending once its nodes are done (term_requeue_check). */
static void js_requeue (struct ctld *ctx, struct job *j,
                        const struct jobstate_arg *a)
{
    j->requeue_pending = true;
    js_event_by (ctx, j, a, "requeue asked");
    if (j->state == JOB_RUNNING) {
        const char *why = a->reason ? a->reason : "Requeued";
        js_end_update (ctx, j, js_end_state (j, JS_REQUEUE, a), why);
        persist_job (ctx, j);
        js_end_act (ctx, j, why);
        return;
    }
    persist_job (ctx, j);
    ctx->jobstate_hooks->requeue_check (ctx, j, ctld_now (ctx));
}

void jobstate_hooks_set (struct ctld *ctx, const struct jobstate_hooks *h)
{
    ctx->jobstate_hooks = h;
}

int jobstate_post (struct ctld *ctx, struct job *j, enum jobstate_ev ev,
                   const struct jobstate_arg *arg)
{
    static const struct jobstate_arg none = { 0 };
    const struct jobstate_arg *a = arg ? arg : &none;

    if (!jobstate_legal (j, ev)) {
        log_debug ("job %u: event %s refused while %s%s", j->id,
                   jobstate_ev_name (ev), job_state_str (j->state),
                   j->completing ? " (completing)" : "");
        errno = EINVAL;
        return -1;
    }
    if (ev == JS_PURGE) {
        persist_job_gone (ctx, j);
        return (int)j->state;
    }
    if (js_ends (ev))
        js_end (ctx, j, ev, a);
    else if (ev == JS_REQUEUE)
        js_requeue (ctx, j, a);
    else {
        if (js_update (ctx, j, ev, a) < 0)
            return -1;
        persist_job (ctx, j);
        js_act (ctx, j, ev);
    }
    return (int)j->state;
}

/* The ending event of each end state job_end is asked for; the states
 * left out (0, JS_SUBMIT) end FAILED. */
static const enum jobstate_ev js_by_state[] = {
    [JOB_COMPLETED] = JS_DONE,
    [JOB_CANCELLED] = JS_CANCEL,
    [JOB_TIMEOUT] = JS_TIMEOUT,
    [JOB_NODE_FAIL] = JS_NODE_FAIL,
};

void job_end (struct ctld *ctx, struct job *j, enum job_state state,
              const char *reason)
{
    struct jobstate_arg a = { .reason = reason };
    enum jobstate_ev ev = JS_FAIL;

    if ((size_t)state < sizeof (js_by_state) / sizeof (js_by_state[0])
        && js_by_state[state] != JS_SUBMIT)
        ev = js_by_state[state];
    (void)jobstate_post (ctx, j, ev, &a);
}

void job_requeue (struct ctld *ctx, struct job *j)
{
    (void)jobstate_post (ctx, j, JS_RERUN, NULL);
}
