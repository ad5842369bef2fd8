/* acct_tres.c - generic resources in sacct's TRES; see acct_tres.h. */
#include <stdio.h>
#include <string.h>

#include "acct_tres.h"
#include "gresalloc.h"
#include "gresspec.h"

struct tres_sum {
    char name[GRESSPEC_NAME_MAX + GRESSPEC_TYPE_MAX + 2];
    unsigned long long n;
};

static void sum_add (struct tres_sum *t, size_t *nt, const char *name,
                     const char *type, unsigned long long n)
{
    char key[sizeof (t->name)];

    snprintf (key, sizeof (key), "%s%s%s", name, type && *type ? ":" : "",
              type ? type : "");
    for (size_t i = 0; i < *nt; i++)
        if (!strcmp (t[i].name, key)) {
            t[i].n += n;
            return;
        }
    if (*nt < 32) {
        snprintf (t[*nt].name, sizeof (t[*nt].name), "%s", key);
        t[(*nt)++].n = n;
    }
}

static const char *sum_text (const struct tres_sum *t, size_t nt, char *buf,
                             size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < nt && at < len; i++)
        if (t[i].n)
            at += (size_t)snprintf (buf + at, len - at, ",gres/%s=%llu",
                                    t[i].name, t[i].n);
    return buf;
}

const char *acct_tres_gres_alloc (const struct msg_job_rec *r, char *buf,
                                  size_t len)
{
    struct tres_sum t[32];
    size_t nt = 0;

    for (uint32_t k = 0; k < r->node_gres_count; k++) {
        struct gresalloc a;
        if (gresalloc_parse (r->node_gres[k], &a, NULL) < 0)
            continue;
        for (size_t i = 0; i < a.n; i++)
            sum_add (t, &nt, a.v[i].name, NULL, a.v[i].count);
    }
    return sum_text (t, nt, buf, len);
}

/* A --gpus* option's items times 'times'. */
static void req_gpus (const char *opt, const char *s, unsigned long long times,
                      struct tres_sum *t, size_t *nt)
{
    struct gresspec g;

    if (s && *s && gresspec_parse_gpus (opt, s, &g, NULL) == 0)
        for (size_t i = 0; i < g.n; i++)
            sum_add (t, nt, "gpu", NULL, g.v[i].count * times);
}

const char *acct_tres_gres_req (const struct job_view *v, char *buf, size_t len)
{
    const struct msg_job_alloc *q = &v->req;
    unsigned long long nodes = v->rec.nnodes ? v->rec.nnodes : 1;
    struct tres_sum t[32];
    struct gresspec g;
    size_t nt = 0;

    if (q->gres && *q->gres && gresspec_parse (q->gres, &g, NULL) == 0)
        for (size_t i = 0; i < g.n; i++)
            sum_add (t, &nt, g.v[i].name, NULL, g.v[i].count * nodes);
    req_gpus ("--gpus-per-node", q->gpus_per_node, nodes, t, &nt);
    req_gpus ("--gpus-per-task", q->gpus_per_task,
              v->rec.ntasks ? v->rec.ntasks : 1, t, &nt);
    req_gpus ("--gpus", q->gpus, 1, t, &nt);
    return sum_text (t, nt, buf, len);
}
