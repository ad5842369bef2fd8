/* backfill.c - the backfill pass. See backfill.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "backfill.h"
#include "conf.h"
#include "ctld.h"
#include "job.h"
#include "log.h"
#include "node.h"
#include "part.h"
#include "profile.h"
#include "sched_private.h"
#include "timestr.h"
#include "when.h"

#define BF_UNTRACKED_MEM (UINT32_MAX / 2) /* a node without RealMemory */
#define BF_SHAPES 64                      /* shapes remembered per pass */

/* A request shape and where the last job of that shape was planned: a
 * later one (the profile only fills up) needs no earlier search. */
struct bf_shape {
    size_t part;
    struct select_req req;
    uint32_t time_limit;
    time_t from; /* search from here; PROFILE_FOREVER: not in the window */
};

struct bf_pass {
    struct ctld *ctx;
    const struct bf_params *bp;
    time_t now, horizon;
    struct profile prof;
    uint32_t *cpus; /* scratch: a window's free cores per node */
    uint32_t *mem;
    struct select_node *views; /* scratch: one partition's nodes */
    size_t *slide;             /* scratch: bf_slide's deque */
    size_t slide_cap;
    bool *head_reserved; /* per partition (EASY) */
    uint32_t *part_tested;
    struct bf_shape shapes[BF_SHAPES];
    size_t nshapes;
    struct bf_stats *st;
};

/* ---- building the profile ----------------------------------------------- */

static time_t bf_round (const struct bf_pass *bf, time_t t)
{
    time_t res = bf->bp->resolution ? bf->bp->resolution : 1;

    if (t == PROFILE_FOREVER)
        return t;
    if (t <= bf->now)
        return bf->now;
    return bf->now + (t - bf->now + res - 1) / res * res;
}

/* When a running job's nodes come back: its start plus its limit; a job
 * past it or completing gives them back soon, never "now". */
static time_t bf_job_end (const struct bf_pass *bf, const struct job *j)
{
    time_t soon = bf->now + (bf->bp->resolution ? bf->bp->resolution : 1);
    time_t end;

    if (j->completing || j->state != JOB_RUNNING)
        return soon;
    if (j->time_limit == TIME_INFINITE)
        return PROFILE_FOREVER;
    end = j->start_time + (time_t)j->time_limit * 60;
    return end <= bf->now ? soon : bf_round (bf, end);
}

static int bf_profile_build (struct bf_pass *bf)
{
    struct ctld *ctx = bf->ctx;
    size_t n = ctx->nnodes;

    for (size_t i = 0; i < n; i++) {
        const struct node *nd = &ctx->nodes[i];
        bool ok = node_usable (nd);
        bf->cpus[i] = ok ? nd->cpus - nd->alloc_cpus : 0;
        bf->mem[i] = !ok                ? 0
                     : !nd->real_memory ? BF_UNTRACKED_MEM
                     : nd->real_memory > nd->alloc_memory
                         ? nd->real_memory - nd->alloc_memory
                         : 0;
    }
    if (profile_init (&bf->prof, n, bf->now, bf->cpus, bf->mem) < 0)
        return -1;
    for (const struct job *j = ctx->jobs; j; j = j->next) {
        time_t end = bf_job_end (bf, j);
        for (size_t k = 0; k < j->nnodes; k++) {
            const struct job_node *jn = &j->nodes[k];
            if (jn->released || !node_usable (&ctx->nodes[jn->node]))
                continue;
            if (profile_release (
                    &bf->prof, end, jn->node, jn->cpus,
                    ctx->nodes[jn->node].real_memory ? (uint32_t)jn->mem_mb : 0)
                < 0)
                return -1;
        }
    }
    return 0;
}

/* ---- finding a job's earliest start ---------------------------------------
 */

static time_t bf_limit_s (const struct job *j)
{
    return j->time_limit == TIME_INFINITE ? PROFILE_FOREVER
                                          : (time_t)j->time_limit * 60;
}

static uint64_t bf_job_cpus (const struct job *j)
{
    return (uint64_t)(j->req.ntasks ? j->req.ntasks : 1)
           * (j->req.cpus_per_task ? j->req.cpus_per_task : 1);
}

