/* run_term.c - what ends a step early, seen from the launcher.
 *
 * Three things, each as srun does them:
 *   - task exits are reported one line each ("node1: task 3: Exited with
 *     exit code 2", "... : Killed", "... : Out Of Memory"), and an OOM
 *     summary is printed at the end;
 *   - --kill-on-bad-exit (-K, or KillOnBadExit=1): the first task that
 *     exits non-zero or is killed makes us ask the controller to cancel
 *     the step (JOB_CANCEL job.step), which terminates it on every node
 *     (SIGTERM, KillWait, SIGKILL); if the controller cannot be asked, the
 *     stepds get SIGKILL directly. An MPI step (--mpi other than none)
 *     whose stepd connection is lost with its tasks (the node died) is
 *     cancelled the same way: its other ranks would wait for the lost
 *     ones in their next collective forever;
 *   - a stepd's STEP_ABORT (MPI_Abort, or a rank that broke the MPI job:
 *     the stepds end the step themselves) is printed once and its code
 *     becomes our exit status;
 *   - the controller's notices on our allocating connection ("Job 5
 *     cancelled", "Job 5 time limit reached"): client.c prints them; we
 *     then say we wait for the step's end, at most KillWait + TERM_SLACK_S,
 *     and abort it after that.
 * A lost controller connection ends nothing: the step's I/O goes straight
 * to the stepds. The controller restarted (its state is durable): we
 * reconnect every RECONNECT_EVERY_S seconds and, when the allocation is
 * ours, attach to it again (JOB_ATTACH), before the controller's grace
 * for requesters ends (PERSIST_REATTACH_GRACE, 60 s).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "run_term.h"
#include "run_io.h"
#include "run_signal.h"

#define TERM_SLACK_S 30.0
#define RECONNECT_EVERY_S 1.0
#define RECONNECT_TRY_MS 500

static void run_ctld_cb (struct ev_loop *loop, ev_io *w, int revents);

static void run_reconnect_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct run_ctx *ctx = w->data;
    arbor_error_t err;

    /* On the loop, which forwards the tasks' I/O meanwhile: a short try
     * (a controller host that is down would hold a connect for long). */
    if (client_reconnect (&ctx->cl, ctx->allocated ? ctx->job_id : 0,
                          RECONNECT_TRY_MS, &err)
        < 0) {
        if (client_conn_lost (errno)) {
            run_timer_start (ctx, w, run_reconnect_cb, RECONNECT_EVERY_S);
            return;
        }
        /* it answered: the allocation is not ours to keep any more */
        log_err ("controller: %s", err.text);
        return;
    }
    run_verbose (ctx, "controller connection back");
    run_term_start (ctx);
}

static void run_term_timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct run_ctx *ctx = w->data;

    log_err ("step %u.%u did not end in time: killing it", ctx->job_id,
             ctx->step.step_id);
    run_abort (ctx);
    run_check_done (ctx);
}

/* The step is being terminated by the controller: wait for it, bounded. */
static void run_term_wait (struct run_ctx *ctx)
{
    double wait = ctx->cl.conf->kill_wait + TERM_SLACK_S;

    if (ctx->terminating)
        return;
    ctx->terminating = true;
    ev_io_stop (ctx->loop, &ctx->stdin_w);
    run_timer_start (ctx, &ctx->term_timer, run_term_timeout_cb, wait);
}

static void run_ctld_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct run_ctx *ctx = w->data;
    struct pollfd pf = { .fd = ctx->cl.ch.fd, .events = POLLIN };
    arbor_error_t err;

    /* A blocking call on the loop may have read it already. */
    if (poll (&pf, 1, 0) <= 0)
        return;
    if (client_read_notice (&ctx->cl, &err) < 0) {
        run_verbose (ctx, "controller connection: %s: reconnecting", err.text);
        ev_io_stop (loop, w);
        run_timer_start (ctx, &ctx->reconnect_timer, run_reconnect_cb,
                         RECONNECT_EVERY_S);
        return;
    }
    if (ctx->cl.notice_errnum && !ctx->terminating && !ctx->aborting
        && !tasks_all_ended (&ctx->tasks)) {
        log_info ("Job step aborted: Waiting up to %.0f seconds for job "
                  "step to finish.",
                  ctx->cl.conf->kill_wait + TERM_SLACK_S);
        run_term_wait (ctx);
        /* Ended for a failure (NODE_FAIL above all): a stepd whose node
         * daemon is gone hears of it from nobody but us, so it starts
         * terminating now, as the others do, instead of when our wait
         * runs out. The stepds that do hear it get it twice: harmless. */
        if (ctx->cl.notice_errnum == EIO) {
            run_signal_stepds (ctx, SIGCONT);
            run_signal_stepds (ctx, SIGTERM);
        }
    }
}

