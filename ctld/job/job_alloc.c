/* job_alloc.c - what a job's run holds on its nodes.
 *
 * job_start() takes the selection's cores and memory on each node (--mem
 * per node, or --mem-per-cpu times the cores taken there) and its
 * licenses; job_node_release() gives one node's share back once the
 * job's epilog is done there (term.c decides when); job_unrun() forgets a
 * run for a requeue; job_restore_alloc() takes a restored job's saved
 * share again. The state a run changes is jobstate.c's to set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"
#include "hostlist.h"
#include "job/cores.h"
#include "job/job.h"
#include "job/job_alloc.h"
#include "nodes/node.h"
#include "nodes/node_gres.h"
#include "nodes/part.h"
#include "sched/licenses.h"
#include "sched/select.h"
#include "state/persist.h"
#include "job/step.h"
#include "job/term.h" /* struct term_node: a run makes room for it */

void job_node_release (struct ctld *ctx, struct job *j, size_t k)
{
    struct job_node *jn = &j->nodes[k];
    struct node *n = &ctx->nodes[jn->node];

    if (jn->released)
        return;
    if (jn->cores)
        node_give_cores (ctx, jn->node, jn->cores);
    if (jn->gres)
        node_gres_give (&n->gres, jn->gres);
    n->alloc_memory -=
        jn->mem_mb <= n->alloc_memory ? jn->mem_mb : n->alloc_memory;
    jn->released = true;
    licenses_node_released (ctx, j); /* after its last node's share */
    persist_job (ctx, j);
}

/* Give back what job_start took. */
static void job_release (struct ctld *ctx, struct job *j)
{
    for (size_t i = 0; i < j->nnodes; i++)
        job_node_release (ctx, j, i);
}

static char *job_make_nodelist (const struct ctld *ctx, const struct job *j)
{
    struct hostlist *hl = hostlist_create (NULL, NULL);
    char *s = NULL;

    if (!hl)
        return NULL;
    for (size_t i = 0; i < j->nnodes; i++)
        if (hostlist_append (hl, ctx->nodes[j->nodes[i].node].name) < 0)
            goto out;
    s = hostlist_ranged (hl);
out:
    hostlist_destroy (hl);
    return s;
}

/* The cores of jn on node n: those local to its GPUs first (gres.conf
 * Cores=, NVML), only those with --gres-flags=enforce-binding. */
static int job_take_cores (struct node *n, const struct job *j,
                           struct job_node *jn)
{
    uint8_t *near;
    int rc;

    if (!jn->gres || !(near = calloc (n->cpus ? n->cpus : 1, 1)))
        return node_take_cores (n, jn->cpus, jn->cores);
    if (node_gres_cpus (&n->gres, jn->gres, near, n->cpus) == 0)
        rc = node_take_cores (n, jn->cpus, jn->cores); /* none said */
    else
        rc = node_take_cores_near (n, jn->cpus, near, j->gres.enforce_binding,
                                   jn->cores);
    free (near);
    return rc;
}

static int job_take (struct ctld *ctx, struct job *j,
                     const struct select_result *res)
{
    const struct part *p = &ctx->parts[j->part];

    for (size_t i = 0; i < res->nnodes; i++) {
        struct job_node *jn = &j->nodes[i];
        struct node *n;
        jn->node = p->nodes[res->idx[i]];
        n = &ctx->nodes[jn->node];
        jn->cpus = res->cpus[i];
        jn->tasks = res->tasks[i];
        jn->ncores = n->cpus;
        jn->released = true; /* nothing taken yet */
        j->nnodes = i + 1;
        if (!(jn->cores = calloc (n->cpus, 1))
            || !(jn->step_cores = calloc (n->cpus, 1)))
            return -1;
        if (gres_job_take (n, j, jn->tasks,
                           res->gres_share ? res->gres_share[i] : 0, &jn->gres)
            < 0) {
            if (errno == ENOSPC) /* taken since the selection: not ENOMEM */
                errno = EBUSY;
            return -1;
        }
        if (job_take_cores (n, j, jn) < 0) {
            memset (jn->cores, 0, n->cpus);
            if (jn->gres)
                node_gres_give (&n->gres, jn->gres);
            free (jn->gres);
            jn->gres = NULL;
            return -1;
        }
        jn->mem_mb = select_node_mem (&j->req, jn->cpus);
        n->alloc_memory += jn->mem_mb;
        jn->released = false;
    }
    return 0;
}

/* Free what a start made (the shares are given back already). */
static void job_unstart (struct job *j)
{
    for (size_t i = 0; i < j->nnodes; i++) {
        free (j->nodes[i].cores);
        free (j->nodes[i].step_cores);
        free (j->nodes[i].gres);
        free (j->nodes[i].step_gres);
    }
    free (j->nodes);
    free (j->term);
    free (j->nodelist);
    j->nodes = NULL;
    j->term = NULL;
    j->nodelist = NULL;
    j->nnodes = 0;
}

