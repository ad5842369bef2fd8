/* prio.c - pending jobs' priorities. See prio.h.
 */
#include <string.h>

#include "conf.h"
#include "ctld.h"
#include "job.h"
#include "node.h"
#include "part.h"
#include "prio.h"

#define PRIO_BASIC_TOP 0xffff0000u /* priority/basic: this less the id */

int prio_check (const struct ctld *ctx, arbor_error_t *err)
{
    const char *type = ctx->conf->priority_type;

    if (!type || !strcmp (type, PRIO_BASIC) || !strcmp (type, PRIO_MULTIFACTOR))
        return 0;
    return errprintf (err, "PriorityType=%s: Arbor has %s and %s", type,
                      PRIO_BASIC, PRIO_MULTIFACTOR);
}

bool prio_multifactor (const struct ctld *ctx)
{
    const char *type = ctx->conf->priority_type;

    return type && !strcmp (type, PRIO_MULTIFACTOR);
}

/* weight x num/den, rounded down; num is capped at den. */
static uint32_t weighted (uint32_t weight, uint64_t num, uint64_t den)
{
    if (den == 0)
        return 0;
    if (num > den)
        num = den;
    return (uint32_t)((uint64_t)weight * num / den);
}

void prio_pass_begin (const struct ctld *ctx, time_t now, struct prio_pass *pp)
{
    *pp = (struct prio_pass){ .now = now };
    for (size_t i = 0; i < ctx->nnodes; i++)
        pp->cluster_cpus += ctx->nodes[i].cpus;
    for (size_t i = 0; i < ctx->nparts; i++)
        if (ctx->parts[i].priority_job_factor > pp->largest_job_factor)
            pp->largest_job_factor = ctx->parts[i].priority_job_factor;
}

/* The job size factor: CPUs asked over the cluster's, or under
 * PriorityFavorSmall its complement (one CPU scores the full weight). */
static uint32_t size_factor (const struct ctld *ctx, const struct prio_pass *pp,
                             const struct job *j)
{
    const struct conf *c = ctx->conf;
    uint64_t total = pp->cluster_cpus;
    uint64_t cpus = select_req_cpus (&j->req);

    if (cpus > total)
        cpus = total;
    if (c->priority_favor_small)
        return weighted (c->priority_weight_job_size, total - cpus + 1, total);
    return weighted (c->priority_weight_job_size, cpus, total);
}

void prio_job (const struct ctld *ctx, const struct prio_pass *pp,
               const struct job *j, struct prio *out)
{
    const struct conf *c = ctx->conf;
    uint64_t sum;

    memset (out, 0, sizeof (*out));
    out->nice = j->nice;
    if (!prio_multifactor (ctx)) {
        out->priority = j->id < PRIO_BASIC_TOP ? PRIO_BASIC_TOP - j->id : 1;
        return;
    }
    if (j->eligible_time && pp->now > j->eligible_time)
        out->age = weighted (c->priority_weight_age,
                             (uint64_t)(pp->now - j->eligible_time),
                             (uint64_t)c->priority_max_age * 60);
    out->job_size = size_factor (ctx, pp, j);
    out->part = weighted (c->priority_weight_partition,
                          ctx->parts[j->part].priority_job_factor,
                          pp->largest_job_factor);
    sum = (uint64_t)out->age + out->job_size + out->part;
    if (j->nice > 0)
        sum = sum > (uint64_t)j->nice ? sum - (uint64_t)j->nice : 0;
    else
        sum += (uint64_t) - (int64_t)j->nice;
    /* 0 is a held job's priority in Slurm: the least is 1 */
    out->priority = sum < 1 ? 1 : sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
}

int prio_order (const struct ctld *ctx, const struct job *a,
                const struct prio *pa, const struct job *b,
                const struct prio *pb)
{
    uint32_t ta = ctx->parts[a->part].priority_tier;
    uint32_t tb = ctx->parts[b->part].priority_tier;

    if (ta != tb)
        return ta > tb ? -1 : 1;
    if (pa->priority != pb->priority)
        return pa->priority > pb->priority ? -1 : 1;
    if (a->seq && b->seq && a->seq != b->seq) /* submission order */
        return a->seq < b->seq ? -1 : 1;
    if (a->submit_time != b->submit_time)
        return a->submit_time < b->submit_time ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}
