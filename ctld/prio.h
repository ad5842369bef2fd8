/* prio.h - a pending job's priority (PriorityType).
 *
 * priority/basic (the default) is first come, first served: the earlier
 * job has the higher priority. priority/multifactor adds Slurm's weighted
 * factors, each a number in [0, 1] times its weight:
 *   age        time eligible, up to PriorityMaxAge (PriorityWeightAge)
 *   job size   CPUs asked over the cluster's CPUs, or its complement
 *              under PriorityFavorSmall=YES (PriorityWeightJobSize)
 *   partition  its partition's PriorityJobFactor over the largest one
 *              (PriorityWeightPartition)
 * less the job's --nice. The scheduler takes pending jobs by their
 * partition's PriorityTier, then by priority, then in submission order.
 * Priorities are computed when asked (each scheduling pass, arbor prio),
 * never stored: age changes by itself.
 */
#ifndef ARBOR_CTLD_PRIO_H
#define ARBOR_CTLD_PRIO_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "error.h"

struct ctld;
struct job;

#define PRIO_BASIC "priority/basic"
#define PRIO_MULTIFACTOR "priority/multifactor"

/* A job's priority and its weighted factors. */
struct prio {
    uint32_t priority;
    uint32_t age, job_size, part; /* weight x factor */
    int32_t nice;
};

/* Check PriorityType. -1 with err naming it. */
int prio_check (const struct ctld *ctx, arbor_error_t *err);
/* Is PriorityType priority/multifactor? */
bool prio_multifactor (const struct ctld *ctx);
/* What every job's priority of one pass shares: computed once. */
struct prio_pass {
    time_t now;
    uint64_t cluster_cpus;
    uint32_t largest_job_factor; /* of the partitions */
};
void prio_pass_begin (const struct ctld *ctx, time_t now, struct prio_pass *pp);
/* j's priority in that pass. */
void prio_job (const struct ctld *ctx, const struct prio_pass *pp,
               const struct job *j, struct prio *out);
/* Scheduling order of two pending jobs (qsort-style: < 0 when a goes
 * first): higher PriorityTier, then higher priority, then submitted
 * first. 'pa'/'pb' are their priorities. */
int prio_order (const struct ctld *ctx, const struct job *a,
                const struct prio *pa, const struct job *b,
                const struct prio *pb);

#endif