int job_start (struct ctld *ctx, struct job *j, const struct select_result *res)
{
    size_t n = res->nnodes ? res->nnodes : 1;

    if (!(j->nodes = calloc (n, sizeof (*j->nodes))))
        return -1;
    if (!(j->term = calloc (n, sizeof (*j->term)))) {
        free (j->nodes);
        j->nodes = NULL;
        return -1;
    }
    if (job_take (ctx, j, res) < 0
        || !(j->nodelist = job_make_nodelist (ctx, j))
        || licenses_take (ctx, j) < 0) {
        int e = errno == EAGAIN || errno == EBUSY ? errno : ENOMEM;
        job_release (ctx, j);
        job_unstart (j);
        errno = e;
        return -1;
    }
    return 0; /* RUNNING is jobstate.c's to say (JS_ALLOCATE) */
}

/* Take node k's saved cores and memory again. */
static int job_retake (struct ctld *ctx, struct job *j, size_t k,
                       arbor_error_t *err)
{
    struct job_node *jn = &j->nodes[k];
    struct node *n = &ctx->nodes[jn->node];

    for (uint32_t c = 0; c < n->cpus; c++)
        if (jn->cores[c] && n->cores[c]) {
            errno = EBUSY;
            return errprintf (err, "core %u of %s is another job's", c,
                              n->name);
        }
    for (uint32_t c = 0; c < n->cpus; c++)
        if (jn->cores[c]) {
            n->cores[c] = 1;
            n->alloc_cpus++;
        }
    n->alloc_memory += jn->mem_mb;
    jn->released = false;
    return 0;
}

int job_restore_alloc (struct ctld *ctx, struct job *j, size_t n,
                       const size_t *node, const uint32_t *cpus,
                       const uint32_t *tasks, char *const *cores,
                       const uint32_t *mem_mb, const uint32_t *released,
                       arbor_error_t *err)
{
    if (!(j->nodes = calloc (n, sizeof (*j->nodes)))
        || !(j->term = calloc (n, sizeof (*j->term))))
        goto nomem;
    for (size_t k = 0; k < n; k++) {
        struct job_node *jn = &j->nodes[k];
        const struct node *nd = &ctx->nodes[node[k]];
        jn->node = node[k];
        jn->cpus = cpus[k];
        jn->tasks = tasks[k];
        jn->ncores = nd->cpus;
        jn->mem_mb = mem_mb[k];
        jn->released = true;
        j->nnodes = k + 1;
        if (!(jn->cores = calloc (nd->cpus ? nd->cpus : 1, 1))
            || !(jn->step_cores = calloc (nd->cpus ? nd->cpus : 1, 1)))
            goto nomem;
        if (cores_mask_parse (cores[k], jn->cores, nd->cpus) < 0) {
            errno = EINVAL;
            errprintf (err, "cores '%s' of %s", cores[k], nd->name);
            goto undo;
        }
        if (!released[k] && job_retake (ctx, j, k, err) < 0)
            goto undo;
    }
    if (!(j->nodelist = job_make_nodelist (ctx, j)))
        goto nomem;
    if (j->range.max) { /* -N MIN-MAX: what the run got (sched_range.c) */
        uint32_t total = 0;
        for (size_t k = 0; k < n; k++)
            total += tasks[k];
        j->req.nnodes = (uint32_t)n;
        if (j->range.per_node_tasks)
            j->req.ntasks = total;
    }
    return 0;
nomem:
    errno = ENOMEM;
    errprintf (err, "out of memory");
undo:;
    int e = errno;
    job_release (ctx, j); /* the caller destroys j */
    errno = e;
    return -1;
}

int job_restore_gres (struct ctld *ctx, struct job *j, char *const *gres,
                      size_t n, arbor_error_t *err)
{
    for (size_t k = 0; k < n && k < j->nnodes; k++) {
        struct job_node *jn = &j->nodes[k];
        struct node *nd = &ctx->nodes[jn->node];
        arbor_error_t e;
        if (!gres[k] || !*gres[k])
            continue;
        if (!(jn->gres = malloc (sizeof (*jn->gres))))
            return errprintf (err, "out of memory");
        if (gresalloc_parse (gres[k], jn->gres, &e) < 0)
            return errprintf (err, "node %s: %s", nd->name, e.text);
        if (!jn->released && node_gres_retake (&nd->gres, jn->gres) < 0)
            return errprintf (err, "node %s: resources %s are another job's",
                              nd->name, gres[k]);
    }
    return 0;
}

void job_unrun (struct ctld *ctx, struct job *j)
{
    steps_release (j);
    job_release (ctx, j);
    job_unstart (j);
}
