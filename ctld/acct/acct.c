/* acct.c - accounting records of jobs and steps, written as they end.
 * See acct.h; the queries are acct_serve.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct/acct.h"
#include "acct/acct_db.h"
#include "acct/acct_private.h"
#include "acct/acct_usage.h"
#include "conf.h"
#include "ctld.h"
#include "job/events.h"
#include "job/job.h"
#include "job/job_rec.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/part.h"
#include "job/step.h"

/* ---- records ------------------------------------------------------------ */

static uint32_t job_alloc_cpus (const struct job *j)
{
    uint32_t n = 0;

    for (size_t k = 0; k < j->nnodes; k++)
        n += j->nodes[k].cpus;
    return n;
}

static uint64_t job_alloc_mem (const struct job *j)
{
    uint64_t mb = 0;

    for (size_t k = 0; k < j->nnodes; k++)
        mb += j->nodes[k].mem_mb;
    return mb;
}

void acct_job_fill (const struct ctld *ctx, const struct job *j,
                    const char *state, struct msg_acct_job *r)
{
    uint64_t req_cpus = select_req_cpus (&j->req);

    *r = (struct msg_acct_job){
        .job_id = j->id,
        .run = j->restarts,
        .array_job_id = j->array_job_id,
        .array_task_id = j->array_task_id,
        .uid = (uint32_t)j->uid,
        .gid = (uint32_t)j->gid,
        .user = j->user,
        .account = j->account,
        .partition = ctx->parts[j->part].name,
        .name = j->name,
        .cluster = ctx->conf->cluster_name,
        .submit_time = (uint64_t)j->submit_time,
        .eligible_time = (uint64_t)j->eligible_time,
        .start_time = (uint64_t)j->start_time,
        .end_time = (uint64_t)j->end_time,
        .state = (char *)state,
        .exit_code = j->exit_signal ? 0 : j->exit_rc,
        .signal = j->exit_signal,
        .reason = j->reason,
        .nnodes = j->nnodes ? (uint32_t)j->nnodes : j->req.nnodes,
        .nodelist = j->nodelist ? j->nodelist : "",
        .alloc_cpus = job_alloc_cpus (j),
        .req_cpus = req_cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)req_cpus,
        .ntasks = j->req.ntasks,
        .req_mem_mb =
            j->req.mem_per_cpu_mb ? j->req.mem_per_cpu_mb : j->req.mem_mb,
        .mem_per_cpu = j->req.mem_per_cpu_mb != 0,
        .time_limit = j->time_limit,
        .work_dir = j->cwd,
        .alloc_mem_mb = job_alloc_mem (j),
    };
}

int acct_job_events (const struct job *j, struct msg_acct_job *r)
{
    if (!(r->event_times = calloc (j->nevents + 1, sizeof (uint32_t)))
        || !(r->events = calloc (j->nevents + 1, sizeof (char *)))) {
        free (r->event_times);
        r->event_times = NULL;
        errno = ENOMEM;
        return -1;
    }
    for (uint32_t i = 0; i < j->nevents; i++) {
        r->event_times[i] = (uint32_t)j->events[i].time;
        r->events[i] = j->events[i].text; /* borrowed */
    }
    r->event_times_count = r->events_count = j->nevents;
    r->events_dropped = j->events_dropped;
    return 0;
}

void acct_job_events_free (struct msg_acct_job *r)
{
    free (r->event_times);
    free (r->events);
    r->event_times = NULL;
    r->events = NULL;
    r->event_times_count = r->events_count = 0;
}

void acct_step_fill (const struct job *j, const struct step *s,
                     const char *state, time_t end, struct msg_acct_step *r)
{
    uint32_t cpus = 0;

    for (size_t i = 0; i < s->nnodes; i++)
        cpus += s->cpus[i];
    *r = (struct msg_acct_step){
        .job_id = j->id,
        .run = j->restarts,
        .step_id = s->id,
        .name = s->name,
        .start_time = (uint64_t)s->start_time,
        .end_time = (uint64_t)end,
        .state = (char *)state,
        .exit_code = s->exit_code,
        .signal = s->signal,
        .nnodes = (uint32_t)s->nnodes,
        .nodelist = s->nodelist,
        .ntasks = s->ntasks,
        .alloc_cpus = cpus,
        .req_mem_mb = s->mem_mb,
        .max_rss_node = "",
    };
}

/* ---- writing ------------------------------------------------------------ */

static void acct_write_job (const struct ctld *ctx, struct job *j,
                            const char *state)
{
    struct msg_acct_job r;
    char *buf;
    size_t len;

    acct_job_fill (ctx, j, state, &r);
    if (acct_job_events (j, &r) < 0
        || job_rec_encode (ctx, j, &r.job, &r.job_len) < 0
        || proto_encode (MSG_ACCT_JOB, &r, &buf, &len) < 0
        || acct_db_put_job (ctx->acct->db, &r, buf, len) < 0)
        log_err ("accounting: job %u: %s", j->id, strerror (errno));
    else
        j->acct_written = true;
    acct_job_events_free (&r);
    free (r.job);
}

