/* bf_plan.c - the backfill plan on a snapshot. See bf_plan.h and, for
 * the rules, backfill.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/bf_plan.h"
#include "sched/bf_units.h"
#include "sched/profile.h"
#include "timestr.h"

#define BF_SHAPES 64 /* shapes remembered per pass */

/* A request shape and where the last job of that shape was planned: a
 * later one (the profile only fills up) needs no earlier search. */
struct bf_shape {
    size_t part;
    const struct bf_sgres *gres; /* alike requests share their entry */
    struct select_req req;
    uint32_t time_limit;
    time_t from; /* search from here; PROFILE_FOREVER: not in the window */
};

struct bf_pass {
    const struct bf_snap *s;
    const struct bf_params *bp;
    time_t now, horizon;
    struct profile prof;
    uint32_t *cpus, *mem;      /* scratch: a window's free share per node */
    struct select_node *views; /* scratch: one partition's nodes */
    size_t **ranks; /* per partition: its nodes by load-aware preference
                       (select_rank), or NULL for their order */
    size_t *slide;  /* scratch: bf_slide's deque */
    size_t slide_cap;
    size_t *uslide; /* the same for the units' profile */
    size_t uslide_cap;
    uint32_t *gtasks, *gunits; /* scratch: a window's bf_units_node, per
                                  partition node */
    bool *head_reserved;       /* per partition (EASY) */
    uint32_t *part_tested;
    struct bf_shape shapes[BF_SHAPES];
    size_t nshapes;
    struct bf_plan *plan;
    struct licplan lic;    /* licenses over time (licenses_plan.h) */
    struct bf_units units; /* generic resources over time (bf_units.h) */
};

/* ---- the profile ------------------------------------------------------------
 */

/* The licenses' lines; each release also cuts the core profile, so that
 * a job waiting for licenses alone is tried when they come back. */
static int bf_licenses_build (struct bf_pass *bf)
{
    const struct lic_snap *ls = &bf->s->lic;

    if (licplan_init (&bf->lic, ls, bf->now) < 0)
        return -1;
    for (size_t i = 0; i < ls->nrels; i++) {
        time_t t = bf_round (bf->s, ls->rels[i].end);
        if (licplan_release (&bf->lic, &ls->rels[i], t) < 0
            || profile_release (&bf->prof, t, 0, 0, 0) < 0)
            return -1;
    }
    return 0;
}

static int bf_profile_build (struct bf_pass *bf)
{
    const struct bf_snap *s = bf->s;

    for (size_t i = 0; i < s->nnodes; i++) {
        bf->cpus[i] = s->nodes[i].usable ? s->nodes[i].free_cpus : 0;
        bf->mem[i] = s->nodes[i].usable ? s->nodes[i].free_mem : 0;
    }
    if (profile_init (&bf->prof, s->nnodes, s->now, bf->cpus, bf->mem) < 0
        || profile_blocks (&bf->prof, bf_block_span (s), bf->horizon) < 0)
        return -1;
    for (size_t i = 0; i < s->nruns; i++) {
        const struct bf_srun *r = &s->runs[i];
        if (!s->nodes[r->node].usable)
            continue;
        if (profile_release (&bf->prof, bf_round (bf->s, r->end), r->node,
                             r->cpus, r->mem)
            < 0)
            return -1;
    }
    if (bf_units_init (&bf->units, s) < 0)
        return -1;
    return bf_licenses_build (bf);
}

/* ---- a job's earliest start -------------------------------------------------
 */

static time_t bf_limit_s (const struct bf_sjob *j)
{
    return j->time_limit == TIME_INFINITE ? PROFILE_FOREVER
                                          : (time_t)j->time_limit * 60;
}

/* Views of j's partition over the window that segment i starts, for
 * alternative 'alt' of its constraint (its units' window computed
 * first: bf_units_window). */
