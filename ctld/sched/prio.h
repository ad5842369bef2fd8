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
 * less the job's --nice. priority/wait (a published Torque/Maui
 * extension) lets a job's priority grow with its wait:
 *   P = Y + k x t_wait x E
 * Y the job's preset (PriorityPresets, agreed with the administrator:
 * "default:Y,USER:Y,..."), k PriorityWaitWeight, t_wait the minutes since
 * it became eligible, E its resource estimate 1 + CPUs asked / the
 * cluster's CPUs (in [1, 2]: a wide job, harder to place, climbs faster).
 * P is capped at PriorityThreshold (P_th, 0: no cap); a job at P_th may
 * hold a backfill reservation, one below it may not (it only backfills).
 * Its priority is P in thousandths (12.500 -> 12500), less --nice. The
 * scheduler takes pending jobs by their
 * partition's PriorityTier, then by priority, then in submission order.
 * Priorities are computed when asked (each scheduling pass, arbor prio),
 * never stored: age changes by itself. A job that started is given the
 * priority it had when it started (its age stops then), a held job 0,
 * as Slurm shows them.
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
#define PRIO_WAIT "priority/wait"
#define PRIO_MILLI 1000.0 /* priority/wait: P in thousandths */

/* A job's priority and its weighted factors. */
struct prio {
    uint32_t priority;
    uint32_t age, job_size, part, qos; /* weight x factor */
    int32_t nice;
    uint32_t preset, wait; /* priority/wait: Y and k t E, thousandths */
    bool under_threshold;  /* priority/wait: P < P_th, may not reserve */
};

/* Check PriorityType, read PriorityPresets (ctx->presets). -1 with err
 * naming what is wrong. prio_fini frees the presets. */
int prio_configure (struct ctld *ctx, arbor_error_t *err);
void prio_fini (struct ctld *ctx);
/* Is PriorityType priority/multifactor? priority/wait? */
bool prio_multifactor (const struct ctld *ctx);
bool prio_wait (const struct ctld *ctx);
/* priority/wait's numbers on the wire: thousandths of x, rounded, in
 * [0, UINT32_MAX]. */
uint32_t prio_milli (double x);
/* PriorityType as its canonical name. */
const char *prio_type (const struct ctld *ctx);
/* What every job's priority of one pass shares: computed once. */
struct prio_pass {
    time_t now;
    uint64_t cluster_cpus;
    uint32_t largest_job_factor; /* of the partitions */
    uint32_t top_qos;            /* the highest QOS Priority */
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
