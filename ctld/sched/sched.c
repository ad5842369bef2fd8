/* sched.c - strict priority scheduling (sched/builtin).
 *
 * A pass runs once before the loop sleeps whenever something asked for
 * it (sched_request, from the functions that change what is free or
 * pending: jobstate.c's transitions, node.c, orphan.c, heard.c), and
 * at once on a submission. What a pass decides about a job (it is
 * eligible, it starts, its start is granted, it can never start) is
 * posted to jobstate.c as an event; this file never sets a job's state. It
 * takes the pending jobs that may start (when.h) in priority order (prio.h:
 * partition PriorityTier, priority, submission) and starts each one that fits
 * now; the first that does not blocks its partition (reason "Resources" for
 * that one, or "ReqNodeNotAvail, UnavailableNodes:LIST" when a node it requires
 * is DOWN or drained; "Priority" for those behind it there), so a big job is
 * never starved by smaller ones behind it. Other partitions go on.
 *
 * Jobs that can never run (more nodes or cores than their partition has,
 * whatever the node states) are refused at submission with the reason,
 * instead of waiting forever. At most MaxJobCount job records are kept
 * (so that every answer listing jobs stays bounded): finished jobs are
 * forgotten early to make room, and when all are active a submission is
 * refused (EAGAIN) until some end.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/backfill.h"
#include "sched/bf_plan.h"
#include "conf.h"
#include "conn.h"
#include "ctld.h"
#include "error.h"
#include "job/job.h"
#include "sched/constraint.h"
#include "sched/gres_sched.h"
#include "sched/licenses.h"
#include "log.h"
#include "state/persist.h"
#include "nodes/node.h"
#include "nodes/part.h"
#include "proto.h"
#include "sched/prio.h"
#include "sched/sched.h"
#include "sched/sched_cand.h"
#include "sched/sched_private.h"
#include "sched/sched_range.h"
#include "sched/select.h"
#include "states.h"
#include "sched/when.h"
#include "sched/sched_wake.h"

/* Views of the partition's nodes, as select.c wants them. */
static struct select_node *sched_views (const struct ctld *ctx,
                                        const struct job *j)
{
    const struct part *p = &ctx->parts[j->part];
    struct select_node *v = calloc (p->nnodes ? p->nnodes : 1, sizeof (*v));

    if (!v)
        return NULL;
    for (size_t i = 0; i < p->nnodes; i++) {
        const struct node *n = &ctx->nodes[p->nodes[i]];
        v[i].name = n->name;
        v[i].cpus = n->cpus;
        v[i].free_cpus = n->cpus - n->alloc_cpus;
        v[i].memory = n->real_memory;
        v[i].free_memory = n->real_memory > n->alloc_memory
                               ? n->real_memory - n->alloc_memory
                               : 0;
        v[i].usable = node_usable (n);
        v[i].required = j->required[i];
        v[i].excluded = j->excluded[i];
        v[i].pref = loadsel_pref (&ctx->loadsel, n);
        v[i].tmp_mb = n->tmp_disk;
    }
    return v;
}

/* Try to select for 'j' in 'mode', alternative 'alt' of its constraint
 * (constraint.h). 0 with 'res' filled, or -1 + errno. */
static int sched_select_alt (const struct ctld *ctx, const struct job *j,
                             size_t alt, enum select_mode mode,
                             struct select_result *res, arbor_error_t *err)
{
    const struct part *p = &ctx->parts[j->part];
    struct select_node *v = sched_views (ctx, j);
    int rc;

    if (!v) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    gres_views (ctx, j, mode, v);
    if (!constraint_views (ctx, j, alt, mode, v)) {
        free (v);
        errno = ENOSPC;
        return errprintf (err, "Requested node configuration is not "
                               "available (too few nodes with the "
                               "features its counts name)");
    }
    if (j->range.max && mode == SELECT_NOW)
        rc = sched_range_select (v, p->nnodes, j, res, err);
    else
        rc = select_run (v, p->nnodes, &j->req, mode, res, err);
    free (v);
    return rc;
}