static void bf_views (struct bf_pass *bf, const struct bf_sjob *j, size_t i,
                      time_t t1, size_t alt)
{
    const struct bf_spart *p = &bf->s->parts[j->part];
    size_t at = alt * p->nnodes;

    (void)profile_window (&bf->prof, i, t1, bf->cpus, bf->mem);
    for (size_t k = 0; k < p->nnodes; k++) {
        const struct bf_snode *nd = &bf->s->nodes[p->nodes[k]];
        bf->views[k] = (struct select_node){
            .name = nd->name,
            .cpus = nd->cpus,
            .free_cpus = bf->cpus[p->nodes[k]],
            .memory = nd->memory,
            .free_memory = bf->mem[p->nodes[k]],
            .usable = nd->usable,
            .pref = nd->pref,
            .required = j->required && j->required[at + k],
            .excluded = j->excluded && j->excluded[at + k],
            .tmp_mb = nd->tmp_mb,
        };
        if (j->gres) {
            bf->views[k].gres_capped = true;
            bf->views[k].gres_tasks = bf->gtasks[k];
            bf->views[k].gres_units = bf->gunits[k];
        }
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

/* *q (of *cap) can hold every segment of p. -1 with errno ENOMEM. */
static int bf_slide_fit (size_t **q, size_t *cap, const struct profile *p)
{
    size_t *v;

    if (*cap >= p->nsegs)
        return 0;
    if (!(v = realloc (*q, 2 * p->nsegs * sizeof (*v))))
        return -1;
    *q = v;
    *cap = 2 * p->nsegs;
    return 0;
}

/* bf->slide and bf->uslide can hold every segment. -1 with errno ENOMEM. */
static int bf_slide_room (struct bf_pass *bf)
{
    return bf_slide_fit (&bf->slide, &bf->slide_cap, &bf->prof) < 0
                   || bf_slide_fit (&bf->uslide, &bf->uslide_cap,
                                    &bf->units.prof)
                          < 0
               ? -1
               : 0;
}

/* Can j's units be had during [t, t1): are 'need' units (of any kind)
 * free in all, and enough of its partition's nodes with them? If so,
 * what each node allows is left in bf->gtasks and bf->gunits for
 * bf_views. The units' segments are found by time, ascending as the
 * cores' are, so their sliding least works as bf_slide_least's. Cheaper
 * than the cores' window (one column a node, not two), so tried first. */
static bool bf_units_fit (struct bf_pass *bf, const struct bf_sjob *j,
                          struct bf_slide *us, time_t t, time_t t1,
                          uint64_t need)
{
    const struct bf_spart *p = &bf->s->parts[j->part];
    size_t iu = profile_seg_at (&bf->units.prof, t);
    uint64_t nodes = 0, tasks = 0, units = 0;

    if (bf_slide_least (us, &bf->units.prof, iu, t1) < need)
        return false;
    bf_units_window (&bf->units, iu, t1);
    for (size_t k = 0; k < p->nnodes; k++) {
        bf_units_node (&bf->units, p->nodes[k], j->gres, &bf->gtasks[k],
                       &bf->gunits[k]);
        nodes += bf->gtasks[k] > 0;
        tasks += bf->gtasks[k];
        units += bf->gunits[k];
    }
    return nodes >= (j->req.nnodes ? j->req.nnodes : 1)
           && (!j->gres->key.per_task.count || tasks >= j->req.ntasks)
           && units >= j->gres->key.per_job.count;
}

/* The earliest start in [from, latest]: its time and the nodes, or
 * PROFILE_FOREVER. */
static time_t bf_earliest (struct bf_pass *bf, const struct bf_sjob *j,
                           time_t from, time_t latest,
                           struct select_result *res)
{
    const struct bf_spart *p = &bf->s->parts[j->part];
    time_t limit = bf_limit_s (j);
    uint64_t need = j->req.overcommit ? 0 : select_req_cpus (&j->req);
    uint64_t units = j->gres ? bf_units_need (j->gres, &j->req) : 0;
    struct bf_slide slide = { .q = bf->slide }, uslide = { .q = bf->uslide };
    arbor_error_t err;

    for (size_t i = 0; i < bf->prof.nsegs; i++) {
        time_t t = bf->prof.segs[i].start;
        time_t t1 = limit == PROFILE_FOREVER ? PROFILE_FOREVER : t + limit;
        if (t > latest)
            break;
        if (t < from)
            continue;
        if (bf_slide_least (&slide, &bf->prof, i, t1) < need
            || !licplan_fits (&bf->lic, &j->lic, t, t1)
            || (j->gres && !bf_units_fit (bf, j, &uslide, t, t1, units)))
            continue;
        for (size_t alt = 0; alt < (j->nalts ? j->nalts : 1); alt++) {
            bf_views (bf, j, i, t1, alt);
            if (select_run_ranked (bf->views, p->nnodes, bf->ranks[j->part],
                                   &j->req, SELECT_NOW, res, &err)
                == 0)
                return t;
        }
    }
    return PROFILE_FOREVER;
}

/* ---- planning
 * -----------------------------------------------------------------
 */

static uint32_t bf_node_mem (const struct bf_sjob *j, const struct bf_snode *nd,
                             uint32_t cpus)
{
    uint64_t mb = select_node_mem (&j->req, cpus);

    if (nd->memory == BF_UNTRACKED_MEM)
        return 0;
    return mb > nd->memory ? nd->memory : (uint32_t)mb;
}

/* Take j's share at [t, t + limit) on the selection's nodes. */
static int bf_reserve (struct bf_pass *bf, const struct bf_sjob *j, time_t t,
                       const struct select_result *res)
{
    const struct bf_spart *p = &bf->s->parts[j->part];
    time_t limit = bf_limit_s (j);
    time_t t1 = limit == PROFILE_FOREVER ? PROFILE_FOREVER
                                         : bf_round (bf->s, t + limit);

    for (size_t k = 0; k < res->nnodes; k++) {
        size_t node = p->nodes[res->idx[k]];
        if (profile_reserve (&bf->prof, t, t1, node, res->cpus[k],
                             bf_node_mem (j, &bf->s->nodes[node], res->cpus[k]))
            < 0)
            return -1;
        if (j->gres
            && bf_units_reserve (&bf->units, node, j->gres, res->tasks[k],
                                 res->gres_share ? res->gres_share[k] : 0, t,
                                 t1)
                   < 0)
            return -1;
    }
    return licplan_reserve (&bf->lic, &j->lic, t, t1);
}

/* Jobs that name nodes (-w, -x) or licenses have shapes of their own. */
static struct bf_shape *bf_shape_find (struct bf_pass *bf,
                                       const struct bf_sjob *j)
{
    if (j->required || j->excluded || j->lic.n)
        return NULL;
    for (size_t i = 0; i < bf->nshapes; i++) {
        struct bf_shape *s = &bf->shapes[i];
        if (s->part == j->part && s->time_limit == j->time_limit
            && s->gres == j->gres && select_req_same (&s->req, &j->req))
            return s;
    }
    if (bf->nshapes == BF_SHAPES)
        return NULL;
    bf->shapes[bf->nshapes] = (struct bf_shape){ .part = j->part,
                                                 .gres = j->gres,
                                                 .req = j->req,
                                                 .time_limit = j->time_limit,
                                                 .from = bf->now };
    return &bf->shapes[bf->nshapes++];
}

/* May j hold a reservation (mode, bf_min_age_reserve,
 * bf_min_prio_reserve, priority/wait's threshold)? */
static bool bf_may_reserve (const struct bf_pass *bf, const struct bf_sjob *j)
{
    const struct bf_params *bp = bf->bp;

    if (j->under_threshold)
        return false;
    if (bp->mode == BF_EASY && bf->head_reserved[j->part])
        return false;
    if (bp->min_age_reserve && j->eligible
        && bf->now - j->eligible < (time_t)bp->min_age_reserve)
        return false;
    return j->priority >= bp->min_prio_reserve;
}

/* Plan job i: start it, reserve for it, or neither. -1 ENOMEM. */
static int bf_plan_job (struct bf_pass *bf, size_t i)
{
    const struct bf_sjob *j = &bf->s->jobs[i];
    struct bf_decision *d = &bf->plan->d[i];
    struct bf_shape *shape = bf_shape_find (bf, j);
    bool reserve = bf_may_reserve (bf, j);
    time_t t;

    if (shape && shape->from == PROFILE_FOREVER)
        return 0; /* its shape found no room in the window: nor will it */
    if (bf_slide_room (bf) < 0)
        return -1;
    /* A job that may not hold a reservation needs only "now?" answered. */
    t = bf_earliest (bf, j, shape ? shape->from : bf->now,
                     reserve ? bf->horizon : bf->now, &d->res);
    if (shape && reserve) /* the same shape fits no earlier */
        shape->from = t;
    else if (shape && t == PROFILE_FOREVER)
        shape->from = bf->now + 1; /* not now: the same shape neither */
    if (t == PROFILE_FOREVER)
        return 0;
    if (t == bf->now) {
        d->verdict = BF_START;
        bf->plan->st.started++;
    } else if (reserve) {
        d->verdict = BF_RESERVE;
        d->at = t;
        bf->head_reserved[j->part] = true;
        bf->plan->st.reserved++;
    } else {
        select_result_clear (&d->res);
        return 0;
    }
    return bf_reserve (bf, j, t, &d->res);
}

static int uid_cmp (const void *pa, const void *pb, void *arg)
{
    const struct bf_sjob *j = arg;
    uid_t a = j[*(const size_t *)pa].uid, b = j[*(const size_t *)pb].uid;

    return a < b ? -1 : a > b;
}

/* Each job's user as a small number (for bf_max_job_user's counts).
 * NULL with errno ENOMEM. */
static uint32_t *bf_user_groups (const struct bf_sjob *j, size_t n)
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
    qsort_r (order, n, sizeof (*order), uid_cmp, (void *)j);
    for (size_t i = 0; i < n; i++) {
        if (i && j[order[i]].uid != j[order[i - 1]].uid)
            g++;
        group[order[i]] = g;
    }
    free (order);
    return group;
}

/* bf_max_job_test, _part, _user, _start: may job i be planned? */
static bool bf_may_test (const struct bf_pass *bf, const struct bf_sjob *j,
                         uint32_t user_tested)
{
    const struct bf_params *bp = bf->bp;
    const struct bf_stats *st = &bf->plan->st;

    if (bp->max_job_start && st->started >= bp->max_job_start)
        return false;
    if (bp->max_job_test && st->tested >= bp->max_job_test)
        return false;
    if (bp->max_job_part && bf->part_tested[j->part] >= bp->max_job_part)
        return false;
    return !bp->max_job_user || user_tested < bp->max_job_user;
}

static int bf_plan_jobs (struct bf_pass *bf)
{
    size_t n = bf->s->njobs;
    uint32_t *group = bf_user_groups (bf->s->jobs, n);
    uint32_t *user_tested = calloc (n + 1, sizeof (*user_tested));
    int rc = group && user_tested ? 0 : -1;

    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct bf_sjob *j = &bf->s->jobs[i];
        if (!bf_may_test (bf, j, user_tested[group[i]]))
            continue;
        bf->plan->st.tested++;
        bf->part_tested[j->part]++;
        user_tested[group[i]]++;
        rc = bf_plan_job (bf, i);
    }
    free (group);
    free (user_tested);
    return rc;
}