void run_term_start (struct run_ctx *ctx)
{
    if (ctx->cl.ch.fd < 0)
        return;
    ev_io_init (&ctx->ctld_w, run_ctld_cb, ctx->cl.ch.fd, EV_READ);
    ctx->ctld_w.data = ctx;
    ev_io_start (ctx->loop, &ctx->ctld_w);
}

void run_term_stop (struct run_ctx *ctx)
{
    if (!ctx->loop)
        return;
    ev_io_stop (ctx->loop, &ctx->ctld_w);
    ev_timer_stop (ctx->loop, &ctx->term_timer);
    ev_timer_stop (ctx->loop, &ctx->reconnect_timer);
}

int run_reconnect_wait (struct run_ctx *ctx, arbor_error_t *err)
{
    for (int i = 0; i < RUN_RECONNECT_S; i++) {
        if (client_reconnect (&ctx->cl, ctx->allocated ? ctx->job_id : 0,
                              CLIENT_TIMEOUT_MS, err)
            == 0)
            return 0;
        if (!client_conn_lost (errno))
            return -1;
        sleep (1);
    }
    return -1;
}

/* Cancel the step through the controller (--kill-on-bad-exit, a lost
 * node of an MPI step); SIGKILL to the stepds if it cannot be asked. */
static void run_term_cancel (struct run_ctx *ctx)
{
    struct msg_job_cancel m = {
        .job_id = ctx->job_id,
        .step_id = ctx->step.step_id,
        .signal = 0,
    };
    struct msg_rc ans;
    arbor_error_t err;

    run_term_wait (ctx);
    if (client_call (&ctx->cl, MSG_JOB_CANCEL, &m, MSG_RC, &ans,
                     CLIENT_TIMEOUT_MS, &err)
        == 0)
        return;
    if (ctx->cl.notice_errnum) /* the job ended meanwhile anyway */
        return;
    log_err ("cannot cancel step %u.%u: %s: killing its tasks", ctx->job_id,
             ctx->step.step_id, err.text);
    run_signal_stepds (ctx, SIGKILL);
}

static void run_kill_bad_exit (struct run_ctx *ctx, uint32_t task, int code,
                               int sig)
{
    if (sig)
        log_err ("task %u killed by signal %d: terminating the step "
                 "(--kill-on-bad-exit)",
                 task, sig);
    else
        log_err ("task %u exited with code %d: terminating the step "
                 "(--kill-on-bad-exit)",
                 task, code);
    run_term_cancel (ctx);
}

void run_term_lost (struct run_ctx *ctx, const char *node)
{
    if (!ctx->mpi || !strcmp (ctx->mpi, "none") || ctx->terminating
        || ctx->aborting || ctx->mpi_aborted || tasks_all_ended (&ctx->tasks))
        return;
    log_err ("%s: its tasks are lost and the MPI job cannot go on without "
             "them: terminating step %u.%u",
             node, ctx->job_id, ctx->step.step_id);
    run_term_cancel (ctx);
}

void run_term_task_exit (struct run_ctx *ctx, const char *node, uint32_t task,
                         int code, int sig, bool oom)
{
    if (sig && oom) {
        log_err ("%s: task %u: Out Of Memory", node, task);
        ctx->noom++;
    } else if (sig) {
        log_err ("%s: task %u: %s", node, task, strsignal (sig));
    } else if (code) {
        log_err ("%s: task %u: Exited with exit code %d", node, task, code);
    }
    if ((code || sig) && ctx->opt.kill_bad_exit > 0 && !ctx->terminating
        && !ctx->aborting && !tasks_all_ended (&ctx->tasks))
        run_kill_bad_exit (ctx, task, code, sig);
}

void run_term_abort (struct run_ctx *ctx, const char *node,
                     const struct msg_step_abort *m)
{
    if (ctx->mpi_aborted)
        return;
    ctx->mpi_aborted = true;
    ctx->abort_code = m->code > 0 && m->code < 256 ? m->code : 1;
    log_err ("%s: step %u.%u aborted: %s", node, ctx->job_id, ctx->step.step_id,
             m->text && *m->text ? m->text : "MPI abort");
}

void run_term_summary (const struct run_ctx *ctx)
{
    if (ctx->noom == 0)
        return;
    log_err ("Detected %u oom_kill event%s in StepId=%u.%u. Some of the "
             "step tasks have been OOM Killed.",
             ctx->noom, ctx->noom == 1 ? "" : "s", ctx->job_id,
             ctx->step.step_id);
}