/* The first alternative that fits wins. */
static int sched_select (const struct ctld *ctx, const struct job *j,
                         enum select_mode mode, struct select_result *res,
                         arbor_error_t *err)
{
    size_t n = constraint_alts (j);
    int rc = -1;

    for (size_t alt = 0; alt < n; alt++)
        if ((rc = sched_select_alt (ctx, j, alt, mode, res, err)) == 0
            || errno == ENOMEM)
            break;
    return rc;
}

int sched_ever_fits (struct ctld *ctx, const struct job *j, arbor_error_t *err)
{
    struct select_result res;

    if (licenses_check (ctx, j, err) < 0 || constraint_check (ctx, j, err) < 0)
        return -1;
    if (sched_select (ctx, j, SELECT_EVER, &res, err) < 0) {
        if (errno == ENOSPC)
            errno = EINVAL;
        return -1;
    }
    select_result_clear (&res);
    return 0;
}

/* Why j waits: "ReqNodeNotAvail, UnavailableNodes:node2" when a node it
 * requires (-w) is DOWN, drained or unknown, as slurmctld says; else
 * "Resources". */
static void sched_wait_reason (const struct ctld *ctx, struct job *j)
{
    const struct part *p = &ctx->parts[j->part];
    char why[256] = "ReqNodeNotAvail, UnavailableNodes:";
    size_t len = strlen (why), start = len;

    for (size_t i = 0; i < p->nnodes && len < sizeof (why); i++) {
        const struct node *n = &ctx->nodes[p->nodes[i]];
        if (!j->required[i] || node_usable (n))
            continue;
        len += (size_t)snprintf (why + len, sizeof (why) - len, "%s%s",
                                 len > start ? "," : "", n->name);
    }
    (void)job_set_reason (j, len > start ? why : "Resources");
}

void sched_hooks_set (struct ctld *ctx, const struct sched_hooks *h)
{
    if (ctx->sched)
        ctx->sched->hooks = *h;
}

/* Start j now if it fits: 1 started, 0 it must wait (reason set). */
static int sched_try (struct ctld *ctx, struct job *j)
{
    struct select_result res;
    arbor_error_t err;
    int started = 0;

    if (j->range.max) /* each run starts from the range's minimum */
        sched_range_reset (j);
    if (sched_select (ctx, j, SELECT_NOW, &res, &err) < 0) {
        if (errno == ENOSPC)
            sched_wait_reason (ctx, j);
        else
            log_err ("job %u: %s", j->id, err.text);
        return 0;
    }
    started = sched_start (ctx, j, &res);
    select_result_clear (&res);
    return started;
}

/* One pass: start the candidates in order while they fit. The first
 * that does not fit blocks its partition: the jobs behind it there wait
 * ("Priority"), so that a big job is never starved by smaller ones (until
 * a backfill scheduler knows when it will start). */
static void sched_pass (struct ctld *ctx)
{
    struct when_pass wp = { 0 };
    struct sched_cand *cands = NULL;
    bool *blocked;
    size_t n = 0;

    /* Nothing starts that could not be recorded: the pass waits until the
     * state database is written again (persist.c asks for a pass then). */
    if (persist_writable (ctx, NULL, 0))
        return;
    blocked = calloc (ctx->nparts + 1, sizeof (bool));
    if (!blocked || when_pass_begin (ctx, &wp) < 0
        || !(cands = sched_candidates (ctx, &wp, &n))) {
        log_err ("scheduling pass: out of memory");
        goto out;
    }
    licenses_pass_begin (ctx);
    for (size_t i = 0; i < n; i++) {
        struct job *j = cands[i].j;
        const char *why = NULL;
        enum when_verdict verdict;

        if (j->state != JOB_PENDING)
            continue; /* ended during the pass */
        /* An array's cap may have been reached by its tasks started
         * earlier in this pass. */
        if ((verdict = when_eligible (ctx, j, &wp, &why)) != WHEN_READY)
            sched_not_eligible (ctx, j, verdict, why);
        else if (blocked[j->part])
            (void)job_set_reason (j, "Priority");
        else if (!licenses_admit (ctx, j))
            continue; /* "Licenses": its partition's cores are not what
                         it waits for */
        else if (sched_try (ctx, j))
            when_started (&wp, j);
        else
            blocked[j->part] = true;
    }
out:
    if (!cands)
        sched_request (ctx); /* try again */
    when_pass_end (&wp);
    free (cands);
    free (blocked);
}

