/* run_base.c - the helpers every stage of cli/run/ uses (run_base.h):
 * srun -v's progress lines and the launcher's timers. They live below the
 * driver (run.c) so that the modules never call up into it.
 */
#include <stdarg.h>

#include "log.h"
#include "run_base.h"

void run_verbose (const struct run_ctx *ctx, const char *fmt, ...)
{
    va_list ap;

    if (ctx->opt.alloc.verbose <= 0)
        return;
    va_start (ap, fmt);
    log_vmsg (LOG_LVL_INFO, fmt, ap);
    va_end (ap);
}

void run_timer_start (struct run_ctx *ctx, ev_timer *w,
                      void (*cb) (struct ev_loop *, ev_timer *, int),
                      double after)
{
    /* The loop's cached time is from its last iteration, or from before
     * the allocation when the loop has not run yet: a job that queued for
     * longer than 'after' would otherwise time out at once. */
    ev_now_update (ctx->loop);
    ev_timer_init (w, cb, after, 0.);
    w->data = ctx;
    ev_timer_start (ctx->loop, w);
}
