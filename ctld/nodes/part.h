/* part.h - partitions: which nodes each PartitionName= holds, and its limits.
 */
#ifndef ARBOR_CTLD_PART_H
#define ARBOR_CTLD_PART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct ctld;

struct part {
    char *name;
    size_t *nodes; /* indexes into ctld->nodes */
    size_t nnodes;
    bool is_default;
    uint32_t max_time; /* minutes or TIME_INFINITE */
    uint32_t default_time;
    uint32_t priority_tier;       /* scheduled before lower tiers */
    uint32_t priority_job_factor; /* its jobs' partition factor (prio.h) */
    uint64_t total_cpus;
};

int parts_init (struct ctld *ctx, arbor_error_t *err);
void parts_fini (struct ctld *ctx);
/* Index of partition 'name' ("" / NULL: the default), or -1. */
int part_index (const struct ctld *ctx, const char *name);
/* Position of node index 'node' in partition 'p', or -1. */
int part_node_pos (const struct part *p, size_t node);

#endif
