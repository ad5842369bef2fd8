/* gres_sched.c - a job's generic resources in the scheduler; see
 * gres_sched.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "env.h"
#include "ctld.h"
#include "job/job.h"
#include "nodes/node.h"
#include "nodes/node_gres.h"
#include "nodes/part.h"
#include "proto.h"
#include "sched/gres_count.h"
#include "sched/gres_sched.h"

/* One of --gpus, --gpus-per-node, --gpus-per-task: at most one item. */
static int gpus_opt (const char *opt, const char *s, struct gres_req *out,
                     arbor_error_t *err)
{
    memset (out, 0, sizeof (*out));
    return s && *s ? gresspec_parse_gpu (opt, s, out, err) : 0;
}

int gres_req_parse (const char *gres, const char *gpus,
                    const char *gpus_per_node, const char *gpus_per_task,
                    struct job_gres *g, arbor_error_t *err)
{
    struct gres_req per_node;

    memset (g, 0, sizeof (*g));
    if (gres && *gres && strcmp (gres, "none")
        && gresspec_parse (gres, &g->per_node, err) < 0)
        return -1;
    if (gpus_opt ("--gpus", gpus, &g->per_job, err) < 0
        || gpus_opt ("--gpus-per-task", gpus_per_task, &g->per_task, err) < 0
        || gpus_opt ("--gpus-per-node", gpus_per_node, &per_node, err) < 0)
        return -1;
    if (per_node.count) {
        for (size_t i = 0; i < g->per_node.n; i++)
            if (!strcmp (g->per_node.v[i].name, "gpu")) {
                errno = EINVAL;
                return errprintf (err, "--gpus-per-node and --gres=gpu "
                                       "cannot both be given");
            }
        if (g->per_node.n == GRESSPEC_MAX) {
            errno = EINVAL;
            return errprintf (err, "too many generic resources");
        }
        g->per_node.v[g->per_node.n++] = per_node;
    }
    return 0;
}

static int gres_parse (const struct msg_job_alloc *req, struct job_gres *g,
                       arbor_error_t *err)
{
    if (gres_req_parse (req->gres, req->gpus, req->gpus_per_node,
                        req->gpus_per_task, g, err)
        < 0)
        return -1;
    g->cpus_per_gpu = req->cpus_per_gpu;
    g->mem_per_gpu = req->mem_per_gpu;
    if (req->gres_flags && *req->gres_flags) {
        g->enforce_binding = !strcasecmp (req->gres_flags, "enforce-binding");
        if (!g->enforce_binding
            && strcasecmp (req->gres_flags, "disable-binding")) {
            errno = EINVAL;
            return errprintf (err,
                              "invalid --gres-flags \"%.60s\": "
                              "enforce-binding or disable-binding",
                              req->gres_flags);
        }
    }
    return 0;
}

/* GPUs a node of j holds for one task, and in all without tasks. */
static uint64_t gpus_per_node (const struct job_gres *g)
{
    for (size_t i = 0; i < g->per_node.n; i++)
        if (!strcmp (g->per_node.v[i].name, "gpu"))
            return g->per_node.v[i].count;
    return 0;
}

/* --cpus-per-gpu and --mem-per-gpu, as cores and memory the request
 * already has words for. */
static void gres_fold (struct job *j)
{
    const struct job_gres *g = &j->gres;
    uint64_t node_gpus = gpus_per_node (g);

    if (g->cpus_per_gpu && g->per_task.count) {
        uint64_t c = g->cpus_per_gpu * g->per_task.count;
        if (c > j->req.cpus_per_task && c <= UINT32_MAX)
            j->req.cpus_per_task = (uint32_t)c;
    }
    if (g->cpus_per_gpu && node_gpus) {
        uint64_t c = g->cpus_per_gpu * node_gpus;
        if (c > j->req.mincpus && c <= UINT32_MAX)
            j->req.mincpus = (uint32_t)c;
    }
    if (g->mem_per_gpu && node_gpus && !j->req.mem_per_cpu_mb) {
        uint64_t m = g->mem_per_gpu * node_gpus;
        if (m > j->req.mem_mb)
            j->req.mem_mb = m;
    }
    if (g->mem_per_gpu && g->per_task.count && !j->req.mem_mb) {
        uint32_t cpt = j->req.cpus_per_task ? j->req.cpus_per_task : 1;
        uint64_t m = (g->mem_per_gpu * g->per_task.count + cpt - 1) / cpt;
        if (m > j->req.mem_per_cpu_mb)
            j->req.mem_per_cpu_mb = m;
    }
    j->req.gres_job =
        g->per_job.count > UINT32_MAX ? UINT32_MAX : (uint32_t)g->per_job.count;
}

