/* job_rec.c - a job as one record (JOB_REC); see job_rec.h.
 *
 * Fields the record borrows (strings of struct job, its encoded request,
 * its nodes' names and its history's texts) are never freed here; the
 * ones made for it are. job_rec_release() resets the borrowed ones
 * before proto_clear() frees the rest: a record is written often (every
 * change of a job), so what exists already is not copied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"
#include "job/cores.h"
#include "hostlist.h"
#include "job/batch.h"
#include "job/events.h"
#include "job/job.h"
#include "job/job_rec.h"
#include "job/step.h"
#include "nodes/node.h"
#include "nodes/part.h"
#include "sched/licenses.h"
#include "sched/prio.h"
#include "job/batch_files.h"
#include "job/steprec.h"

/* The allocation's per-node lists (node names borrowed from ctx; the
 * ranged core masks made here). */
static int rec_alloc (const struct ctld *ctx, const struct job *j,
                      struct msg_job_rec *r)
{
    size_t n = j->nnodes;

    if (!j->nodes || n == 0)
        return 0;
    r->node_names = calloc (n + 1, sizeof (char *));
    r->node_cores = calloc (n + 1, sizeof (char *));
    r->node_cpus = calloc (n, sizeof (uint32_t));
    r->node_tasks = calloc (n, sizeof (uint32_t));
    r->node_mem_mb = calloc (n, sizeof (uint32_t));
    r->node_released = calloc (n, sizeof (uint32_t));
    r->node_names_count = r->node_cores_count = r->node_cpus_count =
        r->node_tasks_count = r->node_mem_mb_count = r->node_released_count =
            (uint32_t)n;
    if (!r->node_names || !r->node_cores || !r->node_cpus || !r->node_tasks
        || !r->node_mem_mb || !r->node_released)
        return -1;
    for (size_t k = 0; k < n; k++) {
        const struct job_node *jn = &j->nodes[k];
        r->node_names[k] = ctx->nodes[jn->node].name; /* borrowed */
        if (!(r->node_cores[k] = cores_ranged (jn->cores, jn->ncores)))
            return -1;
        r->node_cpus[k] = jn->cpus;
        r->node_tasks[k] = jn->tasks;
        r->node_mem_mb[k] = (uint32_t)jn->mem_mb;
        r->node_released[k] = jn->released;
    }
    return gres_job_node_texts (j, r); /* none kept for most jobs */
}

/* Its history (events.h), the texts borrowed from j. */
static int rec_history (const struct job *j, struct msg_job_rec *r)
{
    r->events_dropped = j->events_dropped;
    if (!j->nevents)
        return 0;
    r->event_times = calloc (j->nevents, sizeof (uint32_t));
    r->events = calloc (j->nevents + 1, sizeof (char *));
    if (!r->event_times || !r->events)
        return -1;
    r->event_times_count = r->events_count = j->nevents;
    for (uint32_t i = 0; i < j->nevents; i++) {
        r->event_times[i] = (uint32_t)j->events[i].time;
        r->events[i] = j->events[i].text; /* borrowed */
    }
    return 0;
}

/* The id its script is stored under (persist.c sets it when it first
 * writes the script; an answer before that still says "batch"). */
static uint32_t rec_batch_id (const struct job *j)
{
    if (!j->batch)
        return 0;
    if (j->batch->store_id)
        return j->batch->store_id;
    return j->array_job_id ? j->array_job_id : j->id;
}

/* What the job is and what happened to it: scalars and borrowed strings. */
static void rec_scalars (const struct job *j, struct msg_job_rec *r)
{
    r->id = j->id;
    r->uid = (uint32_t)j->uid;
    r->gid = (uint32_t)j->gid;
    r->request = j->request; /* borrowed */
    r->request_len = (uint32_t)j->request_len;
    r->batch_id = rec_batch_id (j);
    r->name = j->name;     /* borrowed */
    r->reason = j->reason; /* borrowed */
    r->time_limit = j->time_limit;
    r->state = (uint32_t)j->state;
    r->completing = j->completing;
    r->oom = j->oom;
    r->warned = j->warned;
    r->exit_rc = j->exit_rc;
    r->exit_signal = j->exit_signal;
    r->submit_time = (uint64_t)j->submit_time;
    r->start_time = (uint64_t)j->start_time;
    r->end_time = (uint64_t)j->end_time;
    r->eligible_time = (uint64_t)j->eligible_time;
    r->restarts = j->restarts;
    r->next_step_id = j->next_step_id;
    r->suspended = j->suspended;
    r->suspend_time = (uint64_t)j->suspend_time;
    r->suspended_secs = j->suspended_secs;
}

/* When it may start, and how it comes back. */
static void rec_when (const struct job *j, struct msg_job_rec *r)
{
    r->array_job_id = j->array_job_id;
    r->array_task_id = j->array_task_id;
    r->array_throttle = j->array_throttle;
    r->array_count = j->array_count;
    r->array_min = j->array_min;
    r->array_max = j->array_max;
    r->deps_pending = j->deps.n > 0;
    r->held = j->held;
    r->held_admin = j->held_admin;
    r->begin_time = (uint64_t)j->begin_time;
    r->requeue = j->requeue;
    r->requeue_pending = j->requeue_pending;
    r->batch_launched = j->batch_launched;
    r->batch_reported = j->batch_reported;
    r->prologs_left = j->prologs_left;
    r->granted = j->granted;
    r->mail_type = j->mail_type;                             /* notify/mail.h */
    r->mail_user = j->mail_user ? j->mail_user : (char *)""; /* borrowed */
    r->mail_sent = j->mail_sent;
}

