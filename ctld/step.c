/* step.c - job steps: layout inside the allocation, credential, completion.
 *
 * A step takes cores of its job's allocation that no other running step
 * uses. With neither -N nor -n (and no -w) a step runs the job's own task
 * layout over every job node and takes all of the job's cores there, so a
 * plain `arbor run` inside `arbor alloc -N 8` runs on all eight nodes and a
 * second one waits (EBUSY) until the first is over. Otherwise the step's
 * geometry goes through select.c over the job's nodes, with the job's cores
 * and memory as the capacities.
 *
 * A step is given specific cores on each node: the lowest of its job's
 * cores there that no other running step holds. The credential's claims
 * carry them as range strings ("0-1,4", one per step node, in step node
 * order) so that stepd can bind tasks to them (TaskPlugin=affinity).
 * Its memory limit (claims mem_mb, per node) is the step's --mem when
 * given, else the job's memory on the node; with --mem-per-cpu the job's
 * memory differs between nodes of different core counts, and the claims
 * carry the largest (one number for the credential).
 *
 * Each step gets a credential sealed with cred_seal() for the requesting
 * user; its nodes report completion one by one (STEP_COMPLETE with a node
 * name) or the launcher reports the whole step; the step's cores are freed
 * when all its nodes are done or the launcher said so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "acct_usage.h"
#include "conf.h"
#include "counts.h"
#include "cred.h"
#include "credkey.h"
#include "ctld.h"
#include "error.h"
#include "hostlist.h"
#include "ident.h"
#include "events.h"
#include "job.h"
#include "log.h"
#include "persist.h"
#include "node.h"
#include "proto.h"
#include "select.h"
#include "step.h"

#define BUSY_TEXT "step creation temporarily disabled"

void step_destroy (struct step *s)
{
    int saved = errno;

    if (!s)
        return;
    free (s->name);
    free (s->jnodes);
    free (s->tasks);
    free (s->cpus);
    if (s->cores)
        for (size_t i = 0; i < s->nnodes; i++)
            free (s->cores[i]);
    free (s->cores);
    free (s->done);
    free (s->nodelist);
    free (s);
    errno = saved;
}

static struct step *step_alloc (size_t n)
{
    struct step *s = calloc (1, sizeof (*s));

    if (!s)
        return NULL;
    s->nnodes = n;
    s->jnodes = calloc (n ? n : 1, sizeof (*s->jnodes));
    s->tasks = calloc (n ? n : 1, sizeof (*s->tasks));
    s->cpus = calloc (n ? n : 1, sizeof (*s->cpus));
    s->done = calloc (n ? n : 1, sizeof (*s->done));
    s->cores = calloc (n ? n : 1, sizeof (*s->cores));
    if (!s->jnodes || !s->tasks || !s->cpus || !s->done || !s->cores) {
        step_destroy (s);
        errno = ENOMEM;
        return NULL;
    }
    return s;
}

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

/* Give back step node i's cores and memory to the job (once). */
static void step_node_release (struct job *j, struct step *s, size_t i)
{
    struct job_node *jn = &j->nodes[s->jnodes[i]];
    uint64_t mem = s->mem_mb;

    if (s->done[i] || s->shadow) {
        s->done[i] = true;
        return;
    }
    jn->step_cpus -= s->cpus[i] <= jn->step_cpus ? s->cpus[i] : jn->step_cpus;
    jn->step_memory -= mem <= jn->step_memory ? mem : jn->step_memory;
    if (s->cores[i])
        for (uint32_t c = 0; c < jn->ncores; c++)
            if (s->cores[i][c])
                jn->step_cores[c] = 0;
    s->done[i] = true;
}

/* Step node i holds its cores and memory in the job (jn). */
static void step_node_hold (struct job_node *jn, const struct step *s, size_t i)
{
    for (uint32_t c = 0; c < jn->ncores; c++)
        jn->step_cores[c] |= s->cores[i][c];
    jn->step_cpus += s->cpus[i];
    jn->step_memory += s->mem_mb;
}

/* Take, on step node i, s->cpus[i] of the job's cores no step holds (an
 * --overlap step: the lowest of the job's cores, held by no one). */
static int step_node_take (struct job *j, struct step *s, size_t i)
{
    struct job_node *jn = &j->nodes[s->jnodes[i]];
    uint32_t got = 0;

    if (!(s->cores[i] = calloc (jn->ncores ? jn->ncores : 1, 1)))
        return -1;
    for (uint32_t c = 0; c < jn->ncores && got < s->cpus[i]; c++) {
        if (jn->cores[c] && (s->shadow || !jn->step_cores[c])) {
            s->cores[i][c] = 1;
            got++;
        }
    }
    if (got < s->cpus[i]) {
        errno = EBUSY; /* the counts said it fits: cannot happen */
        return -1;
    }
    if (!s->shadow)
        step_node_hold (jn, s, i);
    return 0;
}

