/* licenses_plan.c - licenses in the backfill plan; see licenses_plan.h.
 *
 * A license's line is a short array of segments (a start and what is
 * free from it until the next one): a cluster has few licenses and a
 * pass few jobs holding them, so cutting and scanning it linearly costs
 * little beside the core profile's work, and it needs no index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"
#include "job/job.h"
#include "sched/licenses.h"
#include "sched/licenses_plan.h"
#include "sched/profile.h"

/* ---- the snapshot --------------------------------------------------------
 */

/* What is free of each license now, the first time it is needed. */
static int lic_snap_init (struct lic_snap *s, const struct ctld *ctx)
{
    const struct licenses *l = ctx->licenses;

    if (s->free)
        return 0;
    s->nlic = l ? l->n : 0;
    if (!(s->free = calloc (s->nlic + 1, sizeof (*s->free))))
        return -1;
    for (size_t i = 0; i < s->nlic; i++)
        s->free[i] = (int64_t)l->v[i].total - (int64_t)l->v[i].used;
    return 0;
}

/* Room for one more in an array of 'size' bytes elements. */
static int lic_grow (void **v, size_t n, size_t *cap, size_t size)
{
    void *nv;

    if (n < *cap)
        return 0;
    if (!(nv = realloc (*v, (*cap ? *cap * 2 : 16) * size)))
        return -1;
    *v = nv;
    *cap = *cap ? *cap * 2 : 16;
    return 0;
}

int lic_snap_run (struct lic_snap *s, const struct ctld *ctx,
                  const struct job *j, time_t end)
{
    if (j->lic_held.n == 0)
        return 0;
    if (lic_snap_init (s, ctx) < 0)
        return -1;
    for (size_t i = 0; i < j->lic_held.n; i++) {
        long x = licenses_find (ctx->licenses, j->lic_held.items[i].name);
        if (x < 0)
            continue;
        if (lic_grow ((void **)&s->rels, s->nrels, &s->relcap,
                      sizeof (*s->rels))
            < 0)
            return -1;
        s->rels[s->nrels++] = (struct lic_rel){
            .end = end,
            .use = { (size_t)x, j->lic_held.items[i].count },
        };
    }
    return 0;
}

int lic_snap_job (struct lic_snap *s, const struct ctld *ctx,
                  const struct job *j, struct lic_need *need)
{
    *need = (struct lic_need){ .first = s->nuses, .any = j->lic.any };
    if (j->lic.n == 0)
        return 0;
    if (lic_snap_init (s, ctx) < 0)
        return -1;
    for (size_t i = 0; i < j->lic.n; i++) {
        long x = licenses_find (ctx->licenses, j->lic.items[i].name);
        if (lic_grow ((void **)&s->uses, s->nuses, &s->usecap,
                      sizeof (*s->uses))
            < 0)
            return -1;
        s->uses[s->nuses++] = (struct lic_use){
            .lic = x < 0 ? LIC_NONE : (size_t)x,
            .count = j->lic.items[i].count,
        };
    }
    need->n = j->lic.n;
    return 0;
}

void lic_snap_free (struct lic_snap *s)
{
    free (s->free);
    free (s->rels);
    free (s->uses);
    memset (s, 0, sizeof (*s));
}

/* ---- the plan ------------------------------------------------------------
 */

int licplan_init (struct licplan *p, const struct lic_snap *s, time_t now)
{
    memset (p, 0, sizeof (*p));
    p->s = s;
    if (!(p->lines = calloc (s->nlic + 1, sizeof (*p->lines))))
        return -1;
    for (size_t i = 0; i < s->nlic; i++) {
        struct lic_line *l = &p->lines[i];
        if (!(l->segs = malloc (4 * sizeof (*l->segs))))
            return -1;
        l->cap = 4;
        l->n = 1;
        l->segs[0] = (struct lic_seg){ .start = now, .free = s->free[i] };
    }
    return 0;
}

void licplan_free (struct licplan *p)
{
    for (size_t i = 0; p->lines && i < p->s->nlic; i++)
        free (p->lines[i].segs);
    free (p->lines);
    p->lines = NULL;
}

/* The segment that starts at t, made by cutting the one holding t (t
 * before the first: the first). -1 with errno ENOMEM. */
static long line_cut (struct lic_line *l, time_t t)
{
    size_t k = 0;

    if (t <= l->segs[0].start)
        return 0;
    while (k + 1 < l->n && l->segs[k + 1].start <= t)
        k++;
    if (l->segs[k].start == t)
        return (long)k;
    if (lic_grow ((void **)&l->segs, l->n, &l->cap, sizeof (*l->segs)) < 0)
        return -1;
    memmove (&l->segs[k + 2], &l->segs[k + 1],
             (l->n - k - 1) * sizeof (*l->segs));
    l->segs[k + 1] = (struct lic_seg){ .start = t, .free = l->segs[k].free };
    l->n++;
    return (long)k + 1;
}

/* delta more free during [t0, t1). */
static int line_add (struct lic_line *l, time_t t0, time_t t1, int64_t delta)
{
    long i0, i1;

    if (t1 <= t0 || (i0 = line_cut (l, t0)) < 0)
        return t1 <= t0 ? 0 : -1;
    if (t1 == PROFILE_FOREVER)
        i1 = (long)l->n;
    else if ((i1 = line_cut (l, t1)) < 0)
        return -1;
    for (long k = i0; k < i1; k++)
        l->segs[k].free += delta;
    return 0;
}

/* The least free during [t0, t1). */
static int64_t line_least (const struct lic_line *l, time_t t0, time_t t1)
{
    int64_t least = INT64_MAX;

    for (size_t k = 0; k < l->n && l->segs[k].start < t1; k++)
        if ((k + 1 == l->n || l->segs[k + 1].start > t0)
            && l->segs[k].free < least)
            least = l->segs[k].free;
    return least;
}

int licplan_release (struct licplan *p, const struct lic_rel *r, time_t t)
{
    if (r->use.lic >= p->s->nlic)
        return 0;
    return line_add (&p->lines[r->use.lic], t, PROFILE_FOREVER,
                     (int64_t)r->use.count);
}

/* The uses of need's choice k. */
static void need_choice (const struct lic_need *need, size_t k, size_t *first,
                         size_t *n)
{
    *first = need->first + (need->any ? k : 0);
    *n = need->any ? 1 : need->n;
}

bool licplan_fits (struct licplan *p, const struct lic_need *need, time_t t0,
                   time_t t1)
{
    size_t choices = need->any ? need->n : (need->n ? 1 : 0), first, n;

    if (need->n == 0)
        return true;
    for (size_t k = 0; k < choices; k++) {
        bool ok = true;
        need_choice (need, k, &first, &n);
        for (size_t i = first; ok && i < first + n; i++) {
            const struct lic_use *u = &p->s->uses[i];
            ok = u->lic < p->s->nlic
                 && line_least (&p->lines[u->lic], t0, t1) >= u->count;
        }
        if (ok) {
            p->choice = k;
            return true;
        }
    }
    return false;
}

int licplan_reserve (struct licplan *p, const struct lic_need *need, time_t t0,
                     time_t t1)
{
    size_t first, n;

    if (need->n == 0)
        return 0;
    need_choice (need, p->choice, &first, &n);
    for (size_t i = first; i < first + n; i++) {
        const struct lic_use *u = &p->s->uses[i];
        if (u->lic < p->s->nlic
            && line_add (&p->lines[u->lic], t0, t1, -(int64_t)u->count) < 0)
            return -1;
    }
    return 0;
}
