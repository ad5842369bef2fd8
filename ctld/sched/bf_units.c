/* bf_units.c - units through the plan. See bf_units.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/bf_units.h"
#include "sched/bf_plan.h"
#include "sched/gres_count.h"

int bf_units_init (struct bf_units *u, const struct bf_snap *s)
{
    size_t n = s->nslots;
    uint32_t *none = calloc (n + 1, sizeof (*none)); /* its "memory" */

    memset (u, 0, sizeof (*u));
    u->s = s;
    if (!none || !(u->free = calloc (n + 1, sizeof (*u->free))))
        goto fail;
    for (size_t i = 0; i < n; i++)
        u->free[i] = s->slots[i].free;
    if (profile_init (&u->prof, n, s->now, u->free, none) < 0
        || profile_blocks (&u->prof, bf_block_span (s),
                           s->now + (time_t)s->bp.window * 60)
               < 0)
        goto fail;
    for (size_t i = 0; i < s->nuruns; i++) {
        const struct bf_sunits *r = &s->uruns[i];
        if (profile_release (&u->prof, bf_round (s, r->end), r->slot, r->units,
                             0)
            < 0)
            goto fail;
    }
    free (none);
    return 0;
fail:
    free (none);
    bf_units_free (u);
    errno = ENOMEM;
    return -1;
}

void bf_units_free (struct bf_units *u)
{
    if (u->prof.segs)
        profile_free (&u->prof);
    free (u->free);
    memset (u, 0, sizeof (*u));
}

uint64_t bf_units_need (const struct bf_sgres *g, const struct select_req *req)
{
    const struct job_gres *k = &g->key;
    uint64_t per_node = 0;

    for (size_t i = 0; i < k->per_node.n; i++)
        per_node += k->per_node.v[i].count;
    return per_node * (req->nnodes ? req->nnodes : 1)
           + k->per_task.count * req->ntasks + k->per_job.count;
}

void bf_units_window (struct bf_units *u, size_t i, time_t t1)
{
    if (u->s->nslots)
        (void)profile_window (&u->prof, i, t1, u->free, NULL);
}

/* Node's items with the window's free units into c. */
static void node_view (const struct bf_units *u, const struct bf_snode *nd,
                       struct gres_count *c)
{
    for (uint32_t m = 0; m < nd->nslots; m++) {
        c[m] = u->s->slots[nd->slot0 + m];
        c[m].free = u->free[nd->slot0 + m];
    }
}

void bf_units_node (const struct bf_units *u, size_t node,
                    const struct bf_sgres *g, uint32_t *tasks, uint32_t *units)
{
    const struct bf_snode *nd = &u->s->nodes[node];
    struct gres_count c[nd->nslots + 1];

    node_view (u, nd, c);
    *tasks = gres_count_tasks (c, nd->nslots, &g->key, g->exclusive);
    *units = gres_count_units (c, nd->nslots, &g->key);
}

int bf_units_reserve (struct bf_units *u, size_t node, const struct bf_sgres *g,
                      uint32_t tasks, uint32_t share, time_t t0, time_t t1)
{
    const struct bf_snode *nd = &u->s->nodes[node];
    struct gres_count c[nd->nslots + 1];
    uint32_t taken[nd->nslots + 1];

    node_view (u, nd, c);
    memset (taken, 0, sizeof (taken));
    /* The plan chose the node from this window: the units are there. */
    (void)gres_count_take (c, nd->nslots, &g->key, g->exclusive, tasks, share,
                           taken);
    for (uint32_t m = 0; m < nd->nslots; m++)
        if (taken[m]
            && profile_reserve (&u->prof, t0, t1, nd->slot0 + m, taken[m], 0)
                   < 0)
            return -1;
    return 0;
}
