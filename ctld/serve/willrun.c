/* willrun.c - --test-only: when a job would start, had it been submitted
 * now (sbatch, salloc and srun --test-only; Slurm's "will run" query).
 *
 * The request is checked as a submission is (job_create, job_submit_check),
 * then planned with the backfill planner (bf_plan.h) on a snapshot of
 * now, the job slotted in among the pending ones by its priority. The
 * answer is JOB_WILL_RUN; nothing is queued and nothing is kept. The
 * plan is the cost of one backfill pass on the loop, bounded as those
 * are (bf_max_job_test).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/backfill.h"
#include "sched/bf_plan.h"
#include "conf.h"
#include "conn.h"
#include "ctld.h"
#include "hostlist.h"
#include "job/job.h"
#include "job/jobid.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/part.h"
#include "sched/prio.h"
#include "sched/sched.h"
#include "serve/willrun.h"
#include "job/submit.h"

/* Move the job just appended (the last) before the first of lower
 * priority: the planner takes jobs in order. */
static void willrun_slot (struct bf_snap *s)
{
    struct bf_sjob mine = s->jobs[s->njobs - 1];
    size_t k = 0;

    while (k < s->njobs - 1 && s->jobs[k].priority >= mine.priority)
        k++;
    memmove (&s->jobs[k + 1], &s->jobs[k],
             (s->njobs - 1 - k) * sizeof (*s->jobs));
    s->jobs[k] = mine;
}

/* The nodes a BF_START chose, ranged. */
static char *willrun_nodes (const struct ctld *ctx, const struct job *j,
                            const struct select_result *res)
{
    const struct part *p = &ctx->parts[j->part];
    struct hostlist *hl = hostlist_create (NULL, NULL);
    char *text = NULL;

    if (!hl)
        return NULL;
    for (size_t i = 0; i < res->nnodes; i++)
        if (hostlist_append (hl, ctx->nodes[p->nodes[res->idx[i]]].name) < 0)
            goto out;
    text = hostlist_ranged (hl);
out:
    hostlist_destroy (hl);
    return text;
}

/* Plan j among the pending jobs; fill out's time, cores and nodes. */
static int willrun_plan (struct ctld *ctx, const struct job *j,
                         struct msg_job_will_run *out, arbor_error_t *err)
{
    struct bf_params bp;
    struct bf_snap s;
    struct bf_plan plan = { 0 };
    struct prio_pass pp;
    struct prio pr;
    int rc = -1;

    if (bf_params_parse (ctx->conf->scheduler_params, &bp, err) < 0)
        return -1;
    if (backfill_snapshot (ctx, &bp, &s) < 0)
        return errprintf (err, "out of memory");
    prio_pass_begin (ctx, s.now, &pp);
    prio_job (ctx, &pp, j, &pr);
    pr.under_threshold = false; /* it may reserve, to get a time */
    if (backfill_snap_job (ctx, &s, j, &pr) < 0)
        goto nomem;
    s.jobs[s.njobs - 1].eligible = s.now;
    willrun_slot (&s);
    if (bf_plan_run (&s, &plan) < 0)
        goto nomem;
    for (size_t i = 0; i < s.njobs; i++) {
        const struct bf_decision *d = &plan.d[i];
        if (s.jobs[i].id != j->id)
            continue;
        out->start_time = d->verdict == BF_START     ? (uint64_t)s.now
                          : d->verdict == BF_RESERVE ? (uint64_t)d->at
                                                     : 0;
        out->nodelist = d->verdict == BF_START ? willrun_nodes (ctx, j, &d->res)
                                               : strdup ("");
        if (!out->nodelist)
            goto nomem;
    }
    rc = 0;
    goto out;
nomem:
    errno = ENOMEM;
    errprintf (err, "out of memory");
out:
    bf_plan_free (&plan, s.njobs);
    bf_snap_free (&s);
    return rc;
}

int willrun_answer (struct ctld *ctx, const struct msg_job_alloc *req,
                    uid_t uid, gid_t gid, struct msg_job_will_run *out,
                    arbor_error_t *err)
{
    struct job *j = job_create (ctx, req, uid, gid, err);
    int rc = -1;

    memset (out, 0, sizeof (*out));
    if (!j)
        return -1;
    if (job_submit_check (ctx, j, 0, err) < 0
        || jobid_next (ctx, &j->id, err) < 0)
        goto out;
    out->job_id = j->id;
    out->ncpus =
        (uint32_t)((uint64_t)j->req.ntasks * j->req.cpus_per_task > UINT32_MAX
                       ? UINT32_MAX
                       : (uint64_t)j->req.ntasks * j->req.cpus_per_task);
    if (j->req.mincpus && out->ncpus < j->req.mincpus)
        out->ncpus = j->req.mincpus;
    if (!(out->partition = strdup (ctx->parts[j->part].name))) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
        goto out;
    }
    rc = willrun_plan (ctx, j, out, err);
out:
    if (rc < 0)
        proto_clear (MSG_JOB_WILL_RUN, out);
    job_destroy (j);
    return rc;
}

void willrun_serve (struct ctld *ctx, struct conn *c, const struct frame *f,
                    const struct msg_job_alloc *req)
{
    struct msg_job_will_run out;
    arbor_error_t err;

    if (willrun_answer (ctx, req, f->uid, f->gid, &out, &err) < 0) {
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s", err.text);
        return;
    }
    if (conn_send (c, MSG_JOB_WILL_RUN, f->matchtag, FRAME_F_RESPONSE, &out)
        < 0)
        log_err ("JOB_WILL_RUN to %s: %s", conn_peer (c), strerror (errno));
    proto_clear (MSG_JOB_WILL_RUN, &out);
}
