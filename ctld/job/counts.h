/* counts.h - the size checks a job allocation and a job step share: a
 * request's counts against the largest node and the whole of what it
 * would run on (a partition for a job, the job's allocation for a step). */
#ifndef ARBOR_CTLD_COUNTS_H
#define ARBOR_CTLD_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* What is asked for. */
struct counts_ask {
    uint32_t cpus_per_task;
    uint32_t ntasks_per_node;
    uint32_t nnodes;
    uint32_t ntasks;
    uint64_t mem_mb;
    uint64_t mem_per_cpu_mb;
    bool overcommit; /* ntasks may exceed the CPUs */
};

/* The fields a JOB_ALLOC and a STEP_CREATE request share, for an
 * initializer: { COUNTS_ASK_OF (req), .overcommit = ... }. */
#define COUNTS_ASK_OF(req)                                              \
    .cpus_per_task = (req)->cpus_per_task,                              \
    .ntasks_per_node = (req)->ntasks_per_node, .nnodes = (req)->nnodes, \
    .ntasks = (req)->ntasks, .mem_mb = (req)->mem_mb

/* What it is checked against, and how the messages name it: 'node' ends
 * "exceeds the 4 CPUs <node>" ("of the largest node of partition debug"),
 * 'whole' ends "exceeds the 16 CPUs <whole>" ("of partition debug"). */
struct counts_room {
    uint32_t node_cpus;   /* CPUs of the largest node */
    uint64_t node_mem_mb; /* MB of the largest node */
    size_t nnodes;
    uint64_t cpus; /* CPUs in all */
    char node[sizeof (((arbor_error_t *)0)->text)];
    char whole[sizeof (((arbor_error_t *)0)->text)];
};

/* Counts that the room could never hold, refused naming the field before
 * anything is computed from them (products of absurd counts overflow).
 * 0, or -1 with errno EINVAL and err. */
int counts_check (const struct counts_ask *a, const struct counts_room *r,
                  arbor_error_t *err);

#endif
