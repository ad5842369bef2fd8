/* step_layout.c - where a new step runs inside its job's allocation:
 * which job nodes, how many tasks and cores on each (see step.c's head
 * for the rules). Three cases:
 *   - plain (neither -N nor -n nor -w/-x nor --mem): the job's own task
 *     layout over every job node, all the job's cores there;
 *   - a listed layout (node_tasks: srun -m arbitrary): those nodes;
 *   - else select.c over the job's nodes, the job's free cores and memory
 *     being the capacities.
 * A step whose cores are held by others fails with EBUSY (BUSY_TEXT).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/counts.h"
#include "ctld.h"
#include "hostlist.h"
#include "job/job.h"
#include "nodes/node.h"
#include "job/step.h"
#include "job/step_layout.h"
#include "job/steprec.h"

/* Mark the job nodes named by 'expr' in 'mask'. */
static int step_mark (const struct ctld *ctx, const struct job *j,
                      const char *expr, struct select_node *v, bool req,
                      size_t *count, arbor_error_t *err)
{
    struct hostlist *hl;
    int rc = 0;

    *count = 0;
    if (!expr || !expr[0])
        return 0;
    if (!(hl = nodes_hostlist (ctx, expr, err)))
        return -1;
    for (size_t i = 0; i < hostlist_count (hl) && rc == 0; i++) {
        const char *h = hostlist_nth (hl, i);
        size_t k;
        for (k = 0; k < j->nnodes; k++)
            if (strcmp (ctx->nodes[j->nodes[k].node].name, h) == 0)
                break;
        if (k == j->nnodes) {
            errno = EINVAL;
            rc = errprintf (err, "node %s is not in job %u's allocation", h,
                            j->id);
        } else if (req && !v[k].required) {
            v[k].required = true;
            (*count)++;
        } else if (!req)
            v[k].excluded = true;
    }
    hostlist_destroy (hl);
    return rc;
}

/* How a step shares the job's cores with its other steps. */
enum step_share {
    SHARE_WHOLE,   /* default: all the job's cores on each of its nodes,
                      none held by another step */
    SHARE_EXACT,   /* --exact, --exclusive: the cores it asks for */
    SHARE_OVERLAP, /* --overlap: cores other steps hold too */
};

static enum step_share step_share_of (const struct msg_step_create *req)
{
    return req->overlap                   ? SHARE_OVERLAP
           : req->exact || req->exclusive ? SHARE_EXACT
                                          : SHARE_WHOLE;
}

/* The cores of job node jn a new step may take now. */
static uint32_t step_free_cpus (const struct job_node *jn, enum step_share sh)
{
    switch (sh) {
    case SHARE_OVERLAP: return jn->cpus;
    case SHARE_WHOLE: return jn->step_cpus ? 0 : jn->cpus;
    default: return jn->cpus - jn->step_cpus;
    }
}

/* Views of the job's nodes for select.c. */
static struct select_node *step_views (const struct ctld *ctx,
                                       const struct job *j, enum step_share sh)
{
    struct select_node *v = calloc (j->nnodes ? j->nnodes : 1, sizeof (*v));

    if (!v)
        return NULL;
    for (size_t k = 0; k < j->nnodes; k++) {
        const struct job_node *jn = &j->nodes[k];
        const struct node *n = &ctx->nodes[jn->node];
        uint64_t mem = jn->mem_mb ? jn->mem_mb : n->real_memory;
        v[k].name = n->name;
        v[k].cpus = jn->cpus;
        v[k].free_cpus = step_free_cpus (jn, sh);
        v[k].memory = mem;
        v[k].free_memory = sh == SHARE_OVERLAP     ? mem
                           : mem > jn->step_memory ? mem - jn->step_memory
                                                   : 0;
        v[k].usable = true;
    }
    return v;
}

/* The default step: the job's layout, all of its cores. */
static struct step *step_layout_default (const struct job *j,
                                         enum step_share sh, arbor_error_t *err)
{
    struct step *s;

