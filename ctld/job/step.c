/* step.c - job steps: their records and cores, credential, completion.
 * Where a new step runs (its nodes, tasks and cores) is step_layout.c's.
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

#include "acct/acct.h"
#include "acct/acct_usage.h"
#include "conf.h"
#include "credkey.h"
#include "ctld.h"
#include "job/cores.h"
#include "hostlist.h"
#include "ident.h"
#include "job/events.h"
#include "job/job.h"
#include "state/persist.h"
#include "nodes/node.h"
#include "job/step.h"
#include "job/step_gres.h"
#include "job/step_layout.h"
#include "job/steprec.h"

/* Give back step node i's cores and memory to the job (once). */
static void step_node_release (struct job *j, struct step *s, size_t i)
{
    struct job_node *jn = &j->nodes[s->jnodes[i]];
    uint64_t mem = s->mem_mb;

    if (!s->done[i])
        step_gres_release (j, s, i);
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

/* Per step node, the generic resources the step holds there ('own'), or
 * its job does (as step_gres.h says; "" none). */
static int step_gres_strings (const struct job *j, const struct step *s,
                              bool own, char ***out)
{
    char **v = calloc (s->nnodes + 1, sizeof (char *));

    if (!v)
        return -1;
    for (size_t i = 0; i < s->nnodes; i++) {
        v[i] =
            own ? step_gres_text (j, s, i)
                : step_gres_text (j, &(struct step){ .jnodes = s->jnodes }, i);
        if (!v[i]) {
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
    bool any_gres = false;
    for (size_t i = 0; i < s->nnodes; i++)
        any_gres |= j->nodes[s->jnodes[i]].gres != NULL;
    if (any_gres
        && (step_gres_strings (j, s, true, &cl.gres) < 0
            || step_gres_strings (j, s, false, &cl.job_gres) < 0)) {
        for (size_t i = 0; i < s->nnodes; i++) {
            free (cl.cores[i]);
            if (cl.gres)
                free (cl.gres[i]);
        }
        free (cl.cores);
        free (cl.gres);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    cl.gres_count = cl.job_gres_count = any_gres ? (uint32_t)s->nnodes : 0;
    cl.gpu_bind = s->gpu_bind        ? s->gpu_bind
                  : j->gres.gpu_bind ? j->gres.gpu_bind
                                     : "";
    cl.gpus_per_task =
        s->gres ? s->gpus_per_task : (uint32_t)j->gres.per_task.count;
    cl.user = id->user;
    cl.gids = id->gids;
    cl.gids_count = id->ngids;
    cl.home = id->home;
    cl.cores_count = (uint32_t)s->nnodes;
    rc = cred_seal (credkey_key (ctx->credkey), &cl, &out->cred, err);
    for (size_t i = 0; i < s->nnodes; i++) {
        free (cl.cores[i]);
        if (cl.gres)
            free (cl.gres[i]);
        if (cl.job_gres)
            free (cl.job_gres[i]);
    }
    free (cl.cores);
    free (cl.gres);
    free (cl.job_gres);
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
    struct step *s;

    if (req->interactive)
        return step_create_interactive (ctx, j, out, err);
    memset (out, 0, sizeof (*out));
    if (!(s = step_layout (ctx, j, req, err)))
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
    if (step_gres_take (j, s, req, err) < 0
        || (req->gpu_bind && *req->gpu_bind
            && !(s->gpu_bind = strdup (req->gpu_bind)))) {
        int e = s->gpu_bind || errno != ENOMEM ? errno : ENOMEM;
        for (size_t i = 0; i < s->nnodes; i++)
            step_node_release (j, s, i);
        step_destroy (s);
        errno = e;
        return e == EBUSY ? errprintf (err, "%s (%s)", BUSY_TEXT, err->text)
                          : -1;
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

/* Step node i of restored step s holds its cores and memory again. */
static int step_node_retake (struct job *j, struct step *s, size_t i,
                             const char *cores)
{
    struct job_node *jn = &j->nodes[s->jnodes[i]];

    if (!(s->cores[i] = calloc (jn->ncores ? jn->ncores : 1, 1)))
        return -1;
    if (cores_mask_parse (cores, s->cores[i], jn->ncores) < 0)
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