/* Views of j's partition over the window the profile's segment i starts. */
static void bf_views (struct bf_pass *bf, const struct job *j, size_t i,
                      time_t t1)
{
    const struct ctld *ctx = bf->ctx;
    const struct part *p = &ctx->parts[j->part];

    (void)profile_window (&bf->prof, i, t1, bf->cpus, bf->mem);
    for (size_t k = 0; k < p->nnodes; k++) {
        const struct node *nd = &ctx->nodes[p->nodes[k]];
        struct select_node *v = &bf->views[k];
        v->name = nd->name;
        v->cpus = nd->cpus;
        v->free_cpus = bf->cpus[p->nodes[k]];
        v->memory = nd->real_memory ? nd->real_memory : BF_UNTRACKED_MEM;
        v->free_memory = bf->mem[p->nodes[k]];
        v->usable = node_usable (nd);
        v->required = j->required[k];
        v->excluded = j->excluded[k];
    }
}

/* The least total of free cores over each window [start_i, start_i +
 * limit), for i ascending: both ends only move forward, so a deque of
 * segments whose totals increase gives each window's least in O(1)
 * amortized (a window may cover hundreds of segments). */
struct bf_slide {
    size_t *q; /* segment indexes, totals increasing */
    size_t head, tail, next;
};

static uint64_t bf_slide_least (struct bf_slide *s, const struct profile *p,
                                size_t i, time_t t1)
{
    while (s->next < p->nsegs
           && (s->next <= i || p->segs[s->next].start < t1)) {
        while (s->tail > s->head
               && p->segs[s->q[s->tail - 1]].total_cpus
                      >= p->segs[s->next].total_cpus)
            s->tail--;
        s->q[s->tail++] = s->next++;
    }
    while (s->q[s->head] < i)
        s->head++;
    return p->segs[s->q[s->head]].total_cpus;
}

/* bf->slide can hold every segment. -1 with errno ENOMEM. */
static int bf_slide_room (struct bf_pass *bf)
{
    size_t *v;

    if (bf->slide_cap >= bf->prof.nsegs)
        return 0;
    if (!(v = realloc (bf->slide, 2 * bf->prof.nsegs * sizeof (*v))))
        return -1;
    bf->slide = v;
    bf->slide_cap = 2 * bf->prof.nsegs;
    return 0;
}

/* The earliest start in [from, latest]: its time and the nodes, or
 * PROFILE_FOREVER. */
static time_t bf_earliest (struct bf_pass *bf, const struct job *j, time_t from,
                           time_t latest, struct select_result *res)
{
    const struct part *p = &bf->ctx->parts[j->part];
    time_t limit = bf_limit_s (j);
    uint64_t need = j->req.overcommit ? 0 : bf_job_cpus (j);
    struct bf_slide slide = { .q = bf->slide };
    arbor_error_t err;

    for (size_t i = 0; i < bf->prof.nsegs; i++) {
        time_t t = bf->prof.segs[i].start;
        time_t t1 = limit == PROFILE_FOREVER ? PROFILE_FOREVER : t + limit;
        if (t > latest)
            break;
        if (t < from || bf_slide_least (&slide, &bf->prof, i, t1) < need)
            continue;
        bf_views (bf, j, i, t1);
        if (select_run (bf->views, p->nnodes, &j->req, SELECT_NOW, res, &err)
            == 0)
            return t;
    }
    return PROFILE_FOREVER;
}

/* ---- planning -------------------------------------------------------------
 */

static uint32_t bf_node_mem (const struct job *j, const struct node *nd,
                             uint32_t cpus)
{
    uint64_t mb = j->req.mem_mb ? j->req.mem_mb : j->req.mem_per_cpu_mb * cpus;

    if (!nd->real_memory)
        return 0;
    return mb > nd->real_memory ? nd->real_memory : (uint32_t)mb;
}

