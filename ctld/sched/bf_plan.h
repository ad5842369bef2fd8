/* bf_plan.h - the backfill plan, computed on a snapshot of the
 * controller's state, so that it can run off the event loop.
 *
 * backfill.c takes the snapshot on the loop (nodes, what is free, when
 * each running job's share comes back, the pending jobs in priority
 * order with their requests), bf_plan_run computes what to start and
 * what to reserve from it alone (on the loop for tests, on a thread of
 * its own otherwise: bf_worker.h), and backfill.c applies the plan on the
 * loop, checking each start against what is free by then. See backfill.h
 * for the rules. The interface of one module in two files: bf_plan.c,
 * and bf_time.c for the plan's times (which bf_units.c uses too).
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
#include "sched/gres_count.h"
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
    size_t slot0;    /* its generic resources' items: the snapshot's */
    uint32_t nslots; /* slots[slot0 .. slot0 + nslots) */
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

/* A pending job's request for generic resources (gres_sched.h), one
 * entry shared by the snapshot's jobs that ask alike. */
struct bf_sgres {
    struct bf_sgres *next;
    size_t part;
    bool exclusive;
    struct job_gres key; /* gpu_bind NULL */
};

/* A running job's units of one item (a slot), and when they come back. */
struct bf_sunits {
    size_t slot;
    uint32_t units;
    time_t end; /* PROFILE_FOREVER: no time limit */
};

struct bf_snap {
    time_t now;
    struct bf_sgres *gres;    /* the requests' list */
    struct gres_count *slots; /* every node's items (bf_gres.h), free now */
    size_t nslots;
    struct bf_sunits *uruns; /* what running jobs hold of them */
    size_t nuruns, uruns_cap;
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
/* The plan's times (bf_time.c): t rounded up to the pass's resolution
 * after s->now (t before it: now), so that the profiles' segments stay
 * few; the span of the profiles' blocks (profile_blocks). */
time_t bf_round (const struct bf_snap *s, time_t t);
time_t bf_block_span (const struct bf_snap *s);
void bf_plan_free (struct bf_plan *p, size_t njobs);
/* Plan from s alone (pure; any thread). -1 with errno ENOMEM. */
int bf_plan_run (const struct bf_snap *s, struct bf_plan *out);

/* The thread that runs bf_plan_run off the loop (bf_worker.c) comes with
 * the plan: whoever plans off the loop uses both. */
#include "sched/bf_worker.h"

#endif
