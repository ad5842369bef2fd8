/* ctld.h - arbor-ctld's state and the functions its modules share.
 *
 * One struct ctld holds everything the controller knows: configuration,
 * node and partition records, jobs (with their steps), connected clients
 * and outstanding messages to nodeds. It is passed explicitly everywhere
 * (no globals) and is made only of plain structs, so that a state store
 * can later write it out and read it back.
 *
 * Modules: node.c (node records and cores), part.c (partitions), job.c
 * (job records), term.c (how every job ends: COMPLETING, JOB_TERMINATE,
 * EPILOG_COMPLETE, time limits), cancel.c (JOB_CANCEL), update.c
 * (NODE_UPDATE: administrators' DOWN, DRAIN, RESUME), select.c (pure
 * allocation logic, select.h), step.c (steps, cores and credentials),
 * sched.c (FCFS scheduler), serve.c (handlers), info.c (NODE_INFO and
 * JOB_INFO answers, their filters and bounds), nodecomm.c (messages to
 * nodeds), liveness.c (noticing unreachable nodeds), orphan.c (jobs a
 * noded runs that the controller does not expect there), jobid.c (job
 * ids that never repeat across restarts), ctld.c (main and the event
 * loop).
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
#include "states.h"

#define CTLD_JOB_KEEP 300        /* s a finished job stays visible */
#define CTLD_NODE_TIMEOUT 300    /* s of silence before a node is DOWN */
#define CTLD_TICK 30             /* s between housekeeping passes */
#define CTLD_PROBE_INTERVAL 2    /* s between probes of a failing node */
#define CTLD_PROBE_TRIES 3       /* failures in a row that make it DOWN ... */
#define CTLD_PROBE_SPAN 10       /* ... over at least this many s */
#define CTLD_PROBE_TIMEOUT 5     /* s a probe waits for its answer */
#define CTLD_PROBE_SILENT 45     /* s of silence before an UP node is probed
                                    (nodeds register every 30 s) */
#define CTLD_MAX_TIME_LIMIT 52560000u /* minutes (100 years): more is
                                    UNLIMITED, and seconds fit in 32 bits */
#define CTLD_TRIM_MIN (1u << 20) /* bytes of answer after which the heap is
                                    trimmed (malloc_trim) */
#define CTLD_KILL_TIMEOUT 10     /* s to wait for a noded's answer */
#define CTLD_TERM_RESEND 5       /* s between JOB_TERMINATE attempts */
#define CTLD_TERM_REPEAT 30      /* s after an answered JOB_TERMINATE
                                    before asking again (noded restart) */
#define CTLD_WARN_DEFAULT 60     /* s: --signal=SIG without @TIME */

/* ---- nodes (node.c) --------------------------------------------------- */

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
    NODE_UNKNOWN,    /* configured, never registered */
    NODE_UP,         /* registered: IDLE, MIXED or ALLOCATED */
    NODE_DOWN,       /* not responding, or set DOWN (admin_down) */
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
    bool admin_down;          /* DOWN by NODE_UPDATE, until RESUME */
    bool drain;               /* DRAIN by NODE_UPDATE or an epilog */
    uint32_t alloc_cpus;
    uint64_t alloc_memory;    /* MB */
    uint8_t *cores;           /* cpus entries: 1 if allocated */
    time_t last_heard;        /* 0: never */
    char *partitions;         /* "debug,batch" */
    uint32_t ncompleting;     /* jobs whose epilog has not completed here */
    /* Liveness (liveness.c): messages the noded failed to answer. */
    uint32_t comm_fails;      /* in a row; 0 once it answers or registers */
    time_t first_fail;        /* when the first of them failed */
    time_t probe_at;          /* next probe due; 0: none */
    time_t probe_sent;        /* last probe sent */
    bool probe_inflight;
    /* Jobs the noded reported running that are not expected there
     * (orphan.c): the node takes no work until they are gone. */
    struct orphan *orphans;
    size_t norphans;
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

/* enum job_state and the state names are common/states.h's, shared with
 * the commands. A job record is PENDING, RUNNING or an end state; it is
 * never SUSPENDED, and COMPLETING is its 'completing' flag. */