/* bf->ranks: each partition's nodes by preference, once a pass (the
 * prefs do not change within one). -1 with errno ENOMEM. */
static int bf_ranks (struct bf_pass *bf)
{
    const struct bf_snap *s = bf->s;

    if (!(bf->ranks = calloc (s->nparts + 1, sizeof (*bf->ranks))))
        return -1;
    for (size_t pi = 0; pi < s->nparts; pi++) {
        const struct bf_spart *p = &s->parts[pi];
        for (size_t k = 0; k < p->nnodes; k++)
            bf->views[k] =
                (struct select_node){ .pref = s->nodes[p->nodes[k]].pref };
        if (!(bf->ranks[pi] = malloc ((p->nnodes + 1) * sizeof (size_t))))
            return -1;
        if (!select_rank (bf->views, p->nnodes, bf->ranks[pi])) {
            free (bf->ranks[pi]);
            bf->ranks[pi] = NULL;
        }
    }
    return 0;
}

static void bf_ranks_free (struct bf_pass *bf)
{
    for (size_t pi = 0; bf->ranks && pi < bf->s->nparts; pi++)
        free (bf->ranks[pi]);
    free (bf->ranks);
}

static size_t bf_largest_part (const struct bf_snap *s)
{
    size_t m = 1;

    for (size_t i = 0; i < s->nparts; i++)
        if (s->parts[i].nnodes > m)
            m = s->parts[i].nnodes;
    return m;
}

