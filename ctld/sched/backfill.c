/* backfill.c - the backfill pass on the loop: take the snapshot the plan
 * is computed from (bf_plan.h), and apply a plan. See backfill.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched/backfill.h"
#include "sched/bf_plan.h"
#include "sched/bf_gres.h"
#include "ctld.h"
#include "job/job.h"
#include "sched/constraint.h"
#include "sched/gres_sched.h"
#include "sched/licenses.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/part.h"
#include "sched/profile.h"
#include "sched/sched_cand.h"
#include "sched/sched_private.h"
#include "timestr.h"
#include "sched/when.h"
#include "job/jobs.h"

/* ---- the snapshot
 * ------------------------------------------------------------
 */

static int snap_nodes (const struct ctld *ctx, struct bf_snap *s)
{
    if (!(s->nodes = calloc (ctx->nnodes + 1, sizeof (*s->nodes))))
        return -1;
    s->nnodes = ctx->nnodes;
    for (size_t i = 0; i < ctx->nnodes; i++) {
        const struct node *n = &ctx->nodes[i];
        struct bf_snode *v = &s->nodes[i];
        v->name = n->name;
        v->cpus = n->cpus;
        v->usable = node_usable (n);
        v->pref = loadsel_pref (&ctx->loadsel, n);
        v->tmp_mb = n->tmp_disk;
        v->free_cpus = n->cpus - n->alloc_cpus;
        v->memory = n->real_memory ? n->real_memory : BF_UNTRACKED_MEM;
        v->free_mem = !n->real_memory ? BF_UNTRACKED_MEM
                      : n->real_memory > n->alloc_memory
                          ? (uint32_t)(n->real_memory - n->alloc_memory)
                          : 0;
    }
    return 0;
}

static int snap_parts (const struct ctld *ctx, struct bf_snap *s)
{
    if (!(s->parts = calloc (ctx->nparts + 1, sizeof (*s->parts))))
        return -1;
    s->nparts = ctx->nparts;
    for (size_t i = 0; i < ctx->nparts; i++) {
        const struct part *p = &ctx->parts[i];
        if (!(s->parts[i].nodes = calloc (p->nnodes + 1, sizeof (size_t))))
            return -1;
        memcpy (s->parts[i].nodes, p->nodes, p->nnodes * sizeof (size_t));
        s->parts[i].nnodes = p->nnodes;
    }
    return 0;
}

/* When a running job's share comes back: its start plus its limit; a
 * job past it, or completing, gives it back soon, never now. */
static time_t snap_job_end (const struct bf_snap *s, const struct job *j)
{
    time_t soon = s->now + (s->bp.resolution ? s->bp.resolution : 1);
    time_t end;

    if (j->completing || j->state != JOB_RUNNING)
        return soon;
    if (j->time_limit == TIME_INFINITE)
        return PROFILE_FOREVER;
    end = j->start_time + (time_t)j->time_limit * 60;
    return end <= s->now ? soon : end;
}

static int snap_runs (const struct ctld *ctx, struct bf_snap *s)
{
    size_t n = 0, k = 0;

    for (const struct job *j = ctx->jobs; j; j = j->next)
        n += j->nnodes;
    if (!(s->runs = calloc (n + 1, sizeof (*s->runs))))
        return -1;
    for (const struct job *j = ctx->jobs; j; j = j->next)
        for (size_t i = 0; i < j->nnodes; i++) {
            const struct job_node *jn = &j->nodes[i];
            if (jn->released)
                continue;
            s->runs[k++] = (struct bf_srun){
                .node = jn->node,
                .cpus = jn->cpus,
                .mem =
                    ctx->nodes[jn->node].real_memory ? (uint32_t)jn->mem_mb : 0,
                .end = snap_job_end (s, j),
            };
            if (bf_gres_snap_run (ctx, s, jn, snap_job_end (s, j)) < 0)
                return -1;
        }
    s->nruns = k;
    for (const struct job *j = ctx->jobs; j; j = j->next)
        if (lic_snap_run (&s->lic, ctx, j, snap_job_end (s, j)) < 0)
            return -1;
    return 0;
}

