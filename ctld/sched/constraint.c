/* constraint.c - a job's -C/--constraint; see constraint.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"
#include "featspec.h"
#include "job/job.h"
#include "nodes/node.h"
#include "nodes/node_features.h"
#include "nodes/part.h"
#include "sched/constraint.h"

/* The bracket of a matching OR ([a|b]), or -1: the first FEAT_MATCH
 * whose inside has no counts. */
static int match_or (const struct featspec *f)
{
    for (size_t i = 0; i < f->n; i++) {
        const struct featspec_node *m = &f->v[i];
        int k = m->kind == FEAT_MATCH ? m->left : -1;
        if (k >= 0
            && (f->v[k].kind == FEAT_OR
                || (f->v[k].kind == FEAT_NAME && !f->v[k].count)))
            return (int)i;
    }
    return -1;
}

/* The alt-th name of the OR tree at i (left to right), or NULL; *seen
 * counts the names passed. */
static const char *or_name (const struct featspec *f, int i, size_t alt,
                            size_t *seen)
{
    const struct featspec_node *v = &f->v[i];
    const char *s;

    if (v->kind == FEAT_NAME)
        return (*seen)++ == alt ? v->name : NULL;
    if ((s = or_name (f, v->left, alt, seen)))
        return s;
    return or_name (f, v->right, alt, seen);
}

static const char *alt_name (const struct job *j, size_t alt)
{
    int m = j->feat.n ? match_or (&j->feat) : -1;
    size_t seen = 0;

    return m < 0 ? NULL : or_name (&j->feat, j->feat.v[m].left, alt, &seen);
}

size_t constraint_alts (const struct job *j)
{
    size_t n = 0;

    while (alt_name (j, n))
        n++;
    return n ? n : 1;
}

/* Nodes the counts name, in all. */
static uint64_t counted_nodes (const struct featspec *f)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].kind == FEAT_NAME)
            sum += f->v[i].count;
    return sum;
}

int constraint_job_init (struct job *j, const char *text, arbor_error_t *err)
{
    arbor_error_t e;
    uint64_t counted, room;

    featspec_clear (&j->feat);
    if (featspec_parse (text, &j->feat, &e) < 0) {
        if (errno == ENOMEM)
            return errprintf (err, "out of memory");
        return errprintf (err, "Invalid feature specification: %s", e.text);
    }
    counted = counted_nodes (&j->feat);
    room = j->req.nnodes ? j->req.nnodes : j->req.ntasks;
    if (counted > room) {
        featspec_clear (&j->feat);
        errno = EINVAL;
        return errprintf (err,
                          "Invalid feature specification: its counts name "
                          "%llu nodes, more than the job's %llu (-N)",
                          (unsigned long long)counted,
                          (unsigned long long)room);
    }
    return 0;
}

int constraint_check (const struct ctld *ctx, const struct job *j,
                      arbor_error_t *err)
{
    const struct part *p = &ctx->parts[j->part];

    for (size_t i = 0; i < j->feat.n; i++) {
        const char *name = j->feat.v[i].name;
        size_t k = 0;
        if (j->feat.v[i].kind != FEAT_NAME)
            continue;
        while (k < p->nnodes
               && !node_has_feature (&ctx->nodes[p->nodes[k]], name))
            k++;
        if (k == p->nnodes) {
            errno = EINVAL;
            return errprintf (err,
                              "Invalid feature specification: no node of "
                              "partition %s has feature '%s'",
                              p->name, name);
        }
    }
    return 0;
}

/* Mark as required 'need' more nodes of v that have 'name' (those
 * already required count), preferring those with free cores. */
static bool require_count (const struct ctld *ctx, const struct part *p,
                           const char *name, uint32_t need,
                           enum select_mode mode, struct select_node *v)
{
    for (size_t k = 0; k < p->nnodes && need; k++)
        if (v[k].required && node_has_feature (&ctx->nodes[p->nodes[k]], name))
            need--;
    for (int pass = 0; pass < 2 && need; pass++) {
        for (size_t k = 0; k < p->nnodes && need; k++) {
            const struct node *n = &ctx->nodes[p->nodes[k]];
            bool now_free = v[k].usable && v[k].free_cpus > 0;
            if (v[k].required || v[k].excluded || !node_has_feature (n, name))
                continue;
            if (pass == 0 && mode == SELECT_NOW && !now_free)
                continue; /* busy or down ones only if nothing else */
            v[k].required = true;
            need--;
        }
    }
    return need == 0;
}

bool constraint_views (const struct ctld *ctx, const struct job *j, size_t alt,
                       enum select_mode mode, struct select_node *v)
{
    const struct part *p = &ctx->parts[j->part];
    const char *only = alt_name (j, alt);

    if (!j->feat.n)
        return true;
    for (size_t k = 0; k < p->nnodes; k++) {
        const struct node *n = &ctx->nodes[p->nodes[k]];
        if (!featspec_node_ok (&j->feat, (const char *const *)n->feat, n->nfeat)
            || (only && !node_has_feature (n, only)))
            v[k].excluded = true;
    }
    for (size_t i = 0; i < j->feat.n; i++) {
        const struct featspec_node *t = &j->feat.v[i];
        if (t->kind == FEAT_NAME && t->count
            && !require_count (ctx, p, t->name, t->count, mode, v))
            return false;
    }
    return true;
}
