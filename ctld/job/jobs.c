/* jobs.c - ctld->jobs: the job records in submit order, with a tail
 * pointer (appending is O(1)) and an index by id (job_find is O(1): it
 * runs for every new id and every request naming a job). Every job enters
 * and leaves the list here. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "ctld.h"
#include "job/job.h"
#include "job/jobs.h"

static size_t job_bucket (const struct ctld *ctx, uint32_t id)
{
    return (id * 2654435761u) & (ctx->job_nbuckets - 1);
}

/* Twice the buckets when the jobs outnumber them. */
static int jobs_index_grow (struct ctld *ctx)
{
    size_t n = ctx->job_nbuckets ? ctx->job_nbuckets * 2 : 256;
    struct job **b = calloc (n, sizeof (*b));

    if (!b)
        return -1;
    free (ctx->job_buckets);
    ctx->job_buckets = b;
    ctx->job_nbuckets = n;
    for (struct job *j = ctx->jobs; j; j = j->next) {
        size_t k = job_bucket (ctx, j->id);
        j->hnext = b[k];
        b[k] = j;
    }
    return 0;
}

struct job *job_find (const struct ctld *ctx, uint32_t id)
{
    if (!ctx->job_nbuckets)
        return NULL;
    for (struct job *j = ctx->job_buckets[job_bucket (ctx, id)]; j;
         j = j->hnext)
        if (j->id == id)
            return j;
    return NULL;
}

int jobs_append (struct ctld *ctx, struct job *j)
{
    size_t k;

    if (ctx->njobs + 1 > ctx->job_nbuckets && jobs_index_grow (ctx) < 0) {
        errno = ENOMEM;
        return -1;
    }
    if (!ctx->jobs_tail || !ctx->jobs)
        ctx->jobs_tail = &ctx->jobs;
    j->next = NULL;
    *ctx->jobs_tail = j;
    ctx->jobs_tail = &j->next;
    ctx->njobs++;
    k = job_bucket (ctx, j->id);
    j->hnext = ctx->job_buckets[k];
    ctx->job_buckets[k] = j;
    return 0;
}

void jobs_unlink (struct ctld *ctx, struct job **pp)
{
    struct job *j = *pp, **hp;

    *pp = j->next;
    if (ctx->jobs_tail == &j->next)
        ctx->jobs_tail = pp;
    ctx->njobs--;
    for (hp = &ctx->job_buckets[job_bucket (ctx, j->id)]; *hp;
         hp = &(*hp)->hnext)
        if (*hp == j) {
            *hp = j->hnext;
            break;
        }
}