static void sched_prepare_cb (struct ev_loop *loop, ev_prepare *w, int revents)
{
    struct sched *s = w->data;

    sched_flush (s->ctx);
}

static void sched_bf_log (const struct bf_stats *st)
{
    if (st->started || st->reserved)
        log_debug ("backfill: %u jobs tested, %u started, %u reserved",
                   st->tested, st->started, st->reserved);
}

void sched_backfill (struct ctld *ctx)
{
    struct sched *s = ctx->sched;
    struct bf_stats st;

    if (!s || !s->backfill)
        return;
    sched_flush (ctx); /* the strict pass first: it may start the top */
    if (backfill_pass (ctx, &s->bp, &st) < 0) {
        log_err ("backfill pass: out of memory");
        return;
    }
    sched_bf_log (&st);
}

/* The worker's plan is back: apply it on the loop. */
static void sched_bf_done (struct bf_snap *snap, struct bf_plan *plan,
                           int errnum, void *arg)
{
    struct sched *s = arg;
    struct bf_stats st;

    if (errnum) {
        log_err ("backfill plan: %s", strerror (errnum));
        bf_snap_free (snap);
        free (snap);
        return;
    }
    backfill_finish (s->ctx, snap, plan, &st);
    sched_bf_log (&st);
}

/* Every bf_interval: the strict pass, then a plan off the loop, unless
 * the last one is still being made. */
static void sched_bf_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct sched *s = w->data;

    if (bf_worker_busy (s->worker))
        return;
    sched_flush (s->ctx);
    if (backfill_start (s->ctx, &s->bp, s->worker) < 0)
        log_err ("backfill: %s", strerror (errno));
}

struct sched *sched_create (struct ctld *ctx)
{
    struct sched *s = calloc (1, sizeof (*s));

    if (!s)
        return NULL;
    s->ctx = ctx;
    ev_prepare_init (&s->w, sched_prepare_cb);
    s->w.data = s;
    return s;
}

#define SCHED_BUILTIN "sched/builtin"
#define SCHED_BACKFILL "sched/backfill"

int sched_configure (struct ctld *ctx, arbor_error_t *err)
{
    struct sched *s = ctx->sched;
    const char *type = ctx->conf->scheduler_type;

    if (bf_params_parse (ctx->conf->scheduler_params, &s->bp, err) < 0)
        return -1;
    if (type && strcmp (type, SCHED_BUILTIN) && strcmp (type, SCHED_BACKFILL))
        return errprintf (err, "SchedulerType=%s: Arbor has %s and %s", type,
                          SCHED_BUILTIN, SCHED_BACKFILL);
    s->backfill = type && !strcmp (type, SCHED_BACKFILL);
    if (!s->backfill || !ctx->loop)
        return 0;
    if (!(s->worker = bf_worker_create (ctx->loop, sched_bf_done, s)))
        return errprintf (err, "backfill: cannot start its thread");
    ev_timer_init (&s->bf_w, sched_bf_cb, s->bp.interval, s->bp.interval);
    s->bf_w.data = s;
    ev_timer_start (ctx->loop, &s->bf_w);
    ev_unref (ctx->loop); /* the timer alone does not keep the loop going */
    return 0;
}

void sched_stop (struct sched *s)
{
    if (!s)
        return;
    if (s->ctx->loop && ev_is_active (&s->bf_w)) {
        ev_ref (s->ctx->loop);
        ev_timer_stop (s->ctx->loop, &s->bf_w);
    }
    bf_worker_destroy (s->worker); /* waits for a plan being made */
    s->worker = NULL;
    s->backfill = false;
}

void sched_destroy (struct sched *s)
{
    int saved = errno;

    if (!s)
        return;
    if (s->ctx->loop)
        ev_prepare_stop (s->ctx->loop, &s->w);
    sched_stop (s);
    free (s);
    errno = saved;
}

/* A pass may itself ask for another (a job that cannot be told it
 * started ends): run until none is asked for. */
void sched_flush (struct ctld *ctx)
{
    struct sched *s = ctx->sched;

    if (!s)
        return;
    while (s->pending) {
        s->pending = false;
        sched_pass (ctx);
    }
    if (ctx->loop)
        ev_prepare_stop (ctx->loop, &s->w);
}
