/* node.h - node records: state, cores and memory held, liveness counters.
 *
 * One struct node per NodeName= line, in ctx->nodes (built by nodes_init).
 * node.c owns the state machine of a node (registration, administrators'
 * DOWN, DRAIN and RESUME) and the core masks; every change that can let
 * work start requests a scheduling pass (sched.h).
 */
#ifndef ARBOR_CTLD_NODE_H
#define ARBOR_CTLD_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "error.h"
#include "nodes/node_gres.h"
#include "states.h"

struct ctld;
struct hostlist;
struct orphan;

#define CTLD_NODE_TIMEOUT 300 /* s of silence before a node is DOWN */

/* A node's base state. Two flags say who put it there, because that
 * decides what lifts it:
 *   admin_down  DOWN set by an administrator (NODE_UPDATE): kept across
 *               registrations; only RESUME lifts it. Without it, DOWN
 *               means "not responding" and a registration lifts it.
 *   drain       DRAIN set by an administrator or asked by an epilog
 *               ("Kill task failed"): kept across registrations and
 *               across the node being DOWN meanwhile; only RESUME lifts
 *               it. auto_drain instead is the registration check's own
 *               drain (too few CPUs or memory), lifted by a registration
 *               that reports enough again. */
enum node_base {
    NODE_UNKNOWN, /* configured, never registered */
    NODE_UP,      /* registered: IDLE, MIXED or ALLOCATED */
    NODE_DOWN,    /* not responding, or set DOWN (admin_down) */
    NODE_DRAIN,   /* takes no new work */
};

struct node {
    char *name;
    char *addr;
    uint32_t cpus;
    uint32_t real_memory; /* MB */
    uint32_t cpu_speed;   /* CpuSpeed (ctld/sched/loadsel.h) */
    uint32_t tmp_disk;    /* TmpDisk, MB (--tmp) */
    uint32_t cpu_load;    /* hundredths, as last registered; */
    uint32_t free_mem;    /* MB; both UINT32_MAX until reported */
    enum node_base base;
    char *reason;        /* NULL when none */
    uint32_t reason_uid; /* who set it: the requester of NODE_UPDATE, or
                            ArborUser when the controller did (Slurm's
                            SlurmUser); 0 with no reason */
    time_t reason_time;  /* when it was set; 0 with no reason */
    bool auto_drain;     /* drained by registration checks */
    bool admin_down;     /* DOWN by NODE_UPDATE, until RESUME */
    bool drain;          /* DRAIN by NODE_UPDATE or an epilog */
    uint32_t alloc_cpus;
    uint64_t alloc_memory; /* MB */
    uint8_t *cores;        /* cpus entries: 1 if allocated */
    time_t last_heard;     /* 0: never */
    char *partitions;      /* "debug,batch" */
    uint32_t ncompleting;  /* jobs whose epilog has not completed here */
    /* Liveness (heard.c, liveness.c): messages the noded failed to answer. */
    uint32_t comm_fails; /* in a row; 0 once it answers or registers */
    time_t first_fail;   /* when the first of them failed */
    time_t probe_at;     /* next probe due; 0: none */
    time_t probe_sent;   /* last probe sent */
    bool probe_inflight;
    /* Jobs the noded reported running that are not expected there
     * (orphan.c): the node takes no work until they are gone. */
    struct orphan *orphans;
    size_t norphans;
    /* Features (node_features.h): as written, and the names. */
    char *features; /* "a100,ib"; NULL none */
    char *feat_buf; /* the names' storage */
    char **feat;    /* nfeat names, into feat_buf */
    size_t nfeat;
    bool features_set;     /* set by scontrol update (kept in NODE_REC) */
    struct node_gres gres; /* generic resources (node_gres.h) */
};

int nodes_init (struct ctld *ctx, arbor_error_t *err);
void nodes_fini (struct ctld *ctx);
/* Index of node 'name', or -1. */
int node_index (const struct ctld *ctx, const char *name);
/* Indexes of the nodes of hostlist 'expr' ("" for all nodes), in its
 * order; *n is their count. Caller frees. NULL with errno EINVAL (bad
 * hostlist), ENOENT ("invalid node name node9") or ENOMEM and err. */
size_t *nodes_select (const struct ctld *ctx, const char *expr, size_t *n,
                      arbor_error_t *err);
/* The hostlist 'expr', refused (EINVAL, before expanding it) when it
 * names more hosts than the cluster has nodes: no request may make the
 * controller expand more. NULL with errno and err. */
struct hostlist *nodes_hostlist (const struct ctld *ctx, const char *expr,
                                 arbor_error_t *err);
/* The state a node record is in (common/util/states.h): IDLE, MIXED,
 * ALLOCATED, COMPLETING, DOWN, DRAIN (drained, no job left), DRAINING
 * (drained, jobs still there), UNKNOWN (never registered). A node still
 * running jobs it should not (orphans) is COMPLETING (DRAINING). */
enum node_state node_state_of (const struct node *n);
/* node_state_of's name, as NODE_INFO reports it. */
const char *node_state_str (const struct node *n);
/* May take new work: UP, answering, and no orphaned job left. */
bool node_usable (const struct node *n);
/* Administrators' changes (update.c applies them), by 'uid' at 'now'
 * (recorded with the reason). Each returns -1 with errno ENOMEM
 * (nothing changed) or 0. node_admin_down: DOWN with 'reason' until
 * RESUME. node_admin_drain: no new work until RESUME
 * (DRAINING while jobs remain), also on a node that is DOWN or not yet
 * registered (it comes back drained). node_resume: lifts both and the
 * reason; a node not heard from within CTLD_NODE_TIMEOUT stays DOWN "Not
 * responding" (UNKNOWN if never heard) until it registers. */
int node_admin_down (struct ctld *ctx, size_t node, const char *reason,
                     uint32_t uid, time_t now);
int node_admin_drain (struct ctld *ctx, size_t node, const char *reason,
                      uint32_t uid, time_t now);
void node_resume (struct ctld *ctx, size_t node, time_t now);
/* Take 'count' free cores (lowest first), marking them in 'mask' too.
 * Only a scheduling pass takes cores, so this requests none. */
int node_take_cores (struct node *n, uint32_t count, uint8_t *mask);
/* node_take_cores, the cores marked in 'near' (n->cpus entries: those
 * local to a job's GPUs) first; with 'only', none but those (-1 ENOSPC
 * when too few of them are free). */
int node_take_cores_near (struct node *n, uint32_t count, const uint8_t *near,
                          bool only, uint8_t *mask);
/* Give back the cores of 'mask' on node index 'node'; requests a
 * scheduling pass (sched_request). */
void node_give_cores (struct ctld *ctx, size_t node, const uint8_t *mask);
/* Set (a copy of) 'reason', set by 'uid' at 'when' (what sinfo -R shows
 * as USER and TIMESTAMP); NULL clears it, and who and when with it. -1
 * with errno ENOMEM (nothing changed), or 0. */
int node_set_reason (struct node *n, const char *reason, uint32_t uid,
                     time_t when);
/* Apply a registration ('gres_short': node_gres_register's reason when
 * it has fewer generic resources than configured, NULL none): lifts "not
 * responding" and its own resource drain, never an administrator's DOWN or
 * DRAIN nor an epilog's drain. Every change of a node's state (this,
 * node_admin_*, node_resume) requests a scheduling pass (sched_request). */
void node_register (struct ctld *ctx, size_t node, uint32_t cpus,
                    uint32_t real_memory, const char *gres_short, time_t now);

#endif