int job_rec_fill (const struct ctld *ctx, const struct job *j,
                  enum job_rec_use use, struct msg_job_rec *r)
{
    memset (r, 0, sizeof (*r));
    rec_scalars (j, r);
    rec_when (j, r);
    if (use == JOB_REC_ANSWER)
        return 0;
    if (!(r->licenses = licenses_held_text (j)) || rec_alloc (ctx, j, r) < 0
        || rec_history (j, r) < 0) {
        job_rec_release (r);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* Forget the borrowed elements of a list, so that proto_clear frees the
 * list alone. */
static void rec_unborrow (char **v, uint32_t n)
{
    for (uint32_t i = 0; v && i < n; i++)
        v[i] = NULL;
}

void job_rec_release (struct msg_job_rec *r)
{
    rec_unborrow (r->node_names, r->node_names_count);
    rec_unborrow (r->events, r->events_count);
    r->request = NULL; /* the borrowed ones */
    r->request_len = 0;
    r->name = NULL;
    r->reason = NULL;
    r->mail_user = NULL;
    proto_clear (MSG_JOB_REC, r);
}

static int live_str (char **dst, const char *s)
{
    return (*dst = strdup (s ? s : "")) ? 0 : -1;
}

/* Its cores: allocated, else asked. */
static uint32_t live_cpus (const struct job *j)
{
    uint64_t cpus = 0;

    for (size_t k = 0; k < j->nnodes; k++)
        cpus += j->nodes[k].cpus;
    if (j->nnodes == 0)
        cpus = (uint64_t)j->req.ntasks * j->req.cpus_per_task;
    return cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)cpus;
}

/* The numbers of the live part. */
static void live_nums (const struct ctld *ctx, const struct prio_pass *pp,
                       const struct job *j, struct msg_job_rec *r)
{
    r->nnodes = j->nnodes ? (uint32_t)j->nnodes : j->req.nnodes;
    r->ncpus = live_cpus (j);
    r->nsteps = (uint32_t)steps_count (j);
    r->expected_start =
        j->state == JOB_PENDING ? (uint64_t)j->expected_start : 0;
    r->ntasks = j->req.ntasks;
    r->cpus_per_task = j->req.cpus_per_task ? j->req.cpus_per_task : 1;
    r->mem_per_node = j->req.mem_mb;
    r->mem_per_cpu = j->req.mem_per_cpu_mb;
    r->min_cpus = j->req.mincpus;
    r->min_tmp = j->req.tmp_mb;
    r->nnodes_max = j->state == JOB_PENDING ? j->range.max : 0;
    if (job_is_active (j)) { /* a running one keeps its start's (prio.c) */
        struct prio p;
        prio_job (ctx, pp, j, &p);
        r->priority = p.priority;
    }
}

/* A batch job's files, patterns expanded; "" for an allocation. */
static int live_files (const struct ctld *ctx, const struct job *j,
                       struct msg_job_rec *r)
{
    if (!j->batch)
        return live_str (&r->std_out, "") | live_str (&r->std_err, "")
               | live_str (&r->std_in, "") | live_str (&r->submit_host, "");
    r->std_out = batch_output (ctx, j, 1);
    r->std_err = batch_output (ctx, j, 2);
    r->std_in = batch_output (ctx, j, 0);
    if (!r->std_out || !r->std_err || !r->std_in)
        return -1;
    return live_str (&r->submit_host, j->batch->submit_host);
}

/* The nodes of j's partition that 'mask' marks (its -w or -x), ranged;
 * "" when none. NULL with errno ENOMEM. */
static char *live_marked_nodes (const struct ctld *ctx, const struct job *j,
                                const bool *mask)
{
    const struct part *p = &ctx->parts[j->part];
    struct hostlist *hl = hostlist_create (NULL, NULL);
    char *ranged = NULL;

    if (!hl)
        return NULL;
    for (size_t k = 0; k < p->nnodes; k++)
        if (mask && mask[k]
            && hostlist_append (hl, ctx->nodes[p->nodes[k]].name) < 0)
            goto out;
    ranged = hostlist_ranged (hl);
out:
    hostlist_destroy (hl);
    return ranged;
}

int job_rec_live (const struct ctld *ctx, const struct prio_pass *pp,
                  const struct job *j, struct msg_job_rec *r)
{
    live_nums (ctx, pp, j, r);
    if (live_str (&r->user, j->user) < 0
        || live_str (&r->partition, ctx->parts[j->part].name) < 0
        || live_str (&r->state_shown, job_state_shown (j)) < 0
        || live_str (&r->nodelist, j->nodelist) < 0
        || live_str (&r->account, j->account) < 0
        || live_str (&r->qos, j->qos) < 0
        || live_str (&r->dependency, j->dependency) < 0
        || live_files (ctx, j, r) < 0
        || !(r->req_nodelist = live_marked_nodes (ctx, j, j->required))
        || !(r->exc_nodelist = live_marked_nodes (ctx, j, j->excluded))
        || !(r->licenses_shown = licenses_shown (j))
        || gres_job_rec (ctx, j, r) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int job_rec_encode (const struct ctld *ctx, const struct job *j, char **buf,
                    uint32_t *len)
{
    struct msg_job_rec r;
    struct prio_pass pp = { 0 };
    size_t n = 0;
    int rc = -1;

    *buf = NULL;
    *len = 0;
    if (job_is_active (j)) /* an ended job has no priority */
        prio_pass_begin (ctx, ctld_now (ctx), &pp);
    if (job_rec_fill (ctx, j, JOB_REC_ANSWER, &r) < 0)
        return -1;
    if (job_rec_live (ctx, &pp, j, &r) == 0
        && proto_encode_sparse (MSG_JOB_REC, &r, buf, &n) == 0) {
        *len = (uint32_t)n;
        rc = 0;
    }
    job_rec_release (&r);
    return rc;
}