/* Take the step's cores and memory on all its nodes, or nothing. */
static int step_take (struct job *j, struct step *s)
{
    for (size_t i = 0; i < s->nnodes; i++) {
        s->done[i] = true; /* not taken: nothing to give back */
        if (step_node_take (j, s, i) < 0) {
            int e = errno;
            for (size_t k = 0; k < i; k++)
                step_node_release (j, s, k);
            errno = e;
            return -1;
        }
        s->done[i] = false;
    }
    return 0;
}

/* The claims' core strings, one per step node. */
static int step_core_strings (const struct job *j, const struct step *s,
                              char ***out)
{
    char **v = calloc (s->nnodes + 1, sizeof (char *));

    if (!v)
        return -1;
    for (size_t i = 0; i < s->nnodes; i++) {
        const struct job_node *jn = &j->nodes[s->jnodes[i]];
        if (!(v[i] = cores_ranged (s->cores[i], jn->ncores))) {
            for (size_t k = 0; k < i; k++)
                free (v[k]);
            free (v);
            return -1;
        }
    }
    *out = v;
    return 0;
}

/* The step's memory limit per node for the credential (see top). */
static uint64_t step_mem_limit (const struct job *j, const struct step *s)
{
    uint64_t max = 0;

    if (s->mem_mb)
        return s->mem_mb;
    for (size_t i = 0; i < s->nnodes; i++)
        if (j->nodes[s->jnodes[i]].mem_mb > max)
            max = j->nodes[s->jnodes[i]].mem_mb;
    return max;
}

static int step_names (const struct ctld *ctx, const struct job *j,
                       struct step *s, struct msg_step_created *out)
{
    struct hostlist *hl = hostlist_create (NULL, NULL);
    int rc = -1;

    if (!hl || !(out->addrs = calloc (s->nnodes + 1, sizeof (char *))))
        goto out;
    for (size_t i = 0; i < s->nnodes; i++) {
        const struct node *n = &ctx->nodes[j->nodes[s->jnodes[i]].node];
        if (hostlist_append (hl, n->name) < 0
            || !(out->addrs[i] = strdup (n->addr)))
            goto out;
        out->addrs_count = (uint32_t)i + 1;
    }
    if (!(s->nodelist = hostlist_ranged (hl))
        || !(out->nodelist = strdup (s->nodelist)))
        goto out;
    rc = 0;
out:
    hostlist_destroy (hl);
    return rc;
}

/* The step's credential: the claims it binds, sealed (cred.h). */
static int step_seal (const struct ctld *ctx, const struct job *j,
                      const struct step *s, uid_t uid, gid_t gid,
                      struct msg_step_created *out, arbor_error_t *err)
{
    struct msg_cred_claims cl = {
        .job_id = j->id,
        .step_id = s->id,
        .uid = uid,
        .gid = gid,
        .nodelist = s->nodelist,
        .cpus = s->cpus,
        .cpus_count = (uint32_t)s->nnodes,
        .mem_mb = step_mem_limit (j, s),
        .tasks = s->tasks,
        .tasks_count = (uint32_t)s->nnodes,
        .io_key = out->io_key,
        .expires = (uint64_t)time (NULL) + ctx->conf->cred_expire,
        .cluster = ctx->conf->cluster_name,
        .restarts = j->restarts,
        .issued = (uint64_t)time (NULL), /* noded/revoke.h: revoke_unsure */
    };
    const struct ident *id =
        ident_get (ctx->idents, uid, gid, ev_now (ctx->loop));
    int rc;

    if (!id || step_core_strings (j, s, &cl.cores) < 0) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    cl.user = id->user;
    cl.gids = id->gids;
    cl.gids_count = id->ngids;
    cl.home = id->home;
    cl.cores_count = (uint32_t)s->nnodes;
    rc = cred_seal (credkey_key (ctx->credkey), &cl, &out->cred, err);
    for (size_t i = 0; i < s->nnodes; i++)
        free (cl.cores[i]);
    free (cl.cores);
    return rc;
}

/* The step's launch ticket: a credential of its identity and I/O key
 * valid on node zero alone, small enough for a CONN_HELLO (conn.h). The
 * launcher opens its session to node zero with it instead of a munge
 * token: node zero opens it (it holds the key) and so knows the peer
 * holds the I/O key, which only the step's requester was given (sealed,
 * serve.c). Without one ("" on failure) the launcher uses munge. */
