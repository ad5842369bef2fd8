/* job_check.c - a request checked into a job (job_fill): its partition,
 * its node, task and core counts against the partition, the nodes it
 * names (-w/-x), its time limit, --nice, --mem, --signal, and Slurm's
 * other options (job_slurm.c). job_create and job_refill (job.c) call it;
 * nothing here changes the controller's state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctld.h"
#include "hostlist.h"
#include "job/job.h"
#include "sched/constraint.h"
#include "job/job_check.h"
#include "job/job_slurm.h"
#include "nodes/node.h"
#include "nodes/part.h"
#include "job/counts.h"
#include "timestr.h"

/* Mark the nodes of hostlist 'expr' in 'mask' (per partition node). */
static int mark_hosts (const struct ctld *ctx, const struct part *p,
                       const char *expr, bool *mask, size_t *count,
                       arbor_error_t *err)
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
        int idx = node_index (ctx, h), pos;
        if (idx < 0)
            rc = errprintf (err, "invalid node name %s", h);
        else if ((pos = part_node_pos (p, (size_t)idx)) < 0)
            rc = errprintf (err, "node %s is not in partition %s", h, p->name);
        else if (!mask[pos]) {
            mask[pos] = true;
            (*count)++;
        }
    }
    hostlist_destroy (hl);
    errno = EINVAL;
    return rc;
}

static int job_check_time (const struct part *p, struct job *j, uint32_t asked,
                           arbor_error_t *err)
{
    if (asked != TIME_INFINITE && asked > CTLD_MAX_TIME_LIMIT) {
        errno = EINVAL;
        return errprintf (err,
                          "time_limit %u minutes exceeds the maximum "
                          "%u (100 years); use UNLIMITED",
                          asked, CTLD_MAX_TIME_LIMIT);
    }
    j->time_limit = asked ? asked : p->default_time;
    if (j->time_limit == 0)
        j->time_limit = TIME_INFINITE;
    if (p->max_time != TIME_INFINITE && j->time_limit > p->max_time) {
        errno = EINVAL;
        if (j->time_limit == TIME_INFINITE)
            return errprintf (err,
                              "time limit UNLIMITED exceeds partition "
                              "%s MaxTime %u",
                              p->name, p->max_time);
        return errprintf (err,
                          "time limit %u exceeds partition %s MaxTime "
                          "%u",
                          j->time_limit, p->name, p->max_time);
    }
    return 0;
}

static int job_check_nodes (struct ctld *ctx, struct job *j,
                            const struct msg_job_alloc *req, arbor_error_t *err)
{
    const struct part *p = &ctx->parts[j->part];
    size_t nexcl;

    j->required = calloc (p->nnodes ? p->nnodes : 1, sizeof (bool));
    j->excluded = calloc (p->nnodes ? p->nnodes : 1, sizeof (bool));
    if (!j->required || !j->excluded) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    if (mark_hosts (ctx, p, req->nodelist, j->required, &j->nrequired, err) < 0
        || mark_hosts (ctx, p, req->exclude, j->excluded, &nexcl, err) < 0)
        return -1;
    for (size_t i = 0; i < p->nnodes; i++) {
        if (j->required[i] && j->excluded[i]) {
            errno = EINVAL;
            return errprintf (err, "node %s is both required and excluded",
                              ctx->nodes[p->nodes[i]].name);
        }
    }
    return 0;
}

/* The plain "bigger than the partition" cases, with a clear message
 * (select.c finds the subtler impossible ones). */
static int job_check_size (const struct part *p, const struct select_req *r,
                           arbor_error_t *err)
{
    uint64_t cpus = r->overcommit ? r->cpus_per_task
                                  : (uint64_t)r->ntasks * r->cpus_per_task;

    errno = EINVAL;
    if (r->nnodes > p->nnodes)
        return errprintf (err, "requested %u nodes but partition %s has %zu",
                          r->nnodes, p->name, p->nnodes);
    if (cpus > p->total_cpus)
        return errprintf (err,
                          "requested %llu cpus but partition %s has "
                          "%llu",
                          (unsigned long long)cpus, p->name,
                          (unsigned long long)p->total_cpus);
    return 0;
}

