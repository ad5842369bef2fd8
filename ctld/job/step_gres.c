/* step_gres.c - a step's share of its job's generic resources; see
 * step_gres.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"
#include "job/step.h"
#include "job/step_gres.h"
#include "sched/gres_sched.h"

/* Units of name the job holds on jn, and of those the ones free for a
 * step ('overlap': all of them). */
static uint64_t units (const struct job_node *jn, const char *name,
                       bool overlap, bool free_only)
{
    const struct gresalloc_item *it =
        jn->gres ? gresalloc_find (jn->gres, name) : NULL;
    const struct gresalloc_item *busy =
        jn->step_gres ? gresalloc_find (jn->step_gres, name) : NULL;
    uint64_t n = 0;

    if (!it || !it->indexed)
        return it ? it->count : 0;
    for (uint32_t x = 0; x < GRESALLOC_IDX_MAX; x++)
        if (gresalloc_has (it, x)
            && (!free_only || overlap || !busy || !gresalloc_has (busy, x)))
            n++;
    return n;
}

/* Take 'count' free units of name on jn into out (lowest first). */
static void take (const struct job_node *jn, const char *name, uint64_t count,
                  bool overlap, struct gresalloc *out)
{
    const struct gresalloc_item *it = gresalloc_find (jn->gres, name);
    const struct gresalloc_item *busy =
        jn->step_gres ? gresalloc_find (jn->step_gres, name) : NULL;
    struct gresalloc_item *o = gresalloc_get (out, name, it->indexed);

    if (!o)
        return;
    if (!it->indexed) {
        o->count += count;
        return;
    }
    for (uint32_t x = 0; x < GRESALLOC_IDX_MAX && count; x++)
        if (gresalloc_has (it, x) && !gresalloc_has (o, x)
            && (overlap || !busy || !gresalloc_has (busy, x))) {
            gresalloc_set (o, x);
            count--;
        }
}

/* What node i of s needs: per node, per task, and its part of --gpus. */
static int node_need (const struct job_gres *g, uint32_t tasks, uint64_t share,
                      const char **names, uint64_t *counts, size_t *n)
{
    *n = 0;
    for (size_t k = 0; k < g->per_node.n; k++) {
        names[*n] = g->per_node.v[k].name;
        counts[(*n)++] = g->per_node.v[k].count;
    }
    if (g->per_task.count) {
        names[*n] = "gpu";
        counts[(*n)++] = g->per_task.count * tasks;
    }
    if (share) {
        names[*n] = "gpu";
        counts[(*n)++] = share;
    }
    return 0;
}

static int node_take (struct job *j, struct step *s, size_t i,
                      const struct job_gres *g, uint64_t share,
                      arbor_error_t *err)
{
    struct job_node *jn = &j->nodes[s->jnodes[i]];
    const char *names[GRESSPEC_MAX + 2];
    uint64_t counts[GRESSPEC_MAX + 2], want;
    size_t n;

    node_need (g, s->tasks[i], share, names, counts, &n);
    if (!(s->gres[i] = calloc (1, sizeof (*s->gres[i]))))
        return errprintf (err, "out of memory");
    for (size_t k = 0; k < n; k++) {
        want = counts[k];
        for (size_t m = 0; m < k; m++) /* "gpu" may be asked twice */
            if (!strcmp (names[m], names[k]))
                want += counts[m];
        if (units (jn, names[k], false, false) < want) {
            errno = EINVAL;
            return errprintf (
                err,
                "the job holds %llu %s on a node of the step, "
                "the step asks %llu",
                (unsigned long long)units (jn, names[k], false, false),
                names[k], (unsigned long long)want);
        }
        if (units (jn, names[k], s->gres_overlap, true) < want) {
            errno = EBUSY;
            return errprintf (err,
                              "the job's %s are held by its other "
                              "steps",
                              names[k]);
        }
        take (jn, names[k], counts[k], s->gres_overlap, s->gres[i]);
    }
    return 0;
}

/* Hold s's units on node i against the job's other steps. */
static void hold (struct job *j, struct step *s, size_t i)
{
    struct job_node *jn = &j->nodes[s->jnodes[i]];
    const struct gresalloc *a = s->gres[i];

    for (size_t k = 0; a && !s->gres_overlap && k < a->n; k++) {
        struct gresalloc_item *b =
            gresalloc_get (jn->step_gres, a->v[k].name, a->v[k].indexed);
        for (uint32_t x = 0; b && x < GRESALLOC_IDX_MAX; x++)
            if (gresalloc_has (&a->v[k], x))
                gresalloc_set (b, x);
    }
}

int step_gres_take (struct job *j, struct step *s,
                    const struct msg_step_create *req, arbor_error_t *err)
{
    struct job_gres g;
    uint64_t left;

    if (gres_req_parse (req->gres, req->gpus, req->gpus_per_node,
                        req->gpus_per_task, &g, err)
        < 0)
        return -1;
    if (!gres_job_wants (&(struct job){ .gres = g }))
        return 0; /* uses all of the job's, shared */
    if (!(s->gres = calloc (s->nnodes, sizeof (*s->gres))))
        return errprintf (err, "out of memory");
    s->gres_overlap = req->overlap;
    s->gpus_per_task = (uint32_t)g.per_task.count;
    left = g.per_job.count;
    for (size_t i = 0; i < s->nnodes; i++) {
        struct job_node *jn = &j->nodes[s->jnodes[i]];
        uint64_t have = units (jn, "gpu", s->gres_overlap, true);
        uint64_t share = i + 1 == s->nnodes ? left : have < left ? have : left;
        if (!jn->step_gres
            && !(jn->step_gres = calloc (1, sizeof (*jn->step_gres))))
            goto nomem;
        if (node_take (j, s, i, &g, share, err) < 0)
            goto undo;
        left -= share;
    }
    for (size_t i = 0; i < s->nnodes; i++)
        hold (j, s, i);
    return 0;
nomem:
    errprintf (err, "out of memory");
    errno = ENOMEM;
undo:;
    int e = errno;
    for (size_t i = 0; i < s->nnodes; i++)
        free (s->gres[i]);
    free (s->gres);
    s->gres = NULL;
    errno = e;
    return -1;
}

void step_gres_release (struct job *j, struct step *s, size_t i)
{
    struct job_node *jn = &j->nodes[s->jnodes[i]];
    const struct gresalloc *a = s->gres ? s->gres[i] : NULL;

    for (size_t k = 0; a && jn->step_gres && !s->gres_overlap && k < a->n;
         k++) {
        struct gresalloc_item *b = (struct gresalloc_item *)gresalloc_find (
            jn->step_gres, a->v[k].name);
        for (uint32_t x = 0; b && x < GRESALLOC_IDX_MAX; x++)
            if (gresalloc_has (&a->v[k], x) && gresalloc_has (b, x)) {
                b->bits[x / 64] &= ~(1ull << (x % 64));
                b->count--;
            }
    }
}

char *step_gres_text (const struct job *j, const struct step *s, size_t i)
{
    const struct gresalloc *a =
        s->gres ? s->gres[i] : j->nodes[s->jnodes[i]].gres;
    char *buf = malloc (a ? GRESALLOC_TEXT_MAX : 1);

    if (buf) {
        buf[0] = '\0';
        if (a)
            gresalloc_text (a, buf, GRESALLOC_TEXT_MAX);
    }
    return buf;
}
