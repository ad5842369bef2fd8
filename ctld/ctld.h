/* ctld.h - arbor-ctld's state and the functions its modules share.
 *
 * One struct ctld holds everything the controller knows: configuration,
 * node and partition records, jobs (with their steps), connected clients
 * and outstanding messages to nodeds. It is passed explicitly everywhere
 * (no globals) and is made only of plain structs, so that a state store
 * can later write it out and read it back.
 *
 * Modules: node.c (node records and cores), part.c (partitions), job.c
 * (job records), select.c (pure allocation logic, select.h), step.c
 * (steps and credentials), sched.c (FCFS scheduler), rpc.c (handlers),
 * nodecomm.c (messages to nodeds), ctld.c (main and the event loop).
 */
#ifndef ARBOR_CTLD_CTLD_H
#define ARBOR_CTLD_CTLD_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "conf.h"
#include "conn.h"
#include "error.h"
#include "proto.h"
#include "select.h"

#define CTLD_JOB_KEEP 300        /* s a finished job stays visible */
#define CTLD_NODE_TIMEOUT 300    /* s of silence before a node is DOWN */
#define CTLD_TICK 30             /* s between housekeeping passes */
#define CTLD_MAX_JOBS 10000      /* job records kept at once */
#define CTLD_KILL_TIMEOUT 10     /* s to wait for a noded's answer */

/* ---- nodes (node.c) --------------------------------------------------- */

enum node_base {
    NODE_UNKNOWN,    /* configured, never registered */
    NODE_UP,         /* registered: IDLE, MIXED or ALLOCATED */
    NODE_DOWN,       /* not responding */
    NODE_DRAIN,      /* takes no new work */
};

struct node {
    char *name;
    char *addr;
    uint32_t cpus;
    uint32_t real_memory;     /* MB */
    enum node_base base;
    char *reason;             /* NULL when none */
    bool auto_drain;          /* drained by registration checks */
    uint32_t alloc_cpus;
    uint64_t alloc_memory;    /* MB */
    uint8_t *cores;           /* cpus entries: 1 if allocated */
    time_t last_heard;        /* 0: never */
    char *partitions;         /* "debug,batch" */
};

/* ---- partitions (part.c) ---------------------------------------------- */

struct part {
    char *name;
    size_t *nodes;            /* indexes into ctld->nodes */
    size_t nnodes;
    bool is_default;
    uint32_t max_time;        /* minutes or TIME_INFINITE */
    uint32_t default_time;
    uint64_t total_cpus;
};

/* ---- jobs and steps (job.c, step.c) ----------------------------------- */

enum job_state {
    JOB_PENDING,
    JOB_RUNNING,
    JOB_COMPLETED,
    JOB_CANCELLED,
    JOB_FAILED,
    JOB_TIMEOUT,
    JOB_NODE_FAIL,
};

/* One node of a running job's allocation. */
struct job_node {
    size_t node;              /* index into ctld->nodes */
    uint32_t cpus;            /* cores held there */
    uint32_t tasks;           /* tasks of the job layout there */
    uint8_t *cores;           /* node->cpus entries: 1 if this job's */
    uint32_t step_cpus;       /* cores used by running steps */
    uint64_t step_memory;     /* MB used by running steps */
};

struct step {
    struct step *next;
    uint32_t id;
    char *name;
    size_t nnodes;
    size_t *jnodes;           /* indexes into job->nodes */
    uint32_t *tasks;
    uint32_t *cpus;
    bool *done;               /* per node: its stepd reported */
    uint64_t mem_mb;
    uint32_t ntasks;
    char *nodelist;           /* ranged */
    time_t start_time;
};

struct job {
    struct job *next;         /* submit order */
    uint32_t id;
    char *name;
    uid_t uid;
    gid_t gid;
    char *user;
    char *cwd;
    size_t part;              /* index into ctld->parts */
    struct select_req req;    /* normalized request */
    bool *required;           /* per partition node: -w */
    bool *excluded;           /* per partition node: -x */
    size_t nrequired;
    uint32_t time_limit;      /* minutes or TIME_INFINITE */
    enum job_state state;
    char *reason;             /* pending reason or end reason; may be NULL */
    int exit_rc;
    time_t submit_time, start_time, end_time;
    struct job_node *nodes;   /* when running */
    size_t nnodes;
    char *nodelist;           /* ranged; NULL until started */
    struct step *steps;       /* running steps */
    uint32_t next_step_id;
    struct conn *owner;       /* allocating connection, NULL once gone */
    uint32_t owner_tag;       /* matchtag of its JOB_ALLOC */
};

/* ---- the controller --------------------------------------------------- */

struct client;
struct nodecomm_req;