/* The largest CPUs and RealMemory among the partition's nodes. */
static void part_largest (const struct ctld *ctx, const struct part *p,
                          uint32_t *cpus, uint64_t *mem)
{
    *cpus = 0;
    *mem = 0;
    for (size_t i = 0; i < p->nnodes; i++) {
        const struct node *n = &ctx->nodes[p->nodes[i]];
        if (n->cpus > *cpus)
            *cpus = n->cpus;
        if (n->real_memory > *mem)
            *mem = n->real_memory;
    }
}

/* Counts that no node or the whole partition could ever hold, refused
 * naming the field (counts.h). */
static int job_check_counts (const struct ctld *ctx, const struct part *p,
                             const struct msg_job_alloc *req,
                             arbor_error_t *err)
{
    const struct counts_ask ask = {
        COUNTS_ASK_OF (req),
        .mem_per_cpu_mb = req->mem_per_cpu_mb,
        .overcommit = req->overcommit,
    };
    struct counts_room room = { .nnodes = p->nnodes, .cpus = p->total_cpus };

    part_largest (ctx, p, &room.node_cpus, &room.node_mem_mb);
    errno = EINVAL;
    if (req->cpus_per_task == 0)
        return errprintf (err, "cpus_per_task must be at least 1");
    snprintf (room.node, sizeof (room.node),
              "of the largest node of partition %s", p->name);
    snprintf (room.whole, sizeof (room.whole), "of partition %s", p->name);
    return counts_check (&ask, &room, err);
}

/* --mem or --mem-per-cpu; --signal=SIG@TIME. */
#define NICE_MAX 2147483645 /* as Slurm's --nice */

static int job_check_extras (const struct ctld *ctx, struct job *j,
                             const struct msg_job_alloc *req,
                             arbor_error_t *err)
{
    errno = EINVAL;
    if (req->nice < -NICE_MAX || req->nice > NICE_MAX)
        return errprintf (err, "--nice=%d is out of range (+-%d)", req->nice,
                          NICE_MAX);
    if (req->nice < 0 && j->uid != 0 && j->uid != ctx->priv_uid) {
        char who[JOB_ADMINS_LEN];
        errno = EPERM;
        return errprintf (err, "--nice=%d: only %s may raise a job's priority",
                          req->nice, job_admins (ctx, who, sizeof (who)));
    }
    j->nice = req->nice;
    if (req->mem_mb && req->mem_per_cpu_mb)
        return errprintf (err, "--mem and --mem-per-cpu are mutually "
                               "exclusive");
    int warn = req->warn_signal & ~WARN_SIGNAL_BATCH;
    if (req->warn_signal < 0 || warn >= 65)
        return errprintf (err, "invalid --signal number %d", warn);
    if (req->warn_time > 0xffff)
        return errprintf (err, "--signal time %u exceeds 65535 s",
                          req->warn_time);
    j->req.mem_per_cpu_mb = req->mem_per_cpu_mb;
    j->warn_signal = req->warn_signal;
    j->warn_time = warn == 0        ? 0
                   : req->warn_time ? req->warn_time
                                    : CTLD_WARN_DEFAULT;
    return 0;
}

int job_fill (struct ctld *ctx, struct job *j, const struct msg_job_alloc *req,
              arbor_error_t *err)
{
    int pi = part_index (ctx, req->partition);

    if (pi < 0) {
        errno = EINVAL;
        if (req->partition && req->partition[0])
            return errprintf (err, "invalid partition name %s", req->partition);
        return errprintf (err, "no partition is defined");
    }
    j->part = (size_t)pi;
    if (job_check_counts (ctx, &ctx->parts[pi], req, err) < 0
        || job_check_nodes (ctx, j, req, err) < 0)
        return -1;
    j->req.nnodes = req->nnodes;
    j->req.ntasks = req->ntasks;
    j->req.cpus_per_task = req->cpus_per_task;
    j->req.ntasks_per_node = req->ntasks_per_node;
    j->req.mem_mb = req->mem_mb;
    j->req.exclusive = req->exclusive;
    j->req.overcommit = req->overcommit && !req->exclusive;
    if (job_check_extras (ctx, j, req, err) < 0
        || job_slurm_fill (ctx, j, req, err) < 0
        || gres_job_init (ctx, j, req, err) < 0)
        return -1;
    if (select_normalize (&j->req, j->nrequired, err) < 0
        || job_check_size (&ctx->parts[pi], &j->req, err) < 0)
        return -1;
    if (job_check_time (&ctx->parts[pi], j, req->time_limit, err) < 0
        || constraint_job_init (j, req->constraint, err) < 0)
        return -1;
    return job_slurm_check_time (j, err);
}