    for (size_t k = 0; k < j->nnodes && sh != SHARE_OVERLAP; k++) {
        if (j->nodes[k].step_cpus > 0) {
            errno = EBUSY;
            errprintf (err, BUSY_TEXT);
            return NULL;
        }
    }
    if (!(s = step_alloc (j->nnodes)))
        return NULL;
    for (size_t k = 0; k < j->nnodes; k++) {
        s->jnodes[k] = k;
        s->tasks[k] = j->nodes[k].tasks;
        s->cpus[k] = j->nodes[k].cpus;
        s->ntasks += s->tasks[k];
    }
    return s;
}

/* Counts the job's allocation could never hold, refused naming the
 * field (counts.h; cpus_per_task 0 means the job's). */
static int step_check_counts (const struct ctld *ctx, const struct job *j,
                              const struct msg_step_create *req,
                              arbor_error_t *err)
{
    const struct counts_ask ask = {
        COUNTS_ASK_OF (req),
        .overcommit = req->overcommit || j->req.overcommit,
    };
    struct counts_room room = { .nnodes = j->nnodes };

    for (size_t k = 0; k < j->nnodes; k++) {
        const struct job_node *jn = &j->nodes[k];
        uint64_t m = jn->mem_mb ? jn->mem_mb : ctx->nodes[jn->node].real_memory;
        if (jn->cpus > room.node_cpus)
            room.node_cpus = jn->cpus;
        if (m > room.node_mem_mb)
            room.node_mem_mb = m;
        room.cpus += jn->cpus;
    }
    snprintf (room.node, sizeof (room.node), "job %u has on a node", j->id);
    snprintf (room.whole, sizeof (room.whole), "of job %u", j->id);
    return counts_check (&ask, &room, err);
}

static struct step *step_layout_select (const struct ctld *ctx,
                                        const struct job *j,
                                        const struct msg_step_create *req,
                                        arbor_error_t *err)
{
    enum step_share sh = step_share_of (req);
    struct select_node *v = step_views (ctx, j, sh);
    struct select_req sr = {
        .nnodes = req->nnodes,
        .ntasks = req->ntasks,
        .cpus_per_task =
            req->cpus_per_task ? req->cpus_per_task : j->req.cpus_per_task,
        .ntasks_per_node = req->ntasks_per_node,
        .mem_mb = req->mem_mb,
        .overcommit = req->overcommit || j->req.overcommit,
        .step_layout = true,
    };
    struct select_result res = { 0 };
    struct step *s = NULL;
    size_t nreq = 0, nexcl = 0;

    if (!v) {
        errprintf (err, "out of memory");
        return NULL;
    }
    if (step_mark (ctx, j, req->nodelist, v, true, &nreq, err) < 0
        || step_mark (ctx, j, req->exclude, v, false, &nexcl, err) < 0)
        goto out;
    if (sr.nnodes == 0 && sr.ntasks == 0 && nreq == 0)
        sr.ntasks = j->req.ntasks;
    if (select_normalize (&sr, nreq, err) < 0)
        goto out;
    if (select_nodes (v, j->nnodes, &sr, &res, err) < 0) {
        if (errno == EBUSY)
            errprintf (err, BUSY_TEXT);
        goto out;
    }
    if (!(s = step_alloc (res.nnodes)))
        goto out;
    for (size_t i = 0; i < res.nnodes; i++) {
        s->jnodes[i] = res.idx[i];
        s->tasks[i] = res.tasks[i];
        /* Slurm's default: every core the job has on the node */
        s->cpus[i] =
            req->exact || req->exclusive ? res.cpus[i] : v[res.idx[i]].cpus;
    }
    s->ntasks = res.ntasks;
    s->mem_mb = req->mem_mb;
out:
    select_result_clear (&res);
    free (v);
    return s;
}

/* The job node named 'name', or -1. */
static int step_job_node (const struct ctld *ctx, const struct job *j,
                          const char *name)
{
    for (size_t k = 0; k < j->nnodes; k++)
        if (!strcmp (ctx->nodes[j->nodes[k].node].name, name))
            return (int)k;
    return -1;
}

/* Check node_tasks against the nodes named, one count each, every node
 * the job's; mark the counts per job node in 'per' (zeroed). */