/* Take j's share at [t, t + limit) on the selection's nodes. */
static int bf_reserve (struct bf_pass *bf, const struct job *j, time_t t,
                       const struct select_result *res)
{
    const struct part *p = &bf->ctx->parts[j->part];
    time_t limit = bf_limit_s (j);
    time_t t1 =
        limit == PROFILE_FOREVER ? PROFILE_FOREVER : bf_round (bf, t + limit);

    for (size_t k = 0; k < res->nnodes; k++) {
        size_t node = p->nodes[res->idx[k]];
        const struct node *nd = &bf->ctx->nodes[node];
        if (profile_reserve (&bf->prof, t, t1, node, res->cpus[k],
                             bf_node_mem (j, nd, res->cpus[k]))
            < 0)
            return -1;
    }
    return 0;
}

static bool bf_same_shape (const struct bf_shape *s, const struct job *j)
{
    return s->part == j->part && s->time_limit == j->time_limit
           && !memcmp (&s->req, &j->req, sizeof (s->req));
}

/* Jobs naming nodes (-w, -x) have shapes of their own. */
static bool bf_shaped (const struct bf_pass *bf, const struct job *j)
{
    const struct part *p = &bf->ctx->parts[j->part];

    if (j->nrequired)
        return false;
    for (size_t k = 0; k < p->nnodes; k++)
        if (j->excluded[k])
            return false;
    return true;
}

static struct bf_shape *bf_shape_find (struct bf_pass *bf, const struct job *j)
{
    if (!bf_shaped (bf, j))
        return NULL;
    for (size_t i = 0; i < bf->nshapes; i++)
        if (bf_same_shape (&bf->shapes[i], j))
            return &bf->shapes[i];
    if (bf->nshapes == BF_SHAPES)
        return NULL;
    bf->shapes[bf->nshapes] = (struct bf_shape){ .part = j->part,
                                                 .req = j->req,
                                                 .time_limit = j->time_limit,
                                                 .from = bf->now };
    return &bf->shapes[bf->nshapes++];
}

/* May j hold a reservation (mode, bf_min_age_reserve,
 * bf_min_prio_reserve)? */
static bool bf_may_reserve (const struct bf_pass *bf,
                            const struct sched_cand *c)
{
    const struct bf_params *bp = bf->bp;

    if (bp->mode == BF_EASY && bf->head_reserved[c->j->part])
        return false;
    if (bp->min_age_reserve && c->j->eligible_time
        && bf->now - c->j->eligible_time < (time_t)bp->min_age_reserve)
        return false;
    return c->prio.priority >= bp->min_prio_reserve;
}

/* Start j now on 'res', then hold its real allocation in the profile. */
static int bf_start (struct bf_pass *bf, struct job *j,
                     const struct select_result *res)
{
    if (!sched_start (bf->ctx, j, res))
        return 0;
    bf->st->started++;
    j->expected_start = 0;
    return bf_reserve (bf, j, bf->now, res) < 0 ? -1 : 1;
}

/* Plan candidate c: start it, reserve for it, or neither. -1 ENOMEM. */
static int bf_plan (struct bf_pass *bf, const struct sched_cand *c)
{
    struct job *j = c->j;
    struct bf_shape *shape = bf_shape_find (bf, j);
    struct select_result res;
    bool reserve;
    time_t t;
    int rc = 0;

    if (shape && shape->from == PROFILE_FOREVER)
        return 0; /* its shape found no room in the window: nor will it */
    if (bf_slide_room (bf) < 0)
        return -1;
    /* A job that may not hold a reservation needs only "now?" answered. */
    reserve = bf_may_reserve (bf, c);
    t = bf_earliest (bf, j, shape ? shape->from : bf->now,
                     reserve ? bf->horizon : bf->now, &res);
    if (shape && reserve) /* the same shape fits no earlier */
        shape->from = t;
    else if (shape && t == PROFILE_FOREVER)
        shape->from = bf->now + 1; /* not now: the same shape neither */
    if (t == PROFILE_FOREVER) {
        j->expected_start = 0;
        return 0;
    }
    if (t == bf->now)
        rc = bf_start (bf, j, &res);
    else if (reserve) {
        j->expected_start = t;
        bf->head_reserved[j->part] = true;
        bf->st->reserved++;
        rc = bf_reserve (bf, j, t, &res);
    }
    select_result_clear (&res);
    return rc < 0 ? -1 : 0;
}

