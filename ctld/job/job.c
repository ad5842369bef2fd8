/* job.c - job records: validation, start, end and expiry.
 *
 * A job is created PENDING from a validated JOB_ALLOC (partition, -w/-x
 * node names, time limit and task geometry are checked here and the
 * geometry normalized by select_normalize). sched.c decides when it
 * starts; job_start() then takes its cores and memory on each node
 * (--mem per node, or --mem-per-cpu times the cores taken there), and
 * job_node_release() gives one node's share back once the job's epilog
 * is done there (term.c decides when). Finished jobs stay listed
 * MinJobAge seconds after their end for JOB_INFO, then are purged
 * (never while still completing). The list itself (ctx->jobs, its
 * index by id) is jobs.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>

#include "acct/acct.h"
#include "arrayspec.h"
#include "ctld.h"
#include "hostlist.h"
#include "job/batch.h"
#include "sched/when.h"
#include "job/job.h"
#include "job/job_check.h"
#include "job/jobstate.h"
#include "sched/licenses.h"
#include "log.h"
#include "notify/mail.h"
#include "nodes/node.h"
#include "nodes/part.h"
#include "conf.h"
#include "job/events.h"
#include "state/persist.h"
#include "job/step.h"
#include "job/term.h" /* struct term_node: job.c makes room for it */

const char *job_state_shown (const struct job *j)
{
    if (j->completing)
        return job_state_str (JOB_COMPLETING);
    if (j->state == JOB_RUNNING && j->suspended)
        return job_state_str (JOB_SUSPENDED);
    return job_state_str (j->state);
}

bool job_is_active (const struct job *j)
{
    return (job_state_info (j->state)->flags & STATE_ACTIVE) != 0;
}

bool job_access (const struct ctld *ctx, const struct job *j, uid_t uid)
{
    return uid == j->uid || uid == 0 || uid == ctx->priv_uid;
}

char *user_name (uid_t uid)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    char num[32];

    if (getpwuid_r (uid, &pw, buf, sizeof (buf), &res) == 0 && res)
        return strdup (pw.pw_name);
    snprintf (num, sizeof (num), "%lu", (unsigned long)uid);
    return strdup (num);
}

int job_ids_check (uint64_t n, arbor_error_t *err)
{
    if (n <= JOB_MAX_IDS)
        return 0;
    errno = EINVAL;
    return errprintf (err, "%llu job ids, at most %u in one request",
                      (unsigned long long)n, JOB_MAX_IDS);
}

const char *job_admins (const struct ctld *ctx, char *buf, size_t len)
{
    const char *au = ctx->conf->arbor_user;

    if (!au || !*au || !strcmp (au, "root"))
        snprintf (buf, len, "root");
    else
        snprintf (buf, len, "root or %s", au);
    return buf;
}

/* ---- what one user may keep ---------------------------------------------
 */

/* A batch submission's script, arguments and environment: kept once
 * for all the tasks of an array (batch.h), beside each task's request. */
static uint64_t job_batch_bytes (const struct msg_job_alloc *req)
{
    uint64_t n = req->script_len;

    for (uint32_t i = 0; i < req->env_count; i++)
        n += req->env[i] ? strlen (req->env[i]) + 1 : 0;
    for (uint32_t i = 0; i < req->script_argv_count; i++)
        n += req->script_argv[i] ? strlen (req->script_argv[i]) + 1 : 0;
    return n;
}

/* The jobs a submission makes: its --array's tasks, else 1 (a bad
 * --array is refused afterwards, naming what is wrong). */
static uint64_t job_copies (const struct ctld *ctx,
                            const struct msg_job_alloc *req)
{
    uint32_t max = ctx->conf->max_array_size;
    struct arrayspec a;
    arbor_error_t e;
    uint64_t n;

    if (!req->script_len || !req->array || !*req->array
        || arrayspec_parse (req->array, max ? max - 1 : 0, &a, &e) < 0)
        return 1;
    n = a.n;
    arrayspec_clear (&a);
    return n;
}

/* Restoring the state database: these jobs were admitted once, and are
 * kept as they were (the ctld serves nobody before its jobs are back). */
static bool job_restoring (const struct ctld *ctx)
{
    return ctx->persist && !ctx->serve;
}

/* JOB_MAX_USER_BYTES: what j's owner keeps, j (and its array) included.
 * Each job carries its share (its request, and its part of the batch
 * fields its array shares; array tasks are copies of j), so that the sum
 * over the owner's jobs costs no string walk. */