/* A copy of a per partition node flag array, or NULL when none is set. */
static int snap_flags (const bool *v, size_t n, bool **out)
{
    size_t k = 0;

    while (k < n && !v[k])
        k++;
    *out = NULL;
    if (k == n)
        return 0;
    if (!(*out = malloc (n)))
        return -1;
    memcpy (*out, v, n);
    return 0;
}

/* A constrained job's flags, one set per alternative of its constraint
 * (constraint.h), worked out over the nodes as they are now. An
 * alternative whose counts cannot be met excludes every node. */
static int snap_constraint (const struct ctld *ctx, const struct job *j,
                            struct bf_sjob *v)
{
    size_t pn = ctx->parts[j->part].nnodes, na = constraint_alts (j);
    const struct part *p = &ctx->parts[j->part];
    struct select_node *views = calloc (pn ? pn : 1, sizeof (*views));

    v->nalts = na;
    v->required = malloc (na * pn + 1);
    v->excluded = malloc (na * pn + 1);
    if (!views || !v->required || !v->excluded) {
        free (views);
        return -1;
    }
    for (size_t alt = 0; alt < na; alt++) {
        for (size_t k = 0; k < pn; k++) {
            const struct node *n = &ctx->nodes[p->nodes[k]];
            views[k] = (struct select_node){
                .usable = node_usable (n),
                .free_cpus = n->cpus - n->alloc_cpus,
                .required = j->required[k],
                .excluded = j->excluded[k],
            };
        }
        bool ok = constraint_views (ctx, j, alt, SELECT_NOW, views);
        for (size_t k = 0; k < pn; k++) {
            v->required[alt * pn + k] = ok && views[k].required;
            v->excluded[alt * pn + k] = !ok || views[k].excluded;
        }
    }
    free (views);
    return 0;
}

int backfill_snap_job (const struct ctld *ctx, struct bf_snap *s,
                       const struct job *j, const struct prio *prio)
{
    size_t pn = ctx->parts[j->part].nnodes;
    struct bf_sjob *v = &s->jobs[s->njobs++];

    *v = (struct bf_sjob){ .id = j->id,
                           .run = j->restarts,
                           .uid = j->uid,
                           .part = j->part,
                           .req = j->req,
                           .time_limit = j->time_limit,
                           .eligible = j->eligible_time,
                           .priority = prio->priority,
                           .under_threshold = prio->under_threshold };
    if (j->feat.n ? snap_constraint (ctx, j, v) < 0
                  : (snap_flags (j->required, pn, &v->required) < 0
                     || snap_flags (j->excluded, pn, &v->excluded) < 0))
        return -1;
    if (gres_job_wants (j) && bf_gres_snap_job (s, j, v) < 0)
        return -1;
    return lic_snap_job (&s->lic, ctx, j, &v->lic);
}

static int snap_jobs (struct ctld *ctx, struct bf_snap *s)
{
    struct when_pass wp = { 0 };
    struct sched_cand *c = NULL;
    size_t n = 0;
    int rc = -1;

    if (when_pass_begin (ctx, &wp) < 0 || !(c = sched_candidates (ctx, &wp, &n))
        || !(s->jobs = calloc (n + 1, sizeof (*s->jobs)))) /* +1: see .h */
        goto out;
    for (size_t i = 0; i < n; i++)
        if (backfill_snap_job (ctx, s, c[i].j, &c[i].prio) < 0)
            goto out;
    rc = 0;
out:
    when_pass_end (&wp);
    free (c);
    return rc;
}

