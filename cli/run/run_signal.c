/* run_signal.c - what Ctrl-C and friends do to a running step.
 *
 * As srun: a first SIGINT prints the task status summary; a second within
 * one second aborts the step (SIGKILL to every task); under
 * --quit-on-interrupt the first one does ("forcing job termination"). SIGTERM,
 * SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are forwarded to the tasks with
 * STEP_SIGNAL. An aborted or failed step gives the stepds ABORT_WAIT_S to
 * close their connections before we stop waiting for them.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>

#include "log.h"
#include "run_signal.h"
#include "run_io.h"

#define SIGINT_WINDOW_S 1.0
#define ABORT_WAIT_S 10.0

static const int run_signals[] = {
    SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
};
#define RUN_NSIGNALS (sizeof (run_signals) / sizeof (run_signals[0]))

static void run_summary_line (const char *text, void *arg)
{
    const struct run_ctx *ctx = arg;

    log_info ("step %u.%u: %s", ctx->job_id, ctx->step.step_id, text);
}

static void run_abort_timeout_cb (struct ev_loop *loop, ev_timer *w,
                                  int revents)
{
    struct run_ctx *ctx = w->data;

    log_err ("step %u.%u: stepds did not finish, giving up on them",
             ctx->job_id, ctx->step.step_id);
    ev_break (loop, EVBREAK_ALL);
}

void run_abort (struct run_ctx *ctx)
{
    if (ctx->aborting)
        return;
    ctx->aborting = true;
    run_signal_stepds (ctx, SIGKILL);
    ev_io_stop (ctx->loop, &ctx->stdin_w);
    ev_timer_stop (ctx->loop, &ctx->stdin_retry);
    run_timer_start (ctx, &ctx->abort_timer, run_abort_timeout_cb,
                     ABORT_WAIT_S);
}

static void run_sigint (struct run_ctx *ctx)
{
    ev_tstamp now = ev_now (ctx->loop);

    if (ctx->opt.quit_on_interrupt) {
        log_info ("forcing job termination");
        run_abort (ctx);
        run_check_done (ctx);
        return;
    }
    if (ctx->last_sigint > 0 && now - ctx->last_sigint < SIGINT_WINDOW_S) {
        log_info ("aborting step %u.%u", ctx->job_id, ctx->step.step_id);
        run_abort (ctx);
        run_check_done (ctx);
        return;
    }
    ctx->last_sigint = now;
    log_info ("interrupt (one more within 1 sec to abort)");
    tasks_summary (&ctx->tasks, run_summary_line, ctx);
}

static void run_signal_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    struct run_ctx *ctx = w->data;

    if (w->signum == SIGINT) {
        run_sigint (ctx);
        return;
    }
    run_verbose (ctx, "forwarding signal %d (%s) to step %u.%u", w->signum,
                 strsignal (w->signum), ctx->job_id, ctx->step.step_id);
    run_signal_stepds (ctx, w->signum);
}

void run_signals_start (struct run_ctx *ctx)
{
    for (size_t i = 0; i < RUN_NSIGNALS; i++) {
        ev_signal_init (&ctx->sig_w[i], run_signal_cb, run_signals[i]);
        ctx->sig_w[i].data = ctx;
        ev_signal_start (ctx->loop, &ctx->sig_w[i]);
    }
}

void run_signals_stop (struct run_ctx *ctx)
{
    if (!ctx->loop)
        return;
    for (size_t i = 0; i < RUN_NSIGNALS; i++)
        ev_signal_stop (ctx->loop, &ctx->sig_w[i]);
    ev_timer_stop (ctx->loop, &ctx->abort_timer);
    ev_timer_stop (ctx->loop, &ctx->launch_timer);
}