/* One node of a running job's allocation. */
struct job_node {
    size_t node;              /* index into ctld->nodes */
    uint32_t cpus;            /* cores held there */
    uint32_t tasks;           /* tasks of the job layout there */
    uint32_t ncores;          /* node->cpus: length of the masks below */
    uint8_t *cores;           /* 1 if this job's */
    uint8_t *step_cores;      /* 1 if used by a running step */
    uint64_t mem_mb;          /* memory held there (--mem or per cpu) */
    uint32_t step_cpus;       /* cores used by running steps */
    uint64_t step_memory;     /* MB used by running steps */
    /* Termination (term.c): */
    bool released;            /* share given back (epilog done, node down) */
    bool term_acked;          /* the noded answered JOB_TERMINATE with 0 */
    bool term_inflight;       /* a JOB_TERMINATE awaits its answer */
    bool term_logged;         /* a failure to terminate was logged at info */
    time_t term_sent;         /* last JOB_TERMINATE sent (or answered) */
};

struct step {
    struct step *next;
    uint32_t id;
    char *name;
    size_t nnodes;
    size_t *jnodes;           /* indexes into job->nodes */
    uint32_t *tasks;
    uint32_t *cpus;
    uint8_t **cores;          /* per node: mask of the cores it was given */
    bool *done;               /* per node: its stepd reported */
    uint64_t mem_mb;          /* asked per node; 0: the job's memory */
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
    bool completing;          /* ended, epilog not done on every node */
    bool oom;                 /* a step reported an OOM kill */
    bool warned;              /* the --signal warning was sent */
    int32_t warn_signal;      /* --signal=SIG@TIME; 0: none */
    uint32_t warn_time;       /* s before the time limit */
    char *reason;             /* pending reason or end reason; may be NULL */
    int exit_rc;              /* highest rc reported (launcher, complete) */
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
struct ctld;

/* Where messages to nodeds go instead of the network when set (tests):
 * 'msg' is a struct msg_<type>, borrowed for the call. */
typedef void (*node_send_f) (struct ctld *ctx, size_t node, int type,
                             const void *msg, void *arg);

/* nodecomm.c is transport only. Each message's outcome goes to the
 * sender's callback: errnum 0 when the noded answered RC 0, else its RC
 * error or why there was no answer (text); 'answered' when the noded
 * answered at all (it is alive). Never called from inside the sending
 * call, nor when ctx->node_send is set; res is borrowed for the call. */
struct nodecomm_result {
    size_t node;              /* node index */
    int type;                 /* the message sent */
    uint32_t job_id;          /* its job (0 for a probe) */
    int errnum;
    const char *text;         /* errnum != 0: why */
    bool answered;
};
typedef void (*nodecomm_f) (struct ctld *ctx,
                            const struct nodecomm_result *res, void *arg);

struct ctld {
    struct ev_loop *loop;
    struct conf *conf;
    struct auth *auth;
    uid_t priv_uid;
    struct listener *listener;   /* serve.c: accepts client connections */
    ev_signal sigterm_w, sigint_w;
    ev_timer tick_w;
    ev_timer limit_w;         /* 1 s: time limits, JOB_TERMINATE resends */
    struct node *nodes;
    size_t nnodes;
    struct part *parts;
    size_t nparts;
    struct job *jobs;         /* submit order */
    size_t njobs;
    uint32_t next_job_id;
    char *jobid_path;         /* NULL: ids are not saved (unit tests) */
    uint32_t jobid_left;      /* ids still covered by the saved mark */
    struct client *clients;
    struct nodecomm_req *kills;
    ev_prepare sched_w;       /* sched.c: a pass before the loop sleeps */
    bool sched_pending;       /* sched.c: a pass was requested */
    node_send_f node_send;    /* NULL: the network (nodecomm.c) */
    void *node_send_arg;
};

/* node.c */
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
/* The state a node record is in (common/states.h): IDLE, MIXED,
 * ALLOCATED, COMPLETING, DOWN, DRAIN (drained, no job left), DRAINING
 * (drained, jobs still there), UNKNOWN (never registered). A node still
 * running jobs it should not (orphans) is COMPLETING (DRAINING). */
enum node_state node_state_of (const struct node *n);
/* node_state_of's name, as NODE_INFO reports it. */
const char *node_state_str (const struct node *n);
/* May take new work: UP, answering, and no orphaned job left. */
bool node_usable (const struct node *n);
/* Can the node's noded still be expected to answer? False for a node DOWN
 * because not responding, and for one set DOWN whose noded has been
 * silent for CTLD_NODE_TIMEOUT; true otherwise. */
bool node_responding (const struct node *n, time_t now);
/* Administrators' changes (update.c applies them). Each returns -1 with
 * errno ENOMEM (nothing changed) or 0. node_admin_down: DOWN with
 * 'reason' until RESUME. node_admin_drain: no new work until RESUME
 * (DRAINING while jobs remain), also on a node that is DOWN or not yet
 * registered (it comes back drained). node_resume: lifts both and the
 * reason; a node not heard from within CTLD_NODE_TIMEOUT stays DOWN "Not
 * responding" (UNKNOWN if never heard) until it registers. */
int node_admin_down (struct ctld *ctx, size_t node, const char *reason);
int node_admin_drain (struct ctld *ctx, size_t node, const char *reason);
void node_resume (struct ctld *ctx, size_t node, time_t now);
/* Take 'count' free cores (lowest first), marking them in 'mask' too.
 * Only a scheduling pass takes cores, so this requests none. */
int node_take_cores (struct node *n, uint32_t count, uint8_t *mask);
/* Give back the cores of 'mask' on node index 'node'; requests a
 * scheduling pass (sched_request). */
void node_give_cores (struct ctld *ctx, size_t node, const uint8_t *mask);
int node_set_reason (struct node *n, const char *reason);
/* Apply a registration: lifts "not responding" and its own resource
 * drain, never an administrator's DOWN or DRAIN nor an epilog's drain.
 * Every change of a node's state (this, node_admin_*, node_resume)
 * requests a scheduling pass (sched_request). */
void node_register (struct ctld *ctx, size_t node, uint32_t cpus,
                    uint32_t real_memory, time_t now);

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
/* What users see: "COMPLETING" while the completing flag is set, else
 * job_state_str (common/states.h) of its state. */
const char *job_state_shown (const struct job *j);
/* Its state is STATE_ACTIVE (common/states.h): PENDING or RUNNING. An
 * ended job, even completing, is not active. */
bool job_is_active (const struct job *j);
/* uid may act on j: its owner, root or ArborUser. */
bool job_access (const struct ctld *ctx, const struct job *j, uid_t uid);
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
/* A step or the job's end reported 'rc' (kept when the highest) and
 * whether a task was OOM-killed (the job then ends OUT_OF_MEMORY unless
 * cancelled, timed out or failed by a node; also while completing). */
void job_note_exit (struct job *j, int rc, bool oom);
/* Give back node k's share of j (cores and memory). Idempotent. */
void job_node_release (struct ctld *ctx, struct job *j, size_t k);
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

/* Ranged text of a core mask: "0-1,4" ("" when empty). Caller frees;
 * NULL with errno ENOMEM. */
char *cores_ranged (const uint8_t *mask, uint32_t n);

/* term.c */
/* The one way a job ends (JOB_COMPLETE, allocating connection gone,
 * cancel, time limit, node failure). A pending job takes 'state' at once.
 * A running one: its steps are dropped, it takes 'state' (OUT_OF_MEMORY
 * instead of COMPLETED/FAILED when a step reported an OOM kill) with the
 * completing flag, its nodes are COMPLETING and keep its cores and memory
 * until their EPILOG_COMPLETE, and each gets JOB_TERMINATE (resent by
 * term_tick until answered). A DOWN node counts as done at once. If the
 * allocating connection is still set it is told (RC error). No-op on a
 * job that is not active. Requests a scheduling pass. */
void job_end (struct ctld *ctx, struct job *j, enum job_state state,
              const char *reason);
/* A noded answered JOB_TERMINATE for 'job_id' (errnum 0: under way). */
void term_answer (struct ctld *ctx, uint32_t job_id, size_t node,
                  int errnum, const char *text);
/* EPILOG_COMPLETE from a noded. 0 (also for repeats and unknown jobs),
 * or -1 with errno ENOENT and err when the node is not the job's. */
int term_epilog_complete (struct ctld *ctx,
                          const struct msg_epilog_complete *m,
                          arbor_error_t *err);
/* Node index 'node' went DOWN ('why' becomes the jobs' reason): its
 * running jobs end NODE_FAIL through job_end (JOB_TERMINATE goes to every
 * node still responding, this one included when it was set DOWN by an
 * administrator and its noded answers: its processes must go too). Its
 * share of completing jobs is given back at once only when it is not
 * responding; otherwise its EPILOG_COMPLETE is awaited as for any node,
 * until it answers or falls silent for CTLD_NODE_TIMEOUT. */
void term_node_down (struct ctld *ctx, size_t node, const char *why);
/* Node 'node' registered: completing jobs there whose JOB_TERMINATE was
 * answered long ago are asked again (a restarted noded forgets). */
void term_node_registered (struct ctld *ctx, size_t node, time_t now);
/* Every second: end jobs past time limit + OverTimeLimit (TIMEOUT), send
 * --signal warnings once, resend unanswered JOB_TERMINATEs. Returns true
 * when something ended. */
bool term_tick (struct ctld *ctx, time_t now);

/* cancel.c */
/* Apply JOB_CANCEL 'm' from 'uid'. 0 when done or under way, else -1 with
 * errno ENOENT, EPERM, EINVAL or ENOMEM and err holding the answer's text
 * ("Invalid job id 5", "Access/permission denied for job 5", ...). */
int job_cancel (struct ctld *ctx, const struct msg_job_cancel *m, uid_t uid,
                arbor_error_t *err);

/* update.c */
/* Apply NODE_UPDATE 'm' (the caller checked the sender is privileged):
 * state DOWN, DRAIN or RESUME (IDLE and UNDRAIN mean RESUME), any case,
 * on every node of the hostlist 'm->nodelist'; DOWN and DRAIN need a
 * reason. All is checked before anything changes: -1 with errno EINVAL
 * (unknown node, bad state, no reason) or ENOMEM and err, else 0. */
int node_update (struct ctld *ctx, const struct msg_node_update *m,
                 arbor_error_t *err);

/* ctld.c: assembly. ctld_create loads CONF_PATH (NULL: the default),
 * opens the log (DebugLevel + verbose), connects munge, restores the job
 * id mark, builds nodes and partitions, listens and arms the timers; NULL
 * with err (nothing left behind) on failure. ctld_run serves until
 * SIGTERM/SIGINT; ctld_destroy frees everything (NULL accepted). */
struct ctld *ctld_create (const char *conf_path, int verbose,
                          arbor_error_t *err);
void ctld_run (struct ctld *ctx);
void ctld_destroy (struct ctld *ctx);

/* sched.c
 *
 * When the scheduler runs: the functions that change what is free or
 * what is pending call sched_request() (node.c: a node's state changes
 * or cores are given back; term.c: a job ends; orphan.c and liveness.c:
 * a node becomes usable again or goes DOWN). That only arms an
 * ev_prepare watcher: one pass runs before the loop next sleeps, however
 * many changes a callback made. Handlers and timers never run the
 * scheduler themselves. */
/* Queue a validated job: -1 with errno EINVAL and err if it can never
 * run (the job is then not queued and still the caller's), else 0 and the
 * job belongs to ctx. A pass runs at once (sched_flush), so that the
 * caller sees whether the job started or waits (JOB_ALLOCATED or
 * JOB_PENDING is the requester's answer). */
int sched_submit (struct ctld *ctx, struct job *j, arbor_error_t *err);
/* Ask for a scheduling pass before the loop next sleeps. Cheap: call it
 * on every change; passes are not queued up. */
void sched_request (struct ctld *ctx);
/* Run the requested pass now, if any (the watcher's work; unit tests
 * call it to stay deterministic without running the loop). A pass starts
 * pending jobs in order while they fit (strict FIFO). */
void sched_flush (struct ctld *ctx);
/* Stop the watcher (ctld_destroy). */
void sched_fini (struct ctld *ctx);

/* jobid.c */
/* Directory StateSaveLocation (created if missing) and the saved next job
 * id. -1 with errno and err (unreadable or malformed file). */
int jobid_init (struct ctld *ctx, arbor_error_t *err);
void jobid_fini (struct ctld *ctx);
/* The next job id, never one in use nor, with jobid_init done, one handed
 * out before a restart: ids are saved in blocks (written atomically)
 * before any of the block is handed out. -1 with errno and err when the
 * mark cannot be saved (no id is then handed out). */
int jobid_next (struct ctld *ctx, uint32_t *id, arbor_error_t *err);

/* liveness.c */
/* A message to node 'node' was answered (any RC), or failed without an
 * answer ('why': refused, closed, timed out). Failures of an UP or DRAIN
 * node make it unusable at once and probe it every CTLD_PROBE_INTERVAL;
 * liveness_tick makes it DOWN. 'probe': the message was a probe. Never
 * changes job or node states itself (callers may be inside loops). */
void liveness_result (struct ctld *ctx, size_t node, bool answered,
                      bool probe, const char *why, time_t now);
/* Every nodecomm callback reports here first: the outcome of a message
 * counts toward the node's liveness (liveness_result). */
void liveness_nodecomm (struct ctld *ctx, const struct nodecomm_result *res);
/* The nodecomm callback of messages whose answer is only logged
 * (STEP_KILL, STEP_TERMINATE): liveness_nodecomm, then the log line. A
 * noded that missed a STEP_KILL still refuses late launches once the
 * credential expires. */
void liveness_nodecomm_cb (struct ctld *ctx,
                           const struct nodecomm_result *res, void *arg);
/* The node registered: it is alive. */
void liveness_heard (struct ctld *ctx, size_t node, time_t now);
/* Every second: sends due probes (also to nodes silent for
 * CTLD_PROBE_SILENT), and makes DOWN ("Not responding") the nodes that
 * failed CTLD_PROBE_TRIES times over CTLD_PROBE_SPAN s, or were silent
 * for CTLD_NODE_TIMEOUT: their jobs end NODE_FAIL (term_node_down).
 * Returns true when a node went DOWN. */
bool liveness_tick (struct ctld *ctx, time_t now);

/* orphan.c */
/* Node 'node' registered running 'ids': each job not expected there
 * (unknown, ended, or not on that node any more) is ended there with
 * JOB_TERMINATE and holds the node until its EPILOG_COMPLETE. */
void orphans_register (struct ctld *ctx, size_t node, const uint32_t *ids,
                       size_t n, time_t now);
/* JOB_TERMINATE of an orphan was answered (errnum 0) or failed. */
void orphan_answer (struct ctld *ctx, uint32_t job, size_t node,
                    int errnum);
/* EPILOG_COMPLETE for 'job' from 'node': true when it ended an orphan. */
bool orphan_epilog_complete (struct ctld *ctx, size_t node, uint32_t job);
/* Every second: resend unanswered JOB_TERMINATEs; a node not responding
 * forgets its orphans (it reports them again when it registers). Returns
 * true when a node was freed. */
bool orphans_tick (struct ctld *ctx, time_t now);
void orphans_clear (struct node *n);

/* info.c */
/* The NODE_INFO and JOB_INFO answers (filters, bounds). 0, or -1 with
 * errno (ENOENT, EINVAL, ENOMEM) and err. Clear 'out' with proto_clear. */
int node_info_build (const struct ctld *ctx, const struct msg_node_info *m,
                     struct msg_node_info_reply *out, arbor_error_t *err);
int job_info_build (const struct ctld *ctx, const struct msg_job_info *m,
                    struct msg_job_info_reply *out, arbor_error_t *err);
/* Give freed heap back to the system after a big answer or purge
 * ('bytes': about how much was freed; small amounts are not worth it). */
void ctld_trim (size_t bytes);
/* Keep big buffers out of the heap (a fixed mmap threshold: glibc's
 * grows with every big free, then keeps that much heap). Once, at start. */
void ctld_mem_init (void);

/* serve.c */
/* Handle request 'f' that arrived on 'c' (serve_frame_cb's work; tests call
 * it on a conn of their own). Always answers. */
void serve_request (struct ctld *ctx, struct conn *c, const struct frame *f);
void serve_frame_cb (struct conn *c, const struct frame *f, void *arg);
void serve_closed_cb (struct conn *c, const arbor_error_t *err, void *arg);
/* Serve client connections accepted on 'fd' (owned from now on, even on
 * failure), within the listener's limits (common/listen.h). 0 or -1. */
int clients_listen (struct ctld *ctx, int fd);
void clients_fini (struct ctld *ctx);

/* nodecomm.c */
/* Send a probe (STEP_KILL of job 0, signal 0: answered by any live
 * noded, touches nothing) to node index 'node', waiting at most
 * CTLD_PROBE_TIMEOUT s. */
void nodecomm_probe (struct ctld *ctx, size_t node, nodecomm_f cb,
                     void *arg);
/* Send 'msg' (a struct msg_<type>, copied: STEP_KILL, STEP_TERMINATE or
 * JOB_TERMINATE) to node index 'node' without blocking, waiting at most
 * CTLD_KILL_TIMEOUT s for its answer, or hand it to ctx->node_send when
 * set. */
void nodecomm_send (struct ctld *ctx, size_t node, int type,
                    const void *msg, nodecomm_f cb, void *arg);
/* Send STEP_KILL(job, step, sig, revoke) to node index 'node'. */
void nodecomm_step_kill (struct ctld *ctx, size_t node, uint32_t job,
                         uint32_t step, int sig, bool revoke, nodecomm_f cb,
                         void *arg);
/* Cancel every message in flight: no callback is called any more. */
void nodecomm_fini (struct ctld *ctx);

#endif