static void step_ticket (const struct ctld *ctx, const struct job *j,
                         const struct step *s, uid_t uid, gid_t gid,
                         struct msg_step_created *out)
{
    const struct node *n0 = &ctx->nodes[j->nodes[s->jnodes[0]].node];
    struct msg_cred_claims cl = {
        .job_id = j->id,
        .step_id = s->id,
        .uid = uid,
        .gid = gid,
        .user = "",
        .nodelist = n0->name,
        .io_key = out->io_key,
        .expires = (uint64_t)time (NULL) + ctx->conf->cred_expire,
        .cluster = ctx->conf->cluster_name,
        .home = "",
        .restarts = j->restarts,
        .issued = (uint64_t)time (NULL),
    };
    arbor_error_t err;

    if (cred_seal (credkey_key (ctx->credkey), &cl, &out->launch_ticket, &err)
            < 0
        || strlen (out->launch_ticket) > PROTO_MAX_TOKEN) {
        free (out->launch_ticket);
        out->launch_ticket = NULL;
    }
}

static int step_fill (const struct ctld *ctx, const struct job *j,
                      struct step *s, uid_t uid, gid_t gid,
                      struct msg_step_created *out, arbor_error_t *err)
{
    out->job_id = j->id;
    out->step_id = s->id;
    out->noded_port = ctx->conf->noded_port;
    out->tree_width = ctx->conf->tree_width;
    out->io_key = calloc (1, 33);
    out->tasks = calloc (s->nnodes + 1, sizeof (uint32_t));
    out->cpus = calloc (s->nnodes + 1, sizeof (uint32_t));
    out->job_nodelist = strdup (j->nodelist ? j->nodelist : "");
    out->cluster_name =
        strdup (ctx->conf->cluster_name ? ctx->conf->cluster_name : "arbor");
    if (!out->io_key || !out->tasks || !out->cpus || !out->job_nodelist
        || !out->cluster_name || step_names (ctx, j, s, out) < 0) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    memcpy (out->tasks, s->tasks, s->nnodes * sizeof (uint32_t));
    memcpy (out->cpus, s->cpus, s->nnodes * sizeof (uint32_t));
    out->tasks_count = out->cpus_count = (uint32_t)s->nnodes;
    if (cred_io_key (out->io_key, 33) < 0)
        return errprintf (err, "cannot make an I/O key: %s", strerror (errno));
    if (s->nnodes > 0)
        step_ticket (ctx, j, s, uid, gid, out);
    return step_seal (ctx, j, s, uid, gid, out, err);
}

/* Add s to j's steps (the last). */
/* "0", or "batch" / "extern" / "interactive" for the special steps. */
static const char *step_label (const struct step *s, char *buf, size_t size)
{
    if (s->id >= STEP_ID_INTERACTIVE)
        return s->name;
    snprintf (buf, size, "%u", s->id);
    return buf;
}

static void step_started_event (const struct ctld *ctx, struct job *j,
                                const struct step *s)
{
    char id[16];

    job_event (ctx, j, "step %s started on %s", step_label (s, id, sizeof (id)),
               s->nodelist);
}

static void step_ended_event (const struct ctld *ctx, struct job *j,
                              const struct step *s)
{
    char id[16];

    job_event (ctx, j, "step %s ended", step_label (s, id, sizeof (id)));
}

static void step_link (struct job *j, struct step *s)
{
    struct step **pp;

    for (pp = &j->steps; *pp; pp = &(*pp)->next)
        ;
    *pp = s;
}

static int step_create_interactive (struct ctld *ctx, struct job *j,
                                    struct msg_step_created *out,
                                    arbor_error_t *err);

int step_create (struct ctld *ctx, struct job *j,
                 const struct msg_step_create *req, uid_t uid, gid_t gid,
                 struct msg_step_created *out, arbor_error_t *err)
{
    bool plain = req->nnodes == 0 && req->ntasks == 0
                 && (!req->nodelist || !req->nodelist[0])
                 && (!req->exclude || !req->exclude[0]) && req->mem_mb == 0
                 && req->ntasks_per_node == 0
                 && (req->cpus_per_task == 0
                     || req->cpus_per_task == j->req.cpus_per_task);
    struct step *s;

