/* simrun.c - one replay of a trace through the controller's own
 * scheduling code, in virtual time. See simrun.h.
 *
 * The controller is built as the daemon builds it, without munge, a
 * listener or a loop (ctld_create_state, no state database), its nodes
 * registered, its messages to nodes dropped. Its clock is virtual
 * (ctx->sim_now, ctld_now): time jumps from event to event, an event
 * being a job's submission or its end (its start plus the run time the
 * trace gives). At each instant the ends are processed first (job_end,
 * then every node's epilog done), then the submissions (job_submit,
 * which runs the strict pass), then, with sched/backfill, a backfill pass
 * (sched_backfill: each instant, as if bf_interval were that short).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "ctld.h"
#include "job/job.h"
#include "log.h"
#include "nodes/nodecomm.h"
#include "nodes/node.h"
#include "sched/sched.h"
#include "simrun.h"
#include "states.h"
#include "job/term.h"
#include "job/submit.h"

#define SIM_EPOCH 1000000000 /* virtual time of the trace's second 0 */

struct sim_job {
    const struct swf_job *t;
    struct job *j;      /* while the controller has it */
    int64_t start, end; /* virtual; -1 until known */
};

/* A min-heap of (end, index) for the running jobs. */
struct sim_heap {
    int64_t *end;
    size_t *idx;
    size_t n;
};

static void heap_push (struct sim_heap *h, int64_t end, size_t idx)
{
    size_t i = h->n++;

    while (i > 0 && h->end[(i - 1) / 2] > end) {
        h->end[i] = h->end[(i - 1) / 2];
        h->idx[i] = h->idx[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->end[i] = end;
    h->idx[i] = idx;
}

static size_t heap_pop (struct sim_heap *h)
{
    size_t top = h->idx[0], i = 0;
    int64_t end = h->end[--h->n];
    size_t idx = h->idx[h->n];

    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->end[c + 1] < h->end[c])
            c++;
        if (h->end[c] >= end)
            break;
        h->end[i] = h->end[c];
        h->idx[i] = h->idx[c];
        i = c;
    }
    h->end[i] = end;
    h->idx[i] = idx;
    return top;
}

static void sim_drop (struct ctld *ctx, size_t node, int type, const void *msg,
                      void *arg)
{
}

static struct ctld *sim_controller (const char *conf_text, arbor_error_t *err)
{
    struct conf *conf = conf_parse (conf_text, "arbor-sim", err);
    struct ctld *ctx;

    if (!conf)
        return NULL;
    if (!(ctx = ctld_create_state (conf, NULL, CTLD_STATE_VOLATILE, err)))
        return NULL;
    ctx->priv_uid = getuid ();
    ctx->sim_now = SIM_EPOCH;
    nodecomm_set_sink (ctx->nodecomm, sim_drop, NULL);
    for (size_t i = 0; i < ctx->nnodes; i++)
        node_register (ctx, i, ctx->nodes[i].cpus, ctx->nodes[i].real_memory,
                       NULL, ctx->sim_now);
    return ctx;
}

/* The job's end: every node's epilog done at once. */
static void sim_end (struct ctld *ctx, struct sim_job *s)
{
    struct job *j = s->j;
    size_t n = j->nnodes;
    size_t *nodes = calloc (n + 1, sizeof (*nodes));

    job_end (ctx, j, JOB_COMPLETED, NULL);
    for (size_t k = 0; nodes && k < n; k++)
        nodes[k] = j->nodes[k].node;
    for (size_t k = 0; nodes && k < n; k++) {
        struct msg_epilog_complete m = { .job_id = j->id,
                                         .node = ctx->nodes[nodes[k]].name,
                                         .drain_reason = "" };
        arbor_error_t err;
        (void)term_epilog_complete (ctx, &m, &err);
    }
    free (nodes);
    s->j = NULL;
}

static int sim_submit (struct ctld *ctx, struct sim_job *s)
{
    struct msg_job_alloc r = {
        .name = "sim",
        .ntasks = s->t->procs,
        .cpus_per_task = 1,
        .time_limit = (uint32_t)((s->t->req_time + 59) / 60),
        .cwd = "/",
    };
    arbor_error_t err;
    struct job *j;

    if (r.time_limit == 0)
        r.time_limit = 1;
    if (!(j = job_create (ctx, &r, getuid (), getgid (), &err)))
        return -1;
    if (job_submit (ctx, j, &err) < 0) {
        job_destroy (j);
        return -1;
    }
    s->j = j;
    return 0;
}

