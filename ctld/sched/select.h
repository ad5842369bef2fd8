/* select.h - choosing nodes and cores for a request (pure logic).
 *
 * The caller describes the candidate nodes as an array of struct
 * select_node (the nodes of a partition for a job, or the nodes of a job's
 * allocation for a step) and the request as a struct select_req. The
 * selector knows nothing of states, partitions or connections, which keeps
 * it testable on its own (ctld/test/select_test.c).
 *
 * Rules (Slurm's, at core granularity):
 *   - neither -n nor -N: one task on one node (or one per -w node);
 *     -N only: nnodes tasks (nnodes * ntasks_per_node with that option);
 *   - -n and -N: exactly N nodes; for a job, the first n % N nodes (in
 *     node order) get one task more than the others; for a step
 *     (step_layout), Slurm's count over what the job holds: round after
 *     round each node with room takes one more task, so no node takes
 *     more than it holds (5 tasks where the job holds 4 and 1 cores are
 *     4+1; where it holds 4 and 4, 3+2);
 *   - -n only: as few nodes as the tasks need, filled in order, the -w
 *     (required) nodes first and each of them with at least one task;
 *   - "in order" is array order, or by descending pref when nodes have
 *     one (load-aware selection), the -w nodes always first;
 *   - a task takes cpus_per_task cores; ntasks_per_node caps tasks a node;
 *   - exclusive: only fully idle nodes, and all their cores are taken;
 *   - overcommit (-O): each node takes cpus_per_task cores whatever its
 *     task count, and without -N the tasks go on one node (or the -w
 *     nodes), as Slurm allocates "as if one task per node";
 *   - mem_mb (per node) must fit in the node's free memory; with
 *     mem_per_cpu_mb instead, each core taken on a node needs that much
 *     of its free memory (so memory may cap the tasks a node holds).
 */
#ifndef ARBOR_CTLD_SELECT_H
#define ARBOR_CTLD_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"

struct select_node {
    const char *name;     /* for error messages; borrowed */
    uint32_t cpus;        /* cores the node (or the job on it) has */
    uint32_t free_cpus;   /* of those, free now */
    uint64_t memory;      /* MB */
    uint64_t free_memory; /* MB free now */
    bool usable;          /* its state lets it take new work now */
    bool required;        /* named by -w */
    bool excluded;        /* named by -x */
    uint64_t tmp_mb;      /* its TmpDisk, MB */
    uint32_t pref;        /* preference among the others: higher first,
                             ties in array order (ctld/sched/loadsel.h); all 0
                             keeps array order */
    /* Generic resources (ctld/sched/gres_sched.h), for a request that
     * asks for some: */
    bool gres_capped;    /* gres_tasks applies */
    uint32_t gres_tasks; /* tasks the node's units allow (0: none) */
    uint32_t gres_units; /* units of the per-job request it can give */
};

struct select_req {
    uint32_t nnodes;          /* 0: as few as the tasks need */
    uint32_t ntasks;          /* 0: derived by select_normalize */
    uint32_t cpus_per_task;   /* 0 is taken as 1 */
    uint32_t ntasks_per_node; /* 0: no cap */
    uint64_t mem_mb;          /* per node; 0: not checked */
    uint64_t mem_per_cpu_mb;  /* per core taken; 0: not checked */
    bool exclusive;
    bool overcommit;   /* -O: a node takes the cores of one task, and any
                          number of tasks; -N (or the -w nodes, or one)
                          nodes, the tasks spread over them */
    bool step_layout;  /* a step: -N and -n counted as above */
    uint32_t mincpus;  /* --mincpus: a node offers at least this many free
                          cores, and the job takes as many there; 0 none */
    uint32_t gres_job; /* --gpus: units the chosen nodes give in all
                          (their gres_units, in node order); 0 none */
    uint64_t tmp_mb;   /* --tmp: a node's TmpDisk is at least this; 0 */
};

struct select_result {
    size_t nnodes;
    size_t *idx;          /* indexes into the node array, ascending */
    uint32_t *tasks;      /* tasks on each chosen node */
    uint32_t *cpus;       /* cores taken on each chosen node */
    uint32_t *gres_share; /* units of the per-job request on each chosen
                             node (NULL when it has none) */
    uint32_t ntasks;
};

enum select_mode {
    SELECT_NOW,  /* with the free cores/memory and states of now */
    SELECT_EVER, /* on empty, usable nodes: could it ever run? */
};

/* Do a and b ask the same, field by field (not bytes: padding)? */
bool select_req_same (const struct select_req *a, const struct select_req *b);

/* Fill in the defaults of 'r' (see above) given the number of required
 * nodes. -1 with errno EINVAL and err for contradictory requests. */
int select_normalize (struct select_req *r, size_t nrequired,
                      arbor_error_t *err);

/* Choose nodes for the normalized request 'r'. On success 'res' is filled
 * (release with select_result_clear). -1 with errno ENOSPC (does not fit
 * in 'mode') or ENOMEM, and err saying why. */
int select_run (const struct select_node *nodes, size_t n,
                const struct select_req *r, enum select_mode mode,
                struct select_result *res, arbor_error_t *err);
/* The nodes' order by pref (higher first, then array order) into 'rank'
 * (n entries): true, or false (rank is array order) when no node has a
 * pref. */
bool select_rank (const struct select_node *nodes, size_t n, size_t *rank);
/* select_run with the order of the nodes other than the -w ones given
 * (from select_rank, over nodes with the same prefs; NULL: array order):
 * the backfill plan ranks a partition once a pass, not once a try. */
int select_run_ranked (const struct select_node *nodes, size_t n,
                       const size_t *rank, const struct select_req *r,
                       enum select_mode mode, struct select_result *res,
                       arbor_error_t *err);

/* select_run NOW, and on failure EVER: -1 with errno EBUSY when it could
 * run later, EINVAL (err says why) when it never can. */
int select_nodes (const struct select_node *nodes, size_t n,
                  const struct select_req *r, struct select_result *res,
                  arbor_error_t *err);

void select_result_clear (struct select_result *res);

/* The cores 'r' asks for in all: its tasks (at least one) times their
 * cores. */
uint64_t select_req_cpus (const struct select_req *r);
/* The MB a node holds for 'r' when it gives it 'cpus' cores: --mem, or
 * --mem-per-cpu times the cores (0: memory not asked for). */
uint64_t select_node_mem (const struct select_req *r, uint32_t cpus);

#endif
