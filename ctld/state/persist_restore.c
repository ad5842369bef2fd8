/* persist_restore.c - a controller's start from its state database: the
 * records read back into ctx (persist.h).
 *
 * A job is rebuilt from its own request (job_create, with the
 * configuration of now) and then given what happened to it; its script
 * and steps are rebuilt from theirs. A record that does not decode or no
 * longer fits the configuration (a partition or node removed) is logged
 * and left out, and counted: the controller says at start how many jobs
 * it restored and how many it could not. A database that cannot be read
 * at all stops the controller (persist_open fails).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/batch.h"
#include "conf.h"
#include "ctld.h"
#include "depspec.h"
#include "job/events.h"
#include "job/job.h"
#include "sched/licenses.h"
#include "notify/mail.h"
#include "log.h"
#include "nodes/node.h"
#include "state/persist.h"
#include "state/persist_restore.h"
#include "state/persist_private.h"
#include "sched/sched.h"
#include "job/step.h"
#include "job/term.h"
#include "notify/trigger.h"
#include "nodes/node_features.h"
#include "sched/sched_wake.h"
#include "job/batch_files.h"
#include "job/job_alloc.h"
#include "job/jobs.h"

static void restore_node (struct persist *p, const struct msg_node_rec *r)
{
    struct ctld *ctx = p->ctx;
    int i = r->name ? node_index (ctx, r->name) : -1;
    struct node *n;

    if (i < 0) {
        log_info ("state: node %s is no longer configured: its record is "
                  "ignored",
                  r->name ? r->name : "?");
        return;
    }
    n = &ctx->nodes[i];
    n->drain = r->drain;
    n->admin_down = r->admin_down;
    n->auto_drain = r->auto_drain;
    (void)node_set_reason (n, r->reason, r->reason_uid, (time_t)r->reason_time);
    if (r->features_set) {
        arbor_error_t e;
        if (node_features_set (n, r->features, &e) < 0)
            log_err ("state: node %s: %s: its features stay as configured",
                     n->name, e.text);
        else
            n->features_set = true;
    }
    if (n->admin_down)
        n->base = NODE_DOWN;
}

static int restore_batch (struct persist *p, struct msg_batch_rec *r)
{
    struct restored_batch *b =
        realloc (p->batches, (p->nbatches + 1) * sizeof (*b));

    if (!b)
        return -1;
    p->batches = b;
    b = &p->batches[p->nbatches++];
    memset (b, 0, sizeof (*b));
    b->id = r->id;
    b->rec = *r; /* taken */
    memset (r, 0, sizeof (*r));
    return 0;
}

static struct restored_batch *find_batch (struct persist *p, uint32_t id)
{
    for (size_t i = 0; i < p->nbatches; i++)
        if (p->batches[i].id == id)
            return &p->batches[i];
    return NULL;
}

/* j's script: the first of its array's tasks takes it, the others share. */
static int restore_job_batch (struct persist *p, struct job *j, uint32_t id,
                              arbor_error_t *err)
{
    struct restored_batch *b = find_batch (p, id);
    struct msg_job_alloc req = { 0 };

    if (!b) {
        errno = ENOENT;
        return errprintf (err, "its batch script (batch/%u) is missing", id);
    }
    if (b->first) {
        batch_share (j, b->first);
        return 0;
    }
    req.script = b->rec.script;
    req.script_len = b->rec.script_len;
    req.script_argv = b->rec.argv;
    req.script_argv_count = b->rec.argv_count;
    req.env = b->rec.env;
    req.env_count = b->rec.env_count;
    req.std_out = b->rec.std_out;
    req.std_err = b->rec.std_err;
    req.std_in = b->rec.std_in;
    req.submit_host = b->rec.submit_host;
    req.open_append = b->rec.append;
    req.ntasks = b->rec.ntasks_asked;
    memset (&b->rec, 0, sizeof (b->rec)); /* batch_create takes them */
    if (batch_create (j, &req, err) < 0) {
        proto_clear (MSG_JOB_ALLOC, &req);
        return -1;
    }
    proto_clear (MSG_JOB_ALLOC, &req);
    j->batch->store_id = id;
    j->batch->stored = true;
    b->first = j;
    return 0;
}

