/* sched_wake.c - asking for a scheduling pass; see sched_wake.h.
 *
 * Apart from the scheduler (sched.c) so that the modules that change what
 * is free or pending (nodes, licenses, holds, the job life, the state
 * database) depend on this one call only, never on the scheduler's pass.
 */
#include <ev.h>

#include "ctld.h"
#include "sched/sched_private.h"
#include "sched/sched_wake.h"

void sched_request (struct ctld *ctx)
{
    struct sched *s = ctx->sched;

    if (!s)
        return; /* being built or freed: nothing to schedule */
    s->pending = true;
    if (ctx->loop)
        ev_prepare_start (ctx->loop, &s->w);
}