int gres_job_init (const struct ctld *ctx, struct job *j,
                   const struct msg_job_alloc *req, arbor_error_t *err)
{
    arbor_error_t e;

    gres_job_clear (&j->gres);
    if (gres_parse (req, &j->gres, &e) < 0) {
        memset (&j->gres, 0, sizeof (j->gres));
        return errprintf (err,
                          "Invalid generic resource (gres) "
                          "specification: %s",
                          e.text);
    }
    for (size_t i = 0; i < j->gres.per_node.n; i++)
        if (!conf_gres_type (ctx->conf, j->gres.per_node.v[i].name)) {
            errno = EINVAL;
            return errprintf (err,
                              "Invalid generic resource (gres) specification: "
                              "'%s' is not in GresTypes",
                              j->gres.per_node.v[i].name);
        }
    if ((j->gres.per_task.count || j->gres.per_job.count)
        && !conf_gres_type (ctx->conf, "gpu")) {
        errno = EINVAL;
        return errprintf (err, "Invalid generic resource (gres) "
                               "specification: this cluster has no GPUs "
                               "(GresTypes has no gpu)");
    }
    if (req->gpu_bind && *req->gpu_bind
        && !(j->gres.gpu_bind = strdup (req->gpu_bind))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    gres_fold (j);
    return 0;
}

void gres_job_clear (struct job_gres *g)
{
    free (g->gpu_bind);
    memset (g, 0, sizeof (*g));
}

int gres_job_copy (struct job_gres *dst, const struct job_gres *src)
{
    *dst = *src;
    if (src->gpu_bind && !(dst->gpu_bind = strdup (src->gpu_bind))) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int gres_job_env (const struct ctld *ctx, const struct job *j, struct env *e)
{
    char key[PROTO_MAX_NAME + 32], idx[GRESALLOC_TEXT_MAX];

    for (size_t k = 0; k < j->nnodes; k++) {
        const struct gresalloc_item *it =
            j->nodes[k].gres ? gresalloc_find (j->nodes[k].gres, "gpu") : NULL;
        if (!it || !it->indexed)
            continue;
        snprintf (key, sizeof (key), "SLURM_JOB_GPUS@%s",
                  ctx->nodes[j->nodes[k].node].name);
        if (env_set (e, key, gresalloc_indices (it, idx, sizeof (idx))) < 0)
            return -1;
    }
    return 0;
}

bool gres_job_wants (const struct job *j)
{
    const struct job_gres *g = &j->gres;

    return g->per_node.n || g->per_task.count || g->per_job.count;
}

/* Node n's items as counts (all: every unit free, as SELECT_EVER asks)
 * into c (n->gres.n entries). */
static void node_counts (const struct node *n, bool all, struct gres_count *c)
{
    for (size_t i = 0; i < n->gres.n; i++) {
        const struct node_gres_item *it = &n->gres.v[i];
        c[i] = (struct gres_count){ .name = it->name,
                                    .type = it->type,
                                    .total = it->count,
                                    .free = all ? it->count
                                                : it->count - it->nused };
    }
}

void gres_views (const struct ctld *ctx, const struct job *j,
                 enum select_mode mode, struct select_node *v)
{
    const struct part *p = &ctx->parts[j->part];
    bool all = mode == SELECT_EVER;

    if (!gres_job_wants (j))
        return;
    for (size_t k = 0; k < p->nnodes; k++) {
        const struct node *n = &ctx->nodes[p->nodes[k]];
        struct gres_count c[n->gres.n + 1];
        node_counts (n, all, c);
        v[k].gres_capped = true;
        v[k].gres_tasks =
            gres_count_tasks (c, n->gres.n, &j->gres, j->req.exclusive && !all);
        v[k].gres_units = gres_count_units (c, n->gres.n, &j->gres);
        if (j->gres.enforce_binding) { /* cores among the GPUs' only */
            uint64_t g = gpus_per_node (&j->gres) + j->gres.per_task.count;
            uint32_t near =
                node_gres_near_cpus (&n->gres, "gpu", g ? g : 1, all,
                                     all ? NULL : n->cores, n->cpus);
            if (near < v[k].free_cpus)
                v[k].free_cpus = near;
            if (all && near < v[k].cpus)
                v[k].cpus = near;
        }
    }
}

bool gres_node_fits (const struct node *n, const struct job *j, uint32_t tasks,
                     uint32_t share)
{
    struct gres_count c[n->gres.n + 1];

    if (!gres_job_wants (j))
        return true;
    node_counts (n, false, c);
    if (gres_count_tasks (c, n->gres.n, &j->gres, j->req.exclusive) < tasks)
        return false;
    return !share
           || gres_count_units (c, n->gres.n, &j->gres)
                  >= share + (j->gres.per_task.count * tasks);
}

int gres_job_take (struct node *n, const struct job *j, uint32_t tasks,
                   uint32_t share, struct gresalloc **out)
{
    const struct job_gres *g = &j->gres;
    struct gresalloc *a;
    int rc = 0;

    *out = NULL;
    if (!gres_job_wants (j) && !(j->req.exclusive && n->gres.n))
        return 0;
    if (!(a = calloc (1, sizeof (*a)))) {
        errno = ENOMEM;
        return -1;
    }
    if (j->req.exclusive) {
        node_gres_all (&n->gres, a);
        rc = node_gres_retake (&n->gres, a);
    } else {
        for (size_t i = 0; i < g->per_node.n && rc == 0; i++)
            rc = node_gres_take (&n->gres, g->per_node.v[i].name,
                                 g->per_node.v[i].type, g->per_node.v[i].count,
                                 a);
        if (rc == 0 && g->per_task.count)
            rc = node_gres_take (&n->gres, "gpu", g->per_task.type,
                                 g->per_task.count * tasks, a);
        if (rc == 0 && share)
            rc = node_gres_take (&n->gres, "gpu", g->per_job.type, share, a);
    }
    if (rc < 0) {
        int e = errno;
        node_gres_give (&n->gres, a);
        free (a);
        errno = e;
        return -1;
    }
    *out = a;
    return 0;
}

/* "gres/NAME[:TYPE]:COUNT" of one request item, appended at *at. */
static void tres_item (char *buf, size_t len, size_t *at, const char *name,
                       const char *type, uint64_t count)
{
    if (*at < len)
        *at += (size_t)snprintf (buf + *at, len - *at, "%sgres/%s%s%s:%llu",
                                 *at ? "," : "", name, *type ? ":" : "", type,
                                 (unsigned long long)count);
}

static char *tres_text (const struct gres_req *v, size_t n)
{
    char buf[1024] = "";
    size_t at = 0;

    for (size_t i = 0; i < n; i++)
        if (v[i].count)
            tres_item (buf, sizeof (buf), &at, v[i].name, v[i].type,
                       v[i].count);
    return strdup (buf);
}

/* Units held in all, by name and by name:type. */
struct tally {
    char key[96];
    uint64_t n;
};

static void tally_add (struct tally *t, size_t *nt, size_t max, const char *key,
                       uint64_t n)
{
    for (size_t i = 0; i < *nt; i++)
        if (!strcmp (t[i].key, key)) {
            t[i].n += n;
            return;
        }
    if (*nt < max) {
        snprintf (t[*nt].key, sizeof (t[*nt].key), "%s", key);
        t[(*nt)++].n = n;
    }
}

/* The type of unit idx of name on node n; NULL none. */
static const char *unit_type (const struct node *n, const char *name,
                              uint32_t idx)
{
    for (size_t i = 0; i < n->gres.n; i++) {
        const struct node_gres_item *it = &n->gres.v[i];
        if (!strcmp (it->name, name) && idx >= it->base
            && idx - it->base < it->count)
            return it->type;
    }
    return NULL;
}

static char *alloc_text (const struct ctld *ctx, const struct job *j)
{
    struct tally t[32];
    size_t nt = 0, at = 0;
    char buf[2048] = "", key[96];

    for (size_t k = 0; k < j->nnodes; k++) {
        const struct gresalloc *a = j->nodes[k].gres;
        const struct node *n = &ctx->nodes[j->nodes[k].node];
        for (size_t i = 0; a && i < a->n; i++) {
            const struct gresalloc_item *it = &a->v[i];
            tally_add (t, &nt, 32, it->name, it->count);
            for (uint32_t x = 0; it->indexed && x < GRESALLOC_IDX_MAX; x++) {
                const char *type;
                if (!gresalloc_has (it, x)
                    || !(type = unit_type (n, it->name, x)))
                    continue;
                snprintf (key, sizeof (key), "%s:%s", it->name, type);
                tally_add (t, &nt, 32, key, 1);
            }
        }
    }
    for (size_t i = 0; i < nt && at < sizeof (buf); i++)
        at += (size_t)snprintf (buf + at, sizeof (buf) - at, "%sgres/%s=%llu",
                                at ? "," : "", t[i].key,
                                (unsigned long long)t[i].n);
    return strdup (buf);
}

/* What j holds on each node, as gresalloc.h writes it or (ctx given) as
 * scontrol show job -d shows it; NULL ENOMEM. */
static char **node_texts (const struct ctld *ctx, const struct job *j);

int gres_job_node_texts (const struct job *j, struct msg_job_rec *r)
{
    bool held = false;
    char **v;

    for (size_t k = 0; k < j->nnodes; k++)
        held |= j->nodes[k].gres != NULL;
    if (!held || r->node_gres)
        return 0;
    if (!(v = node_texts (NULL, j))) {
        errno = ENOMEM;
        return -1;
    }
    r->node_gres = v;
    r->node_gres_count = (uint32_t)j->nnodes;
    return 0;
}

static char **node_texts (const struct ctld *ctx, const struct job *j)
{
    char **v = calloc (j->nnodes + 1, sizeof (char *));

    for (size_t k = 0; v && k < j->nnodes; k++) {
        const struct gresalloc *a = j->nodes[k].gres;
        if (!(v[k] = malloc (a ? GRESALLOC_TEXT_MAX : 1))) {
            for (size_t i = 0; i < k; i++)
                free (v[i]);
            free (v);
            return NULL;
        }
        v[k][0] = '\0';
        if (a && ctx)
            node_gres_held_text (&ctx->nodes[j->nodes[k].node].gres, a, v[k],
                                 GRESALLOC_TEXT_MAX);
        else if (a)
            gresalloc_text (a, v[k], GRESALLOC_TEXT_MAX);
    }
    return v;
}

int gres_job_rec (const struct ctld *ctx, const struct job *j,
                  struct msg_job_rec *r)
{
    const struct job_gres *g = &j->gres;
    bool held = false;

    for (size_t k = 0; k < j->nnodes; k++)
        held |= j->nodes[k].gres != NULL;
    if (!held && !gres_job_wants (j))
        return 0; /* the fields stay out of the answer */
    if (!(r->tres_per_node = tres_text (g->per_node.v, g->per_node.n))
        || !(r->tres_per_job = tres_text (&g->per_job, 1))
        || !(r->tres_per_task = tres_text (&g->per_task, 1))
        || !(r->gres_alloc = held ? alloc_text (ctx, j) : strdup (""))
        || gres_job_node_texts (j, r) < 0
        || (held && !(r->node_gres_shown = node_texts (ctx, j))))
        goto nomem;
    r->node_gres_shown_count = held ? (uint32_t)j->nnodes : 0;
    return 0;
nomem:
    errno = ENOMEM;
    return -1;
}