static int job_check_user_bytes (const struct ctld *ctx, struct job *j,
                                 const struct msg_job_alloc *req,
                                 arbor_error_t *err)
{
    uint64_t copies = job_copies (ctx, req), batch = job_batch_bytes (req);
    uint64_t kept = 0, more = j->request_len * copies + batch;

    j->user_bytes = j->request_len + batch / copies;
    if (job_restoring (ctx))
        return 0;
    for (const struct job *t = ctx->jobs; t; t = t->next)
        if (t->uid == j->uid)
            kept += t->user_bytes;
    if (kept + more <= JOB_MAX_USER_BYTES)
        return 0;
    errno = EAGAIN;
    return errprintf (err,
                      "the jobs of %s would keep %llu KiB of scripts, "
                      "environments and commands, more than the %u MiB a "
                      "user may keep in the controller (jobs kept: "
                      "pending, running and finished until purged)",
                      j->user, (unsigned long long)((kept + more) >> 10),
                      JOB_MAX_USER_BYTES >> 20);
}

struct job *job_create (struct ctld *ctx, const struct msg_job_alloc *req,
                        uid_t uid, gid_t gid, arbor_error_t *err)
{
    struct job *j = calloc (1, sizeof (*j));

    if (!j) {
        errprintf (err, "out of memory");
        return NULL;
    }
    j->uid = uid;
    j->gid = gid; /* state JOB_PENDING (0): calloc's */
    j->submit_time = ctld_now (ctx);
    j->name = strdup (req->name ? req->name : "");
    j->account = strdup (req->account ? req->account : "");
    j->command = strdup (req->command ? req->command : "");
    j->cwd = strdup (req->cwd ? req->cwd : "/");
    j->user = user_name (uid);
    if (!j->name || !j->account || !j->command || !j->cwd || !j->user) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
        goto fail;
    }
    /* Slurm keeps account names in lower case (-A Physics is charged,
     * shown and accounted as "physics") */
    for (char *p = j->account; *p; p++)
        *p = (char)tolower ((unsigned char)*p);
    if (job_fill (ctx, j, req, err) < 0 || when_init (ctx, j, req, err) < 0
        || licenses_job_init (j, req, err) < 0
        || mail_job_init (ctx, j, req, err) < 0)
        goto fail;
    if (persist_request (req, &j->request, &j->request_len) < 0) {
        errprintf (err, "cannot record the request: %s", strerror (errno));
        goto fail;
    }
    if (job_check_user_bytes (ctx, j, req, err) < 0)
        goto fail;
    return j;
fail:
    job_destroy (j);
    return NULL;
}

int job_refill (struct ctld *ctx, struct job *j,
                const struct msg_job_alloc *req, bool admin, arbor_error_t *err)
{
    /* uid 0 lets job_check_extras take an administrator's negative nice */
    struct job t = { .uid = admin ? 0 : j->uid, .gid = j->gid };
    char *buf = NULL;
    size_t len = 0;

    if (job_fill (ctx, &t, req, err) < 0)
        goto fail;
    if (persist_request (req, &buf, &len) < 0) {
        errprintf (err, "cannot record the request: %s", strerror (errno));
        goto fail;
    }
    free (j->required);
    free (j->excluded);
    free (j->request);
    j->part = t.part;
    j->req = t.req;
    j->required = t.required;
    j->excluded = t.excluded;
    j->nrequired = t.nrequired;
    j->nice = t.nice;
    j->time_limit = t.time_limit;
    j->warn_signal = t.warn_signal;
    j->warn_time = t.warn_time;
    free (j->comment);
    j->comment = t.comment;
    j->time_min = t.time_min;
    j->range = t.range;
    j->request = buf;
    j->request_len = len;
    return 0;
fail:
    free (t.required);
    free (t.excluded);
    free (t.comment);
    return -1;
}

/* Copy n bytes (NULL stays NULL). */
static void *job_memdup (const void *p, size_t n, bool *bad)
{
    void *q;

    if (!p)
        return NULL;
    if (!(q = malloc (n ? n : 1)))
        *bad = true;
    else
        memcpy (q, p, n);
    return q;
}

struct job *job_clone (const struct ctld *ctx, const struct job *src)
{
    const struct part *p = &ctx->parts[src->part];
    struct job *j = malloc (sizeof (*j));
    bool bad = false;