int backfill_snapshot (struct ctld *ctx, const struct bf_params *bp,
                       struct bf_snap *s)
{
    memset (s, 0, sizeof (*s));
    s->now = ctld_now (ctx);
    s->bp = *bp;
    if (snap_nodes (ctx, s) < 0 || bf_gres_snap_nodes (ctx, s) < 0
        || snap_parts (ctx, s) < 0 || snap_runs (ctx, s) < 0
        || snap_jobs (ctx, s) < 0) {
        bf_snap_free (s);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* ---- applying a plan
 * ----------------------------------------------------------
 */

/* Is what the plan chose for j still free? The loop went on while the
 * plan was made: jobs started, nodes changed state. */
static bool apply_still_fits (const struct ctld *ctx, const struct job *j,
                              const struct select_result *res)
{
    const struct part *p = &ctx->parts[j->part];

    if (!licenses_free (ctx, j))
        return false;
    for (size_t k = 0; k < res->nnodes; k++) {
        const struct node *n = &ctx->nodes[p->nodes[res->idx[k]]];
        uint64_t mem = select_node_mem (&j->req, res->cpus[k]);
        if (!node_usable (n) || n->cpus - n->alloc_cpus < res->cpus[k]
            || (n->real_memory && n->real_memory < n->alloc_memory + mem)
            || !gres_node_fits (n, j, res->tasks[k],
                                res->gres_share ? res->gres_share[k] : 0))
            return false;
    }
    return true;
}

static void apply_start (struct ctld *ctx, struct job *j,
                         const struct select_result *res, struct when_pass *wp,
                         struct bf_stats *st)
{
    const char *why;

    if (when_eligible (ctx, j, wp, &why) != WHEN_READY
        || !apply_still_fits (ctx, j, res)) {
        st->started--;
        return;
    }
    if (sched_start (ctx, j, res)) {
        when_started (wp, j);
        log_verbose ("job %u backfilled", j->id);
    } else
        st->started--;
}

static void backfill_apply (struct ctld *ctx, const struct bf_snap *s,
                            struct bf_plan *plan, struct bf_stats *st)
{
    struct when_pass wp = { 0 };

    *st = plan->st;
    if (when_pass_begin (ctx, &wp) < 0) {
        log_err ("backfill: out of memory");
        return;
    }
    for (size_t i = 0; i < s->njobs; i++) {
        struct job *j = job_find (ctx, s->jobs[i].id);
        const struct bf_decision *d = &plan->d[i];
        if (!j || j->state != JOB_PENDING || j->restarts != s->jobs[i].run)
            continue; /* started, ended or requeued meanwhile */
        j->expected_start = d->verdict == BF_RESERVE ? d->at : 0;
        if (d->verdict == BF_START)
            apply_start (ctx, j, &d->res, &wp, st);
    }
    when_pass_end (&wp);
}

static double ms_since (const struct timespec *t0)
{
    struct timespec t;

    clock_gettime (CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3
           + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

int backfill_pass (struct ctld *ctx, const struct bf_params *bp,
                   struct bf_stats *st)
{
    struct timespec t0;
    struct bf_snap s;
    struct bf_plan plan;
    double snap_ms, plan_ms;

    memset (st, 0, sizeof (*st));
    clock_gettime (CLOCK_MONOTONIC, &t0);
    if (backfill_snapshot (ctx, bp, &s) < 0)
        return -1;
    snap_ms = ms_since (&t0);
    if (bf_plan_run (&s, &plan) < 0) {
        bf_snap_free (&s);
        return -1;
    }
    plan_ms = ms_since (&t0) - snap_ms;
    backfill_apply (ctx, &s, &plan, st);
    bf_plan_free (&plan, s.njobs);
    bf_snap_free (&s);
    st->snap_ms = snap_ms;
    st->plan_ms = plan_ms;
    st->apply_ms = ms_since (&t0) - snap_ms - plan_ms;
    return 0;
}

/* ---- off the loop ----------------------------------------------------------
 */

int backfill_start (struct ctld *ctx, const struct bf_params *bp,
                    struct bf_worker *w)
{
    struct bf_snap *s = malloc (sizeof (*s));

    if (!s)
        return -1;
    if (backfill_snapshot (ctx, bp, s) < 0) {
        free (s);
        return -1;
    }
    if (bf_worker_run (w, s) < 0) {
        bf_snap_free (s);
        free (s);
        return -1;
    }
    return 0;
}

void backfill_finish (struct ctld *ctx, struct bf_snap *s, struct bf_plan *plan,
                      struct bf_stats *st)
{
    backfill_apply (ctx, s, plan, st);
    bf_plan_free (plan, s->njobs);
    bf_snap_free (s);
    free (s);
}