static int step_listed_counts (const struct ctld *ctx, const struct job *j,
                               const struct msg_step_create *req, uint32_t *per,
                               arbor_error_t *err)
{
    struct hostlist *hl;
    int rc = 0;

    if (!req->nodelist || !(hl = nodes_hostlist (ctx, req->nodelist, err)))
        return req->nodelist ? -1
                             : errprintf (err, "node_tasks without a "
                                               "node list");
    errno = EINVAL;
    if (hostlist_count (hl) != req->node_tasks_count)
        rc = errprintf (err, "%u task counts for %zu nodes",
                        req->node_tasks_count, hostlist_count (hl));
    for (size_t i = 0; rc == 0 && i < hostlist_count (hl); i++) {
        int k = step_job_node (ctx, j, hostlist_nth (hl, i));
        if (k < 0)
            rc = errprintf (err, "node %s is not in job %u's allocation",
                            hostlist_nth (hl, i), j->id);
        else if (req->node_tasks[i] == 0 || per[k] > 0)
            rc = errprintf (err, "node %s: %s", hostlist_nth (hl, i),
                            per[k] ? "named twice" : "no task");
        else
            per[k] = req->node_tasks[i];
    }
    hostlist_destroy (hl);
    errno = rc < 0 ? EINVAL : 0;
    return rc;
}

/* -m arbitrary: exactly node_tasks[i] tasks on the i-th node named. */
static struct step *step_layout_listed (const struct ctld *ctx,
                                        const struct job *j,
                                        const struct msg_step_create *req,
                                        arbor_error_t *err)
{
    enum step_share sh = step_share_of (req);
    uint32_t *per = calloc (j->nnodes ? j->nnodes : 1, sizeof (*per));
    uint32_t cpt =
        req->cpus_per_task ? req->cpus_per_task : j->req.cpus_per_task;
    bool oc = req->overcommit || j->req.overcommit;
    struct step *s = NULL;
    size_t n = 0, i = 0;

    if (!per || step_listed_counts (ctx, j, req, per, err) < 0)
        goto out;
    for (size_t k = 0; k < j->nnodes; k++) {
        const struct job_node *jn = &j->nodes[k];
        uint64_t need = oc ? cpt : (uint64_t)per[k] * cpt;
        if (per[k] && need > jn->cpus) {
            errno = EINVAL;
            errprintf (err, "%u task(s) of %u cpu(s) do not fit on %s", per[k],
                       cpt, ctx->nodes[jn->node].name);
            goto out;
        }
        if (per[k] && need > step_free_cpus (jn, sh)) {
            errno = EBUSY;
            errprintf (err, BUSY_TEXT);
            goto out;
        }
        n += per[k] > 0;
    }
    if (!(s = step_alloc (n)))
        goto out;
    for (size_t k = 0; k < j->nnodes; k++) {
        if (!per[k])
            continue;
        s->jnodes[i] = k;
        s->tasks[i] = per[k];
        s->cpus[i] = req->exact || req->exclusive ? (oc ? cpt : per[k] * cpt)
                                                  : j->nodes[k].cpus;
        s->ntasks += per[k];
        i++;
    }
    s->mem_mb = req->mem_mb;
out:
    free (per);
    return s;
}

struct step *step_layout (const struct ctld *ctx, const struct job *j,
                          const struct msg_step_create *req, arbor_error_t *err)
{
    bool plain = req->nnodes == 0 && req->ntasks == 0
                 && (!req->nodelist || !req->nodelist[0])
                 && (!req->exclude || !req->exclude[0]) && req->mem_mb == 0
                 && req->ntasks_per_node == 0
                 && (req->cpus_per_task == 0
                     || req->cpus_per_task == j->req.cpus_per_task);

    if (step_check_counts (ctx, j, req, err) < 0)
        return NULL;
    if (req->node_tasks_count > 0)
        return step_layout_listed (ctx, j, req, err);
    if (plain)
        return step_layout_default (j, step_share_of (req), err);
    return step_layout_select (ctx, j, req, err);
}