    if (!j)
        return NULL;
    *j = *src;
    j->next = NULL;
    j->reason = NULL;
    j->owner = NULL;
    j->batch = NULL;
    j->seq = 0;
    j->dirty = false;
    j->events = NULL; /* a task's history is its own */
    j->nevents = j->events_dropped = 0;
    j->request = job_memdup (src->request, src->request_len, &bad);
    j->name = job_memdup (src->name, strlen (src->name) + 1, &bad);
    j->account = job_memdup (src->account, strlen (src->account) + 1, &bad);
    j->command = job_memdup (src->command, strlen (src->command) + 1, &bad);
    j->mail_user = job_memdup (
        src->mail_user, src->mail_user ? strlen (src->mail_user) + 1 : 0, &bad);
    j->user = job_memdup (src->user, strlen (src->user) + 1, &bad);
    j->cwd = job_memdup (src->cwd, strlen (src->cwd) + 1, &bad);
    j->comment = job_memdup (
        src->comment, src->comment ? strlen (src->comment) + 1 : 0, &bad);
    j->required = job_memdup (src->required, p->nnodes * sizeof (bool), &bad);
    j->excluded = job_memdup (src->excluded, p->nnodes * sizeof (bool), &bad);
    j->dependency =
        job_memdup (src->dependency, strlen (src->dependency) + 1, &bad);
    j->deps.deps = job_memdup (src->deps.deps,
                               src->deps.n * sizeof (*src->deps.deps), &bad);
    j->lic_held = (struct licspec){ 0 }; /* pending: nothing held */
    if (licspec_copy (&j->lic, &src->lic) < 0) {
        j->lic = (struct licspec){ 0 };
        bad = true;
    }
    batch_share (j, src);
    if (bad) {
        job_destroy (j);
        errno = ENOMEM;
        return NULL;
    }
    return j;
}

void job_destroy (struct job *j)
{
    int saved = errno;

    if (!j)
        return;
    while (j->steps) {
        struct step *s = j->steps;
        j->steps = s->next;
        step_destroy (s);
    }
    for (size_t i = 0; i < j->nnodes; i++) {
        free (j->nodes[i].cores);
        free (j->nodes[i].step_cores);
    }
    free (j->nodes);
    free (j->term);
    batch_release (j);
    when_clear (j);
    free (j->name);
    free (j->account);
    free (j->command);
    free (j->mail_user);
    free (j->user);
    free (j->cwd);
    free (j->comment);
    free (j->required);
    free (j->excluded);
    licspec_clear (&j->lic);
    licspec_clear (&j->lic_held);
    free (j->reason);
    free (j->nodelist);
    free (j->request);
    job_events_free (j);
    free (j);
    errno = saved;
}

int job_set_reason (struct job *j, const char *reason)
{
    char *copy = NULL;

    if (reason && !(copy = strdup (reason)))
        return -1;
    free (j->reason);
    j->reason = copy;
    return 0;
}

void job_node_release (struct ctld *ctx, struct job *j, size_t k)
{
    struct job_node *jn = &j->nodes[k];
    struct node *n = &ctx->nodes[jn->node];

    if (jn->released)
        return;
    if (jn->cores)
        node_give_cores (ctx, jn->node, jn->cores);
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
        if (node_take_cores (n, jn->cpus, jn->cores) < 0) {
            memset (jn->cores, 0, n->cpus);
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
        int e = errno == EAGAIN ? EAGAIN : ENOMEM;
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
        if (cores_parse (cores[k], jn->cores, nd->cpus) < 0) {
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

void job_unrun (struct ctld *ctx, struct job *j)
{
    steps_release (j);
    job_release (ctx, j);
    job_unstart (j);
}

void jobs_purge (struct ctld *ctx, time_t now, bool all)
{
    struct job **pp = &ctx->jobs;

    while (*pp) {
        struct job *j = *pp;
        if (all
            || (!job_is_active (j) && !j->completing
                && j->end_time + (time_t)ctx->conf->min_job_age <= now)) {
            jobs_unlink (ctx, pp);
            if (!all) /* at shutdown ('all') nothing is forgotten on disk */
                (void)jobstate_post (ctx, j, JS_PURGE, NULL);
            job_destroy (j);
        } else
            pp = &j->next;
    }
}

int job_allocated_msg (const struct ctld *ctx, const struct job *j,
                       struct msg_job_allocated *out)
{
    memset (out, 0, sizeof (*out));
    out->job_id = j->id;
    out->mem_mb = 0; /* per node: the largest when --mem-per-cpu */
    for (size_t i = 0; i < j->nnodes; i++)
        if (j->nodes[i].mem_mb > out->mem_mb)
            out->mem_mb = j->nodes[i].mem_mb;
    out->time_limit = j->time_limit;
    out->start_time = (uint64_t)j->start_time;
    out->nodelist = strdup (j->nodelist ? j->nodelist : "");
    out->partition = strdup (ctx->parts[j->part].name);
    out->account = strdup (j->account ? j->account : "");
    out->cpus = calloc (j->nnodes ? j->nnodes : 1, sizeof (uint32_t));
    if (!out->nodelist || !out->cpus || !out->partition || !out->account) {
        proto_clear (MSG_JOB_ALLOCATED, out);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < j->nnodes; i++)
        out->cpus[i] = j->nodes[i].cpus;
    out->cpus_count = (uint32_t)j->nnodes;
    return 0;
}
