/* counts.c - see counts.h. job.c and step.c describe their room; the
 * order of the checks and their wording live here once. */
#include <errno.h>

#include "job/counts.h"

int counts_check (const struct counts_ask *a, const struct counts_room *r,
                  arbor_error_t *err)
{
    errno = EINVAL;
    if (a->cpus_per_task > r->node_cpus)
        return errprintf (err, "cpus_per_task %u exceeds the %u CPUs %s",
                          a->cpus_per_task, r->node_cpus, r->node);
    if (a->ntasks_per_node > r->node_cpus)
        return errprintf (err, "ntasks_per_node %u exceeds the %u CPUs %s",
                          a->ntasks_per_node, r->node_cpus, r->node);
    if (a->nnodes > r->nnodes)
        return errprintf (err, "nnodes %u exceeds the %zu nodes %s", a->nnodes,
                          r->nnodes, r->whole);
    if (a->ntasks > r->cpus && !a->overcommit)
        return errprintf (err, "ntasks %u exceeds the %llu CPUs %s", a->ntasks,
                          (unsigned long long)r->cpus, r->whole);
    if (a->mem_mb > r->node_mem_mb)
        return errprintf (err, "mem_mb %llu exceeds the %llu MB %s",
                          (unsigned long long)a->mem_mb,
                          (unsigned long long)r->node_mem_mb, r->node);
    if (a->mem_per_cpu_mb > r->node_mem_mb)
        return errprintf (err, "mem_per_cpu_mb %llu exceeds the %llu MB %s",
                          (unsigned long long)a->mem_per_cpu_mb,
                          (unsigned long long)r->node_mem_mb, r->node);
    return 0;
}