struct ctld {
    struct ev_loop *loop;
    struct conf *conf;
    struct auth *auth;
    uid_t priv_uid;
    int listen_fd;
    ev_io listen_w;
    ev_signal sigterm_w, sigint_w;
    ev_timer tick_w;
    struct node *nodes;
    size_t nnodes;
    struct part *parts;
    size_t nparts;
    struct job *jobs;         /* submit order */
    size_t njobs;
    uint32_t next_job_id;
    struct client *clients;
    struct nodecomm_req *kills;
};

/* node.c */
int nodes_init (struct ctld *ctx, arbor_error_t *err);
void nodes_fini (struct ctld *ctx);
/* Index of node 'name', or -1. */
int node_index (const struct ctld *ctx, const char *name);
/* "IDLE", "MIXED", "ALLOCATED", "DOWN", "DRAIN", "UNKNOWN". */
const char *node_state_str (const struct node *n);
bool node_usable (const struct node *n);
/* Take 'count' free cores (lowest first), marking them in 'mask' too. */
int node_take_cores (struct node *n, uint32_t count, uint8_t *mask);
void node_give_cores (struct node *n, const uint8_t *mask);
int node_set_reason (struct node *n, const char *reason);
/* Apply a registration; returns the new state string. */
void node_register (struct node *n, uint32_t cpus, uint32_t real_memory,
                    time_t now);

/* part.c */
int parts_init (struct ctld *ctx, arbor_error_t *err);
void parts_fini (struct ctld *ctx);
/* Index of partition 'name' ("" / NULL: the default), or -1. */
int part_index (const struct ctld *ctx, const char *name);
/* Position of node index 'node' in partition 'p', or -1. */
int part_node_pos (const struct part *p, size_t node);

/* job.c */
/* Name of 'uid' (its number when it has none). Caller frees; NULL ENOMEM. */
char *user_name (uid_t uid);
const char *job_state_str (enum job_state s);
bool job_is_active (const struct job *j);
/* Validate 'req' from uid/gid and build a PENDING job (not yet listed).
 * NULL with errno EINVAL/ENOMEM and err. */
struct job *job_create (struct ctld *ctx, const struct msg_job_alloc *req,
                        uid_t uid, gid_t gid, arbor_error_t *err);
void job_destroy (struct job *j);
struct job *job_find (const struct ctld *ctx, uint32_t id);
int job_set_reason (struct job *j, const char *reason);
/* Allocate the selection 'res' (over the partition's nodes) and mark the
 * job RUNNING. -1 with errno ENOMEM (nothing changed). */
int job_start (struct ctld *ctx, struct job *j,
               const struct select_result *res);
/* End an active job in 'state': free its cores and memory, drop its steps,
 * tell its nodes to kill it, forget its connection. */
void job_end (struct ctld *ctx, struct job *j, enum job_state state,
              const char *reason);
/* Forget finished jobs older than CTLD_JOB_KEEP (all when 'all'). */
void jobs_purge (struct ctld *ctx, time_t now, bool all);
/* Fill 'out' (a struct msg_job_allocated) for a running job. */
int job_allocated_msg (const struct ctld *ctx, const struct job *j,
                       struct msg_job_allocated *out);

/* step.c */
/* Create a step of job 'j' for sender uid/gid and fill 'out'. -1 with
 * errno EBUSY (cores busy now), EINVAL (impossible), ENOMEM, EPERM
 * (signing failed) and err. */
int step_create (struct ctld *ctx, struct job *j,
                 const struct msg_step_create *req, uid_t uid, gid_t gid,
                 struct msg_step_created *out, arbor_error_t *err);
struct step *step_find (const struct job *j, uint32_t id);
/* A node of the step (or, node NULL, the whole step) is over. Frees the
 * step once every node is done. -1 with errno ENOENT for an unknown node. */
int step_complete (struct job *j, struct step *s, const char *node,
                   const struct ctld *ctx);
void step_destroy (struct step *s);
/* Free every step of 'j' and its per-node step usage. */
void steps_release (struct job *j);
size_t steps_count (const struct job *j);

/* sched.c */
/* Queue a validated job: -1 with errno EINVAL and err if it can never
 * run (the job is then not queued and still the caller's), else 0 and the
 * job belongs to ctx (it may already be running). */
int sched_submit (struct ctld *ctx, struct job *j, arbor_error_t *err);
/* Start pending jobs in order while they fit (strict FIFO). */
void sched_run (struct ctld *ctx);

/* rpc.c */
void rpc_frame_cb (struct conn *c, const struct frame *f, void *arg);
void rpc_closed_cb (struct conn *c, const arbor_error_t *err, void *arg);
int clients_add (struct ctld *ctx, int fd);
void clients_fini (struct ctld *ctx);

/* nodecomm.c */
/* Send STEP_KILL(job, step, sig, revoke) to node index 'node' without
 * blocking; the answer or failure is logged. */
void nodecomm_step_kill (struct ctld *ctx, size_t node, uint32_t job,
                         uint32_t step, int sig, bool revoke);
void nodecomm_fini (struct ctld *ctx);

#endif