    if (req->interactive)
        return step_create_interactive (ctx, j, out, err);
    memset (out, 0, sizeof (*out));
    if (step_check_counts (ctx, j, req, err) < 0)
        return -1;
    if (req->node_tasks_count > 0)
        s = step_layout_listed (ctx, j, req, err);
    else if (plain)
        s = step_layout_default (j, step_share_of (req), err);
    else
        s = step_layout_select (ctx, j, req, err);
    if (!s)
        return -1;
    s->shadow = req->overlap; /* holds no core against the others */
    s->id = j->next_step_id;
    s->start_time = time (NULL);
    if (step_take (j, s) < 0) {
        int e = errno;
        step_destroy (s);
        errno = e;
        return errprintf (err, e == EBUSY ? BUSY_TEXT : "out of memory");
    }
    if (!(s->name = strdup (req->name ? req->name : ""))
        || step_fill (ctx, j, s, uid, gid, out, err) < 0) {
        int e = errno == EBUSY ? EPERM : errno;
        for (size_t i = 0; i < s->nnodes; i++)
            step_node_release (j, s, i);
        proto_clear (MSG_STEP_CREATED, out);
        step_destroy (s);
        errno = e ? e : ENOMEM;
        return -1;
    }
    j->next_step_id++;
    step_link (j, s);
    step_started_event (ctx, j, s);
    return 0;
}

/* A step of the controller's own (batch, extern) over the first n job
 * nodes, with 'tasks' tasks on each and all of the job's cores there,
 * holding none of them against the job's other steps. */
static struct step *step_own (const struct job *j, uint32_t id, size_t n,
                              uint32_t tasks, const char *name)
{
    struct step *s = step_alloc (n);

    if (!s)
        return NULL;
    s->id = id;
    s->shadow = true;
    s->start_time = time (NULL);
    if (!(s->name = strdup (name)))
        goto fail;
    for (size_t i = 0; i < n; i++) {
        const struct job_node *jn = &j->nodes[i];
        s->jnodes[i] = i;
        s->tasks[i] = tasks;
        s->cpus[i] = jn->cpus;
        s->ntasks += tasks;
        if (!(s->cores[i] = malloc (jn->ncores ? jn->ncores : 1)))
            goto fail;
        memcpy (s->cores[i], jn->cores, jn->ncores);
    }
    return s;
fail:
    step_destroy (s);
    errno = ENOMEM;
    return NULL;
}

/* Create j's own step 'id' (step_own), fill 'out'. */
static int step_create_own (struct ctld *ctx, struct job *j, uint32_t id,
                            size_t n, uint32_t tasks, const char *name,
                            struct msg_step_created *out, arbor_error_t *err)
{
    struct step *s;

    memset (out, 0, sizeof (*out));
    if (j->nnodes == 0) {
        errno = EINVAL;
        return errprintf (err, "no nodes");
    }
    if (!(s = step_own (j, id, n, tasks, name)))
        return errprintf (err, "out of memory");
    if (step_fill (ctx, j, s, j->uid, j->gid, out, err) < 0) {
        int e = errno ? errno : ENOMEM;
        proto_clear (MSG_STEP_CREATED, out);
        step_destroy (s);
        errno = e;
        return -1;
    }
    step_link (j, s);
    step_started_event (ctx, j, s);
    return 0;
}

int step_create_batch (struct ctld *ctx, struct job *j,
                       struct msg_step_created *out, arbor_error_t *err)
{
    return step_create_own (ctx, j, STEP_ID_BATCH, 1, 1, "batch", out, err);
}

int step_create_extern (struct ctld *ctx, struct job *j,
                        struct msg_step_created *out, arbor_error_t *err)
{
    return step_create_own (ctx, j, STEP_ID_EXTERN, j->nnodes, 0, "extern", out,
                            err);
}

/* salloc's shell on the job's first node (LaunchParameters=
 * use_interactive_step): one at a time, sharing the job's cores, as
 * Slurm's interactive step. */
static int step_create_interactive (struct ctld *ctx, struct job *j,
                                    struct msg_step_created *out,
                                    arbor_error_t *err)
{
    if (step_find (j, STEP_ID_INTERACTIVE)) {
        memset (out, 0, sizeof (*out));
        errno = EEXIST;
        return errprintf (err, "job %u already has an interactive step", j->id);
    }
    return step_create_own (ctx, j, STEP_ID_INTERACTIVE, 1, 1, "interactive",
                            out, err);
}

struct step *step_find (const struct job *j, uint32_t id)
{
    for (struct step *s = j->steps; s; s = s->next)
        if (s->id == id)
            return s;
    return NULL;
}

