/* bf_plan.h - the backfill plan, computed on a snapshot of the
 * controller's state, so that it can run off the event loop.
 *
 * backfill.c takes the snapshot on the loop (nodes, what is free, when
 * each running job's share comes back, the pending jobs in priority
 * order with their requests), bf_plan_run computes what to start and
 * what to reserve from it alone (on the loop for tests, on a thread of
 * its own otherwise: bf_worker.h), and backfill.c applies the plan on the
 * loop, checking each start against what is free by then. See backfill.h
 * for the rules.
 */
#ifndef ARBOR_CTLD_BF_PLAN_H
#define ARBOR_CTLD_BF_PLAN_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "sched/backfill.h"
#include "sched/licenses_plan.h"
#include "sched/gres_sched.h"
#include "sched/select.h"

#define BF_UNTRACKED_MEM (UINT32_MAX / 2) /* a node without RealMemory */

struct bf_snode {
    const char *name; /* borrowed: the controller's nodes outlive a pass */
    uint32_t cpus;
    uint32_t memory; /* MB; BF_UNTRACKED_MEM when not tracked */
    uint32_t free_cpus, free_mem;
    bool usable;
    uint32_t pref;   /* load-aware preference (ctld/sched/loadsel.h) */
    uint64_t tmp_mb; /* TmpDisk */
};

struct bf_spart {
    size_t *nodes; /* indexes into the snapshot's nodes */
    size_t nnodes;
};

/* A running job's share on one node, and when it comes back. */
struct bf_srun {
    size_t node;
    uint32_t cpus, mem;
    time_t end; /* PROFILE_FOREVER: no time limit */
};

/* A pending job that may start, in priority order. */
struct bf_sjob {
    uint32_t id, run; /* its run (requeues): a plan for an older one is void */
    uid_t uid;
    size_t part;
    struct select_req req;
    uint32_t time_limit; /* minutes or TIME_INFINITE */
    time_t eligible;
    uint32_t priority;
    bool under_threshold;      /* priority/wait: below P_th, may not reserve */
    bool *required, *excluded; /* per partition node; NULL: none named;
                                  nalts of them, one after the other */
    size_t nalts;              /* its constraint's alternatives
                                  (sched/constraint.h); 0 is taken as 1 */
    const struct bf_sgres *gres; /* its generic resources; NULL none */
    struct lic_need lic;         /* its licenses (licenses_plan.h) */
};

/* What the nodes' units allow a request for generic resources
 * (gres_sched.h), per partition node, shared by the snapshot's jobs that
 * ask alike: now (the first window), and on empty nodes (later windows:
 * the plan does not follow units through time, so a reservation assumes
 * them back; the main pass checks them when the job starts). */
struct bf_sgres {
    struct bf_sgres *next;
    size_t part;
    bool exclusive;
    struct job_gres key; /* gpu_bind NULL */
    uint32_t *tasks_now, *tasks_all, *units_now, *units_all;
};

struct bf_snap {
    time_t now;
    struct bf_sgres *gres; /* the requests' list */
    struct bf_params bp;
    struct bf_snode *nodes;
    size_t nnodes;
    struct bf_spart *parts;
    size_t nparts;
    struct bf_srun *runs;
    size_t nruns;
    struct bf_sjob *jobs;
    size_t njobs;
    struct lic_snap lic; /* licenses: free, coming back, asked for */
};

enum bf_verdict { BF_NONE, BF_START, BF_RESERVE };

/* What the plan says of snapshot job i. */
struct bf_decision {
    enum bf_verdict verdict;
    time_t at;                /* BF_RESERVE: the planned start */
    struct select_result res; /* BF_START: over its partition's nodes */
};

struct bf_plan {
    struct bf_decision *d; /* one per snapshot job */
    struct bf_stats st;
};

void bf_snap_free (struct bf_snap *s);
void bf_plan_free (struct bf_plan *p, size_t njobs);
/* Plan from s alone (pure; any thread). -1 with errno ENOMEM. */
int bf_plan_run (const struct bf_snap *s, struct bf_plan *out);

/* The thread that runs bf_plan_run off the loop (bf_worker.c) comes with
 * the plan: whoever plans off the loop uses both. */
#include "sched/bf_worker.h"

#endif