struct sim_state {
    struct ctld *ctx;
    struct sim_job *jobs;
    size_t n, next; /* the next job to submit */
    struct sim_heap heap;
    size_t *waiting; /* submitted, not started */
    size_t nwaiting;
    bool backfill;
};

/* Jobs that started at this instant get their end event. */
static void sim_note_starts (struct sim_state *st)
{
    size_t kept = 0;

    for (size_t i = 0; i < st->nwaiting; i++) {
        struct sim_job *s = &st->jobs[st->waiting[i]];
        if (s->j && s->j->state == JOB_RUNNING) {
            s->start = st->ctx->sim_now;
            s->end = s->start + s->t->run;
            heap_push (&st->heap, s->end, st->waiting[i]);
        } else if (s->j)
            st->waiting[kept++] = st->waiting[i];
    }
    st->nwaiting = kept;
}

static void sim_instant (struct sim_state *st, int64_t t)
{
    struct ctld *ctx = st->ctx;

    ctx->sim_now = t;
    while (st->heap.n && st->heap.end[0] <= t)
        sim_end (ctx, &st->jobs[heap_pop (&st->heap)]);
    while (st->next < st->n && SIM_EPOCH + st->jobs[st->next].t->submit <= t) {
        struct sim_job *s = &st->jobs[st->next];
        if (sim_submit (ctx, s) == 0)
            st->waiting[st->nwaiting++] = st->next;
        st->next++;
    }
    if (st->backfill)
        sched_backfill (ctx);
    else
        sched_flush (ctx);
    sim_note_starts (st);
    jobs_purge (ctx, t, false);
}

static void sim_metrics (const struct sim_state *st, uint32_t procs,
                         struct sim_result *out)
{
    double wait = 0, bsld = 0, work = 0;
    int64_t first = INT64_MAX, last = 0;

    memset (out, 0, sizeof (*out));
    for (size_t i = 0; i < st->n; i++) {
        const struct sim_job *s = &st->jobs[i];
        int64_t submit = SIM_EPOCH + s->t->submit;
        if (s->start < 0) {
            out->skipped++;
            continue;
        }
        double w = (double)(s->start - submit), r = (double)s->t->run;
        out->jobs++;
        wait += w;
        bsld +=
            (w + r) / (r > 10 ? r : 10) > 1 ? (w + r) / (r > 10 ? r : 10) : 1;
        work += r * s->t->procs;
        first = submit < first ? submit : first;
        last = s->end > last ? s->end : last;
    }
    if (!out->jobs)
        return;
    out->avg_wait = wait / (double)out->jobs;
    out->avg_bsld = bsld / (double)out->jobs;
    out->makespan = last - first;
    out->utilization =
        out->makespan > 0 ? work / ((double)procs * (double)out->makespan) : 0;
}

int sim_run (const char *conf_text, const struct swf_job *jobs, size_t n,
             uint32_t procs, struct sim_result *out, arbor_error_t *err)
{
    struct sim_state st = { .n = n };
    int rc = -1;

    if (!(st.ctx = sim_controller (conf_text, err)))
        return -1;
    st.backfill = st.ctx->conf->scheduler_type
                  && !strcmp (st.ctx->conf->scheduler_type, "sched/backfill");
    st.jobs = calloc (n + 1, sizeof (*st.jobs));
    st.heap.end = calloc (n + 1, sizeof (int64_t));
    st.heap.idx = calloc (n + 1, sizeof (size_t));
    st.waiting = calloc (n + 1, sizeof (size_t));
    if (!st.jobs || !st.heap.end || !st.heap.idx || !st.waiting) {
        errprintf (err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        st.jobs[i] = (struct sim_job){ .t = &jobs[i], .start = -1, .end = -1 };
    while (st.next < n || st.heap.n) {
        int64_t t = INT64_MAX;
        if (st.next < n)
            t = SIM_EPOCH + jobs[st.next].submit;
        if (st.heap.n && st.heap.end[0] < t)
            t = st.heap.end[0];
        if (t == INT64_MAX)
            break; /* waiting jobs that can never start */
        sim_instant (&st, t);
    }
    sim_metrics (&st, procs, out);
    rc = 0;
out:
    ctld_destroy (st.ctx);
    free (st.jobs);
    free (st.heap.end);
    free (st.heap.idx);
    free (st.waiting);
    return rc;
}
