/* sched_cand.c - what both scheduling passes stand on: the pending jobs
 * that may start now, in priority order (the others get their reason, or
 * end when their dependency can never be satisfied), and how one starts
 * (through the job life's hooks, sched.h). sched.c's strict pass and
 * backfill.c's pass both call these; neither calls the other for them.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>

#include "ctld.h"
#include "job/job.h"
#include "sched/prio.h"
#include "sched/sched.h"
#include "sched/sched_cand.h"
#include "sched/sched_private.h"
#include "sched/sched_range.h"
#include "sched/when.h"
#include "state/persist.h"

/* A pending job that may not start yet (held, --begin, dependency,
 * array cap): its reason, or its end when a dependency can never be
 * satisfied. It does not hold back the jobs behind it. */
void sched_not_eligible (struct ctld *ctx, struct job *j, enum when_verdict v,
                         const char *why)
{
    j->expected_start = 0; /* no plan holds for it now */
    if (v == WHEN_NEVER)
        ctx->sched->hooks.never (ctx, j, why);
    else
        (void)job_set_reason (j, why);
}

int sched_start (struct ctld *ctx, struct job *j,
                 const struct select_result *res)
{
    if (persist_writable (ctx, NULL, 0)) /* backfill's plans, too */
        return 0;
    if (!ctx->sched->hooks.start (ctx, j, res))
        return 0;
    j->expected_start = 0;
    if (j->range.max)
        sched_range_got (j, res);
    return 1;
}

static int cand_cmp (const void *pa, const void *pb, void *arg)
{
    const struct sched_cand *a = pa, *b = pb;

    return prio_order (arg, a->j, &a->prio, b->j, &b->prio);
}

struct sched_cand *sched_candidates (struct ctld *ctx,
                                     const struct when_pass *wp, size_t *n)
{
    struct sched_cand *v = calloc (ctx->njobs + 1, sizeof (*v));
    struct prio_pass pp;
    size_t k = 0;

    if (!v)
        return NULL;
    prio_pass_begin (ctx, wp->now, &pp);
    for (struct job *j = ctx->jobs; j; j = j->next) {
        const char *why = NULL;
        enum when_verdict verdict;

        if (j->state != JOB_PENDING)
            continue;
        if ((verdict = when_eligible (ctx, j, wp, &why)) != WHEN_READY) {
            sched_not_eligible (ctx, j, verdict, why);
            continue;
        }
        if (!j->eligible_time)
            ctx->sched->hooks.eligible (ctx, j, wp->now);
        v[k].j = j;
        prio_job (ctx, &pp, j, &v[k++].prio);
    }
    qsort_r (v, k, sizeof (*v), cand_cmp, ctx);
    *n = k;
    return v;
}