void acct_job_over (const struct ctld *ctx, struct job *j)
{
    if (!ctx->acct || !ctx->acct->db || j->acct_written)
        return;
    acct_write_job (ctx, j, job_state_str (j->state));
}

void acct_job_requeued (const struct ctld *ctx, struct job *j)
{
    if (!ctx->acct || !ctx->acct->db || j->acct_written)
        return;
    acct_write_job (ctx, j,
                    job_state_str (j->state == JOB_NODE_FAIL ? JOB_NODE_FAIL
                                                             : JOB_REQUEUED));
}

void acct_step_over (const struct ctld *ctx, const struct job *j,
                     const struct step *s, const char *state)
{
    struct msg_acct_step r;
    char *buf;
    size_t len;

    if (!ctx->acct || !ctx->acct->db)
        return;
    if (!state)
        state = acct_step_state (s->exit_code, s->signal, s->oom);
    acct_step_fill (j, s, state, ctld_now (ctx), &r);
    if (proto_encode (MSG_ACCT_STEP, &r, &buf, &len) < 0
        || acct_db_put_step (ctx->acct->db, j->id, j->restarts, s->id, buf, len)
               < 0)
        log_err ("accounting: step %u.%u: %s", j->id, s->id, strerror (errno));
}

/* What a step still running when its job ends is recorded as: its own
 * end if its launcher told it, else what ended the job. */
static const char *step_state_with_job (const struct job *j,
                                        const struct step *s)
{
    if (s->ended)
        return NULL;
    switch (j->state) {
    case JOB_CANCELLED:
    case JOB_TIMEOUT: return job_state_str (JOB_CANCELLED);
    case JOB_NODE_FAIL: return job_state_str (JOB_NODE_FAIL);
    case JOB_OUT_OF_MEMORY: return job_state_str (JOB_OUT_OF_MEMORY);
    default: return job_state_str (JOB_COMPLETED);
    }
}

void acct_steps_over (const struct ctld *ctx, const struct job *j)
{
    for (const struct step *s = j->steps; s; s = s->next)
        acct_step_over (ctx, j, s, step_state_with_job (j, s));
}

void acct_node_report (const struct ctld *ctx, const struct job *j,
                       const struct msg_step_complete *m)
{
    char *buf;
    size_t len;

    if (!ctx->acct || !ctx->acct->db || !m->node || !m->node[0])
        return;
    if (proto_encode (MSG_STEP_COMPLETE, m, &buf, &len) < 0
        || acct_db_put_usage (ctx->acct->db, j->id, j->restarts, m->step_id,
                              m->node, buf, len)
               < 0)
        log_err ("accounting: usage of step %u.%u on %s: %s", j->id, m->step_id,
                 m->node, strerror (errno));
}

void acct_restored (struct ctld *ctx)
{
    for (struct job *j = ctx->jobs; j; j = j->next)
        if (!job_is_active (j) && !j->completing && !j->requeue_pending)
            acct_job_over (ctx, j);
}

/* ---- opening ------------------------------------------------------------ */

#define ACCT_SQLITE "accounting_storage/sqlite"
#define ACCT_NONE "accounting_storage/none"

int acct_open (struct ctld *ctx, arbor_error_t *err)
{
    const char *type = ctx->conf->acct_storage_type;
    const char *loc = ctx->conf->acct_storage_loc;
    char path[4200];

    if (!(ctx->acct = calloc (1, sizeof (*ctx->acct))))
        return errprintf (err, "out of memory");
    if (type && !strcmp (type, ACCT_NONE))
        return 0;
    if (type && strcmp (type, ACCT_SQLITE))
        return errprintf (err,
                          "AccountingStorageType=%s: Arbor keeps its "
                          "accounting in %s (or none: %s)",
                          type, ACCT_SQLITE, ACCT_NONE);
    if (!loc) {
        snprintf (path, sizeof (path), "%s/%s", ctx->conf->state_save_location,
                  ACCT_DB_FILE);
        loc = path;
    }
    if (!(ctx->acct->db = acct_db_open (ctx->loop, loc, err)))
        return -1;
    log_verbose ("accounting database: %s", loc);
    return 0;
}

/* Forget the queries still out (acct_serve.c's, answered first). */
static void acct_asks_free (struct ctld *ctx)
{
    while (ctx->acct->asks) {
        struct acct_ask *a = ctx->acct->asks;
        ctx->acct->asks = a->next;
        free (a);
    }
}

void acct_close (struct ctld *ctx)
{
    if (!ctx->acct)
        return;
    acct_db_close (ctx->acct->db); /* its queries are answered first */
    acct_asks_free (ctx);
    free (ctx->acct);
    ctx->acct = NULL;
}
