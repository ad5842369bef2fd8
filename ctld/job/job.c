/* job.c - the job record: made, refilled, cloned and freed.
 *
 * A job is created PENDING from a validated JOB_ALLOC (partition, -w/-x
 * node names, time limit and task geometry are checked by job_check.c
 * and the geometry normalized by select_normalize); an update refills
 * it, an array's next task is a clone. What its run holds on its nodes is
 * job_alloc.c's, the questions asked of it job_base.c's, its life
 * (state, start, end, purge) jobstate.c's and the files it calls, and
 * the list itself (ctx->jobs, its index by id) jobs.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrayspec.h"
#include "conf.h"
#include "ctld.h"
#include "job/batch_files.h"
#include "job/events.h"
#include "job/job.h"
#include "job/job_check.h"
#include "job/step.h"
#include "job/steprec.h"
#include "job/term.h" /* struct term_node: job.c makes room for it */
#include "log.h"
#include "nodes/part.h"
#include "notify/mail.h"
#include "sched/licenses.h"
#include "sched/when.h"
#include "state/persist.h"

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
    j->qos = strdup (req->qos ? req->qos : "");
    j->command = strdup (req->command ? req->command : "");
    j->cwd = strdup (req->cwd ? req->cwd : "/");
    j->user = user_name (uid);
    if (!j->name || !j->account || !j->qos || !j->command || !j->cwd
        || !j->user) {
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
    featspec_clear (&j->feat);
    j->feat = t.feat;
    gres_job_clear (&j->gres);
    j->gres = t.gres;
    j->request = buf;
    j->request_len = len;
    return 0;
fail:
    free (t.required);
    free (t.excluded);
    free (t.comment);
    featspec_clear (&t.feat);
    gres_job_clear (&t.gres);
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
    j->qos = job_memdup (src->qos, strlen (src->qos) + 1, &bad);
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
    if (featspec_copy (&j->feat, &src->feat) < 0)
        bad = true;
    if (gres_job_copy (&j->gres, &src->gres) < 0) {
        j->gres.gpu_bind = NULL;
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
        free (j->nodes[i].gres);
        free (j->nodes[i].step_gres);
    }
    free (j->nodes);
    free (j->term);
    batch_release (j);
    when_clear (j);
    free (j->name);
    free (j->account);
    free (j->qos);
    free (j->command);
    free (j->mail_user);
    free (j->user);
    free (j->cwd);
    free (j->comment);
    free (j->required);
    free (j->excluded);
    licspec_clear (&j->lic);
    licspec_clear (&j->lic_held);
    featspec_clear (&j->feat);
    gres_job_clear (&j->gres);
    free (j->reason);
    free (j->nodelist);
    free (j->request);
    job_events_free (j);
    free (j);
    errno = saved;
}
