/* run_verbose.c - srun -v's lines about the allocation and the launch,
 * in Slurm's words, so that what users and tools look for is there:
 *     srun: jobid 7: nodes(2):`node[1-2]', cpu counts: 4(x2)
 *     srun: launching StepId=7.0 on host node1, 4 tasks: [0-3]
 * Nothing is computed unless -v was given.
 */
#include <stdlib.h>

#include "distrib.h"
#include "hostlist.h"
#include "layout.h"
#include "run_verbose.h"
#include "tasks.h"

void run_verbose_job (const struct run_ctx *ctx,
                      const struct msg_job_allocated *a)
{
    char *counts;

    if (ctx->opt.alloc.verbose <= 0)
        return;
    if (!(counts = layout_tasks_per_node (a->cpus, a->cpus_count)))
        return;
    run_verbose (ctx, "jobid %u: nodes(%u):`%s', cpu counts: %s", a->job_id,
                 a->cpus_count, a->nodelist, counts);
    free (counts);
}

/* The ranks the step's distribution gives each node, node by node. */
static uint32_t *run_verbose_ranks (const struct run_ctx *ctx)
{
    const struct msg_step_created *s = &ctx->step;
    enum distrib d = DISTRIB_BLOCK;
    uint32_t plane = 0, *ranks = calloc (ctx->tasks.n + 1, sizeof (*ranks));
    arbor_error_t err;

    if (!ranks)
        return NULL;
    if (ctx->opt.distribution)
        (void)distrib_parse (ctx->opt.distribution, &d, &plane, &err);
    if (d == DISTRIB_ARBITRARY
        || distrib_ranks (d, plane, s->tasks, s->tasks_count, ranks) < 0) {
        free (ranks);
        return NULL;
    }
    return ranks;
}

void run_verbose_step (const struct run_ctx *ctx)
{
    const struct msg_step_created *s = &ctx->step;
    struct hostlist *hl;
    uint32_t *ranks, first = 0;
    char buf[256];

    if (ctx->opt.alloc.verbose <= 0)
        return;
    if (!(hl = hostlist_create (s->nodelist, NULL)))
        return;
    ranks = run_verbose_ranks (ctx);
    for (uint32_t i = 0; i < s->tasks_count && i < hostlist_count (hl); i++) {
        if (ranks)
            tasks_ranged (ranks + first, s->tasks[i], buf, sizeof (buf));
        run_verbose (ctx, "launching StepId=%u.%u on host %s, %u tasks: [%s]",
                     ctx->job_id, s->step_id, hostlist_nth (hl, i), s->tasks[i],
                     ranks ? buf : "?");
        first += s->tasks[i];
    }
    free (ranks);
    hostlist_destroy (hl);
}
