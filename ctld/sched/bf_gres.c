/* bf_gres.c - backfill's snapshot of generic resources. See bf_gres.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/bf_gres.h"
#include "sched/bf_plan.h"
#include "ctld.h"
#include "job/job.h"
#include "nodes/node.h"
#include "nodes/node_gres.h"

int bf_gres_snap_nodes (const struct ctld *ctx, struct bf_snap *s)
{
    size_t n = 0, k = 0;

    for (size_t i = 0; i < ctx->nnodes; i++)
        n += ctx->nodes[i].gres.n;
    if (!(s->slots = calloc (n + 1, sizeof (*s->slots))))
        return -1;
    for (size_t i = 0; i < ctx->nnodes; i++) {
        const struct node_gres *g = &ctx->nodes[i].gres;
        s->nodes[i].slot0 = k;
        s->nodes[i].nslots = (uint32_t)g->n;
        for (size_t m = 0; m < g->n; m++, k++) {
            const struct node_gres_item *it = &g->v[m];
            struct gres_count *c = &s->slots[k];
            s->nslots = k + 1; /* what bf_gres_snap_free frees */
            if (!(c->name = strdup (it->name))
                || (it->type && !(c->type = strdup (it->type))))
                return -1;
            c->total = it->count;
            c->free = s->nodes[i].usable ? it->count - it->nused : 0;
        }
    }
    return 0;
}

/* Units of node item 'it' that 'a' holds. A name kept by count is held
 * in no particular item: its count is given to the items in order
 * ('left' carries what the earlier items did not take). */
static uint32_t held_units (const struct node_gres_item *it,
                            const struct gresalloc *a, uint64_t *left)
{
    const struct gresalloc_item *ai = gresalloc_find (a, it->name);
    uint32_t n = 0;

    if (!ai)
        return 0;
    if (!ai->indexed) {
        n = *left < it->count ? (uint32_t)*left : it->count;
        *left -= n;
        return n;
    }
    for (uint32_t k = 0; k < it->count; k++)
        n += gresalloc_has (ai, it->base + k);
    return n;
}

static int urun_add (struct bf_snap *s, size_t slot, uint32_t units, time_t end)
{
    if (s->nuruns == s->uruns_cap) {
        size_t cap = s->uruns_cap ? 2 * s->uruns_cap : 64;
        struct bf_sunits *v = realloc (s->uruns, cap * sizeof (*v));
        if (!v)
            return -1;
        s->uruns = v;
        s->uruns_cap = cap;
    }
    s->uruns[s->nuruns++] = (struct bf_sunits){ slot, units, end };
    return 0;
}

int bf_gres_snap_run (const struct ctld *ctx, struct bf_snap *s,
                      const struct job_node *jn, time_t end)
{
    const struct node_gres *g = &ctx->nodes[jn->node].gres;
    const struct bf_snode *sn = &s->nodes[jn->node];

    if (!jn->gres || !sn->usable || sn->nslots != g->n)
        return 0;
    for (size_t i = 0; i < jn->gres->n; i++) {
        const struct gresalloc_item *ai = &jn->gres->v[i];
        uint64_t left = ai->indexed ? 0 : ai->count;
        for (size_t m = 0; m < g->n; m++) {
            uint32_t u;
            if (strcmp (g->v[m].name, ai->name)
                || !(u = held_units (&g->v[m], jn->gres, &left)))
                continue;
            if (urun_add (s, sn->slot0 + m, u, end) < 0)
                return -1;
        }
    }
    return 0;
}

/* Does entry g stand for j's request? */
static bool sgres_alike (const struct bf_sgres *g, const struct job *j)
{
    const struct job_gres *a = &g->key, *b = &j->gres;

    if (g->part != j->part || g->exclusive != j->req.exclusive
        || a->per_node.n != b->per_node.n
        || !gres_req_same (&a->per_task, &b->per_task)
        || !gres_req_same (&a->per_job, &b->per_job))
        return false;
    for (size_t i = 0; i < a->per_node.n; i++) /* fields, not bytes */
        if (!gres_req_same (&a->per_node.v[i], &b->per_node.v[i]))
            return false;
    return true;
}

int bf_gres_snap_job (struct bf_snap *s, const struct job *j, struct bf_sjob *v)
{
    struct bf_sgres *g;

    for (g = s->gres; g && !sgres_alike (g, j); g = g->next)
        ;
    if (!g) {
        if (!(g = calloc (1, sizeof (*g))))
            return -1;
        g->part = j->part;
        g->exclusive = j->req.exclusive;
        g->key = j->gres;
        g->key.gpu_bind = NULL; /* not the plan's, and not ours to free */
        g->next = s->gres;
        s->gres = g;
    }
    v->gres = g;
    return 0;
}