static void step_unlink (struct job *j, struct step *s)
{
    for (struct step **pp = &j->steps; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
}

int step_complete (struct job *j, struct step *s, const char *node,
                   const struct ctld *ctx)
{
    size_t i, left = 0;

    persist_job (ctx, j);
    if (!node || !node[0]) {
        for (i = 0; i < s->nnodes; i++)
            step_node_release (j, s, i);
        step_ended_event (ctx, j, s);
        acct_step_over (ctx, j, s, NULL);
        step_unlink (j, s);
        step_destroy (s);
        return 0;
    }
    for (i = 0; i < s->nnodes; i++)
        if (strcmp (ctx->nodes[j->nodes[s->jnodes[i]].node].name, node) == 0)
            break;
    if (i == s->nnodes) {
        errno = ENOENT;
        return -1;
    }
    step_node_release (j, s, i); /* this node's share, now */
    for (i = 0; i < s->nnodes; i++)
        if (!s->done[i])
            left++;
    if (left == 0) {
        step_ended_event (ctx, j, s);
        acct_step_over (ctx, j, s, NULL);
        step_unlink (j, s);
        step_destroy (s);
    }
    return 0;
}

void step_note_end (struct step *s, const struct msg_step_complete *m)
{
    int32_t exit_code = m->exit_code, signal = m->signal;

    if (!exit_code && !signal && m->rc > 0)
        exit_code = m->rc; /* a sender older than 2.6 */
    if (!s->ended
        || acct_end_code (exit_code, signal)
               > acct_end_code (s->exit_code, s->signal)) {
        s->exit_code = exit_code;
        s->signal = signal;
    }
    s->oom = s->oom || m->oom;
    s->ended = true;
}

void steps_release (struct job *j)
{
    while (j->steps) {
        struct step *s = j->steps;
        j->steps = s->next;
        step_destroy (s);
    }
    for (size_t k = 0; k < j->nnodes; k++) {
        j->nodes[k].step_cpus = 0;
        j->nodes[k].step_memory = 0;
        if (j->nodes[k].step_cores)
            memset (j->nodes[k].step_cores, 0, j->nodes[k].ncores);
    }
}

size_t steps_count (const struct job *j)
{
    size_t n = 0;

    for (const struct step *s = j->steps; s; s = s->next)
        n++;
    return n;
}

/* Step node i of restored step s holds its cores and memory again. */
static int step_node_retake (struct job *j, struct step *s, size_t i,
                             const char *cores)
{
    struct job_node *jn = &j->nodes[s->jnodes[i]];

    if (!(s->cores[i] = calloc (jn->ncores ? jn->ncores : 1, 1)))
        return -1;
    if (cores_parse (cores, s->cores[i], jn->ncores) < 0)
        return -1;
    if (!s->shadow && !s->done[i])
        step_node_hold (jn, s, i);
    return 0;
}

int step_restore (struct job *j, const struct msg_step_rec *r,
                  arbor_error_t *err)
{
    size_t n = r->jnodes_count;
    struct step *s;

    if (n == 0 || r->tasks_count != n || r->cpus_count != n
        || r->cores_count != n || r->done_count != n) {
        errno = EINVAL;
        return errprintf (err, "step %u.%u: per-node lists disagree", j->id,
                          r->id);
    }
    if (!(s = step_alloc (n)) || !(s->name = strdup (r->name ? r->name : ""))
        || !(s->nodelist = strdup (r->nodelist ? r->nodelist : ""))) {
        step_destroy (s);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    s->id = r->id;
    s->mem_mb = r->mem_mb;
    s->ntasks = r->ntasks;
    s->start_time = (time_t)r->start_time;
    s->shadow = r->shadow;
    for (size_t i = 0; i < n; i++) {
        if (r->jnodes[i] >= j->nnodes) {
            step_destroy (s);
            errno = EINVAL;
            return errprintf (err, "step %u.%u: node %u of %zu", j->id, r->id,
                              r->jnodes[i], j->nnodes);
        }
        s->jnodes[i] = r->jnodes[i];
        s->tasks[i] = r->tasks[i];
        s->cpus[i] = r->cpus[i];
        s->done[i] = r->done[i] != 0;
    }
    for (size_t i = 0; i < n; i++)
        if (step_node_retake (j, s, i, r->cores[i]) < 0) {
            int e = errno;
            for (size_t k = 0; k < i; k++)
                step_node_release (j, s, k);
            step_destroy (s);
            errno = e;
            return errprintf (err, "step %u.%u: cores '%s': %s", j->id, r->id,
                              r->cores[i], strerror (e));
        }
    s->next = j->steps;
    j->steps = s;
    return 0;
}