int bf_plan_run (const struct bf_snap *s, struct bf_plan *out)
{
    struct bf_pass bf = { .s = s, .bp = &s->bp, .now = s->now, .plan = out };
    int rc = -1;

    memset (out, 0, sizeof (*out));
    bf.horizon = s->now + (time_t)s->bp.window * 60;
    out->d = calloc (s->njobs + 1, sizeof (*out->d));
    bf.cpus = calloc (s->nnodes + 1, sizeof (*bf.cpus));
    bf.mem = calloc (s->nnodes + 1, sizeof (*bf.mem));
    bf.views = calloc (bf_largest_part (s), sizeof (*bf.views));
    bf.gtasks = calloc (bf_largest_part (s), sizeof (*bf.gtasks));
    bf.gunits = calloc (bf_largest_part (s), sizeof (*bf.gunits));
    bf.head_reserved = calloc (s->nparts + 1, sizeof (bool));
    bf.part_tested = calloc (s->nparts + 1, sizeof (uint32_t));
    if (out->d && bf.cpus && bf.mem && bf.views && bf.gtasks && bf.gunits
        && bf.head_reserved && bf.part_tested && bf_ranks (&bf) == 0
        && bf_profile_build (&bf) == 0)
        rc = bf_plan_jobs (&bf);
    bf_ranks_free (&bf);
    profile_free (&bf.prof);
    licplan_free (&bf.lic);
    bf_units_free (&bf.units);
    free (bf.cpus);
    free (bf.mem);
    free (bf.views);
    free (bf.gtasks);
    free (bf.gunits);
    free (bf.head_reserved);
    free (bf.part_tested);
    free (bf.slide);
    free (bf.uslide);
    if (rc < 0) {
        bf_plan_free (out, s->njobs);
        errno = ENOMEM;
    }
    return rc;
}

void bf_plan_free (struct bf_plan *p, size_t njobs)
{
    for (size_t i = 0; p->d && i < njobs; i++)
        select_result_clear (&p->d[i].res);
    free (p->d);
    p->d = NULL;
}

void bf_snap_free (struct bf_snap *s)
{
    for (size_t i = 0; s->parts && i < s->nparts; i++)
        free (s->parts[i].nodes);
    for (size_t i = 0; s->jobs && i < s->njobs; i++) {
        free (s->jobs[i].required);
        free (s->jobs[i].excluded);
    }
    while (s->gres) {
        struct bf_sgres *g = s->gres;
        s->gres = g->next;
        free (g);
    }
    for (size_t i = 0; s->slots && i < s->nslots; i++) {
        free ((char *)s->slots[i].name);
        free ((char *)s->slots[i].type);
    }
    free (s->slots);
    free (s->uruns);
    free (s->nodes);
    free (s->parts);
    free (s->runs);
    free (s->jobs);
    lic_snap_free (&s->lic);
    memset (s, 0, sizeof (*s));
}