static int restore_alloc (struct persist *p, struct job *j,
                          const struct msg_job_rec *r, arbor_error_t *err)
{
    size_t n = r->node_names_count, *idx;
    int rc = -1;

    if (n == 0)
        return 0;
    if (r->node_cpus_count != n || r->node_tasks_count != n
        || r->node_cores_count != n || r->node_mem_mb_count != n
        || r->node_released_count != n) {
        errno = EINVAL;
        return errprintf (err, "its per-node lists disagree");
    }
    if (!(idx = calloc (n, sizeof (*idx)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    for (size_t k = 0; k < n; k++) {
        int i = node_index (p->ctx, r->node_names[k]);
        if (i < 0) {
            errno = ENOENT;
            errprintf (err, "its node %s is no longer configured",
                       r->node_names[k]);
            goto out;
        }
        idx[k] = (size_t)i;
    }
    rc = job_restore_alloc (p->ctx, j, n, idx, r->node_cpus, r->node_tasks,
                            r->node_cores, r->node_mem_mb, r->node_released,
                            err);
    if (rc == 0 && r->node_gres_count)
        rc = job_restore_gres (p->ctx, j, r->node_gres,
                               r->node_gres_count < n ? r->node_gres_count : n,
                               err);
out:
    free (idx);
    return rc;
}

/* What happened to j since its submission. */
static int restore_job_state (struct job *j, const struct msg_job_rec *r,
                              const char *dependency, arbor_error_t *err)
{
    char *name = strdup (r->name ? r->name : "");

    if (!name || job_set_reason (j, r->reason) < 0) {
        free (name);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    free (j->name);
    j->name = name;
    j->id = r->id;
    j->time_limit = r->time_limit;
    j->state = (enum job_state)r->state;
    j->completing = r->completing;
    j->oom = r->oom;
    j->warned = r->warned;
    j->exit_rc = r->exit_rc;
    j->submit_time = (time_t)r->submit_time;
    j->start_time = (time_t)r->start_time;
    j->end_time = (time_t)r->end_time;
    j->array_job_id = r->array_job_id;
    j->array_task_id = r->array_task_id;
    j->array_throttle = r->array_throttle;
    j->array_count = r->array_count;
    j->array_min = r->array_min;
    j->array_max = r->array_max;
    j->held = r->held;
    j->held_admin = r->held_admin;
    j->begin_time = (time_t)r->begin_time;
    j->requeue = r->requeue;
    j->requeue_pending = r->requeue_pending;
    j->batch_launched = r->batch_launched;
    j->batch_reported = r->batch_reported;
    j->restarts = r->restarts;
    j->prologs_left = r->prologs_left;
    j->granted = r->granted;
    j->next_step_id = r->next_step_id;
    j->eligible_time = (time_t)r->eligible_time;
    j->exit_signal = r->exit_signal;
    j->suspended = r->suspended;
    j->suspend_time = (time_t)r->suspend_time;
    j->suspended_secs = r->suspended_secs;
    if (mail_job_restore (j, r->mail_type, r->mail_user, r->mail_sent) < 0)
        return errprintf (err, "out of memory");
    for (uint32_t i = 0; i < r->events_count && i < r->event_times_count; i++)
        if (job_event_restore (j, (time_t)r->event_times[i], r->events[i]) < 0)
            return errprintf (err, "out of memory");
    j->events_dropped += r->events_dropped;
    free (j->dependency);
    if (!(j->dependency = strdup (dependency ? dependency : "")))
        return errprintf (err, "out of memory");
    if (r->deps_pending && *j->dependency
        && depspec_parse (j->dependency, &j->deps, err) < 0)
        return -1;
    return 0;
}

/* job_create from the saved request, its dependency left out (the jobs
 * it named may be gone: what is left of it is restored as it was). */
static struct job *restore_create (struct persist *p,
                                   const struct msg_job_rec *r, char **dep,
                                   arbor_error_t *err)
{
    struct msg_job_alloc req;
    struct job *j;

    if (proto_decode (MSG_JOB_ALLOC, r->request, r->request_len, &req, err) < 0)
        return NULL;
    *dep = req.dependency;
    req.dependency = NULL;
    j = job_create (p->ctx, &req, (uid_t)r->uid, (gid_t)r->gid, err);
    proto_clear (MSG_JOB_ALLOC, &req);
    return j;
}

static int restore_job (struct persist *p, const struct msg_job_rec *r,
                        uint64_t seq, arbor_error_t *err)
{
    struct ctld *ctx = p->ctx;
    char *dep = NULL;
    struct job *j = restore_create (p, r, &dep, err);

    if (!j || (r->batch_id && restore_job_batch (p, j, r->batch_id, err) < 0)
        || restore_job_state (j, r, dep, err) < 0
        || restore_alloc (p, j, r, err) < 0) {
        free (dep);
        job_destroy (j);
        return -1;
    }
    free (dep);
    licenses_restore (ctx, j, r->licenses);
    j->seq = seq;
    if (seq >= p->next_seq)
        p->next_seq = seq + 1;
    if (j->completing)
        for (size_t k = 0; k < j->nnodes; k++)
            if (!j->nodes[k].released)
                ctx->nodes[j->nodes[k].node].ncompleting++;
    if (jobs_append (ctx, j) < 0) {
        for (size_t k = 0; k < j->nnodes; k++)
            job_node_release (ctx, j, k);
        job_destroy (j);
        return errprintf (err, "out of memory");
    }
    p->restored_jobs++;
    return 0;
}

static int restore_step (struct persist *p, const struct msg_step_rec *r,
                         arbor_error_t *err)
{
    struct job *j = job_find (p->ctx, r->job_id);

    if (!j || j->state != JOB_RUNNING || !j->nodes) {
        errno = ENOENT;
        return errprintf (err, "its job %u is not running", r->job_id);
    }
    if (step_restore (j, r, err) < 0)
        return -1;
    p->restored_steps++;
    return 0;
}

static int restore_row (int kind, const char *key, uint64_t order,
                        const void *rec, size_t len, void *arg)
{
    struct persist *p = arg;
    union msg_any m;
    arbor_error_t err = { "" };
    static const int types[] = { [KIND_NODE] = MSG_NODE_REC,
                                 [KIND_BATCH] = MSG_BATCH_REC,
                                 [KIND_JOB] = MSG_JOB_REC,
                                 [KIND_STEP] = MSG_STEP_REC,
                                 [KIND_TRIGGER] = MSG_TRIGGER_REC };
    int type = kind >= KIND_NODE && kind <= KIND_TRIGGER ? types[kind] : 0;
    int rc = 0;

    if (!type) {
        log_err ("state: %s: unknown kind %d: ignored", key, kind);
        p->dropped++;
        return 0;
    }
    if (proto_decode (type, rec, len, &m, &err) < 0) {
        log_err ("state: %s: %s: ignored", key, err.text);
        p->dropped++;
        return 0;
    }
    switch (kind) {
    case KIND_NODE: restore_node (p, &m.node_rec); break;
    case KIND_BATCH: rc = restore_batch (p, &m.batch_rec); break;
    case KIND_JOB: rc = restore_job (p, &m.job_rec, order, &err); break;
    case KIND_STEP: rc = restore_step (p, &m.step_rec, &err); break;
    case KIND_TRIGGER:
        rc = trigger_restore (p->ctx, &m.trigger_rec, &err);
        break;
    }
    if (rc < 0) {
        log_err ("state: %s cannot be restored: %s", key, err.text);
        p->dropped++;
    }
    proto_clear (type, &m);
    return 0;
}

/* Read the database into p->ctx. -1 with err when it cannot be read. */
static int persist_restore (struct persist *p, arbor_error_t *err)
{
    int rc = store_load (p->store, restore_row, p);

    for (size_t i = 0; i < p->nbatches; i++)
        proto_clear (MSG_BATCH_REC, &p->batches[i].rec);
    free (p->batches);
    p->batches = NULL;
    p->nbatches = 0;
    if (rc < 0)
        return errprintf (err, "cannot read the state database: %s",
                          strerror (errno));
    if (p->restored_jobs || p->dropped)
        log_info ("state: %u jobs and %u steps restored%s", p->restored_jobs,
                  p->restored_steps,
                  p->dropped ? " (some records could not be: see above)" : "");
    return 0;
}

int persist_open (struct ctld *ctx, bool clear, arbor_error_t *err)
{
    const char *dir = ctx->conf->state_save_location;
    struct persist *p;

    if (!dir || !*dir)
        return errprintf (err, "StateSaveLocation is not set");
    if (!(p = calloc (1, sizeof (*p))))
        return errprintf (err, "out of memory");
    p->ctx = ctx;
    p->next_seq = 1;
    if (!(p->store = store_open (ctx->loop, dir, clear, err))
        || persist_restore (p, err) < 0) {
        store_close (p->store);
        free (p);
        return -1;
    }
    persist_begin (ctx, p); /* restored: commits from now on */
    return 0;
}

void persist_resume (struct ctld *ctx)
{
    time_t by = time (NULL) + PERSIST_REATTACH_GRACE;

    for (struct job *j = ctx->jobs; j; j = j->next) {
        if (j->batch && j->state == JOB_RUNNING && j->granted
            && !j->batch_launched && !j->completing) {
            /* Its start was recorded, its script never sent (batch.c
             * sends it once batch_launched is): run it again. */
            log_info ("job %u: its batch script was never sent: requeued",
                      j->id);
            job_requeue (ctx, j);
            continue;
        }
        if (!job_is_active (j) || j->batch)
            continue;
        /* Its requester talked to the previous controller: it
         * reconnects (JOB_ATTACH) or the job ends. A pending one is not
         * started meanwhile (when_eligible): nobody could be told. */
        j->reattach_by = by;
    }
    sched_request (ctx);
}

void persist_tick (struct ctld *ctx, time_t now)
{
    for (struct job *j = ctx->jobs; j; j = j->next) {
        if (!j->reattach_by || now < j->reattach_by)
            continue;
        j->reattach_by = 0;
        if (j->owner || !job_is_active (j))
            continue;
        log_info ("job %u: its requester did not come back after the "
                  "controller restarted: ending it",
                  j->id);
        job_end (ctx, j,
                 j->state == JOB_PENDING ? JOB_CANCELLED : JOB_COMPLETED,
                 "requester gone");
    }
}