/* bf_max_job_test, _part, _user: may this candidate be tested? */
static bool bf_may_test (struct bf_pass *bf, const struct sched_cand *c,
                         uint32_t user_tested)
{
    const struct bf_params *bp = bf->bp;

    if (bp->max_job_test && bf->st->tested >= bp->max_job_test)
        return false;
    if (bp->max_job_part && bf->part_tested[c->j->part] >= bp->max_job_part)
        return false;
    return !bp->max_job_user || user_tested < bp->max_job_user;
}

static int uid_cmp (const void *pa, const void *pb, void *arg)
{
    const struct sched_cand *c = arg;
    uid_t a = c[*(const size_t *)pa].j->uid, b = c[*(const size_t *)pb].j->uid;

    return a < b ? -1 : a > b;
}

/* Each candidate's user as a small number (for bf_max_job_user's
 * counts): candidates sorted by uid, equal uids one group. NULL ENOMEM. */
static uint32_t *bf_user_groups (const struct sched_cand *c, size_t n)
{
    size_t *order = calloc (n + 1, sizeof (*order));
    uint32_t *group = calloc (n + 1, sizeof (*group)), g = 0;

    if (!order || !group) {
        free (order);
        free (group);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r (order, n, sizeof (*order), uid_cmp, (void *)c);
    for (size_t i = 0; i < n; i++) {
        if (i && c[order[i]].j->uid != c[order[i - 1]].j->uid)
            g++;
        group[order[i]] = g;
    }
    free (order);
    return group;
}

static int bf_run (struct bf_pass *bf, struct when_pass *wp)
{
    size_t n = 0;
    struct sched_cand *cands = sched_candidates (bf->ctx, wp, &n);
    uint32_t *group = cands ? bf_user_groups (cands, n) : NULL;
    uint32_t *user_tested = calloc (n + 1, sizeof (*user_tested));
    int rc = cands && group && user_tested ? 0 : -1;

    for (size_t i = 0; i < n; i++)
        cands[i].j->expected_start = 0; /* planned again below */
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct job *j = cands[i].j;
        const char *why;
        if (bf->bp->max_job_start && bf->st->started >= bf->bp->max_job_start)
            break;
        if (j->state != JOB_PENDING
            || !bf_may_test (bf, &cands[i], user_tested[group[i]])
            || when_eligible (bf->ctx, j, wp, &why) != WHEN_READY)
            continue;
        bf->st->tested++;
        bf->part_tested[j->part]++;
        user_tested[group[i]]++;
        rc = bf_plan (bf, &cands[i]);
        if (j->state != JOB_PENDING)
            when_started (wp, j);
    }
    free (cands);
    free (group);
    free (user_tested);
    return rc;
}

static size_t bf_largest_part (const struct ctld *ctx)
{
    size_t m = 1;

    for (size_t i = 0; i < ctx->nparts; i++)
        if (ctx->parts[i].nnodes > m)
            m = ctx->parts[i].nnodes;
    return m;
}

int backfill_pass (struct ctld *ctx, const struct bf_params *bp,
                   struct bf_stats *st)
{
    struct bf_pass bf = { .ctx = ctx, .bp = bp, .now = time (NULL), .st = st };
    struct when_pass wp = { 0 };
    int rc = -1;

    memset (st, 0, sizeof (*st));
    bf.horizon = bf.now + (time_t)bp->window * 60;
    bf.cpus = calloc (ctx->nnodes + 1, sizeof (*bf.cpus));
    bf.mem = calloc (ctx->nnodes + 1, sizeof (*bf.mem));
    bf.views = calloc (bf_largest_part (ctx), sizeof (*bf.views));
    bf.head_reserved = calloc (ctx->nparts + 1, sizeof (bool));
    bf.part_tested = calloc (ctx->nparts + 1, sizeof (uint32_t));
    if (bf.cpus && bf.mem && bf.views && bf.head_reserved && bf.part_tested
        && when_pass_begin (ctx, &wp) == 0 && bf_profile_build (&bf) == 0)
        rc = bf_run (&bf, &wp);
    if (rc < 0)
        errno = ENOMEM;
    when_pass_end (&wp);
    profile_free (&bf.prof);
    free (bf.cpus);
    free (bf.mem);
    free (bf.views);
    free (bf.head_reserved);
    free (bf.part_tested);
    free (bf.slide);
    return rc;
}
