/* stepd.h - arbor-stepd's context, shared by its files (not installed).
 *
 * One struct stepd per process ties the modules together (STYLE rule 7):
 * the configuration, the loop, the connections to noded (fd 0), to the
 * launcher (I/O) and the step socket, and the local tasks (shared by
 * tasks.c and io.c). The container (contain.c), the termination sequence
 * (kill.c) and the lifecycle (lifecycle.c) keep their state private,
 * behind opaque pointers only their own file can look into.
 * stepd.c runs the start of the story (init, listen, contain, connect,
 * start); lifecycle.c alone decides when the step is over and walks it
 * through its end (drain, cleanup, flush, report, exit); report.c tells
 * the controller, through the noded; sock.c serves the step socket; contain.c
 * holds the proctrack container; kill.c runs the termination sequence and the
 * end-of-step cleanup; tasks.c forks and execs the tasks and reports their
 * exits; reap.c reaps them and accounts what they used; io.c
 * moves their stdin/stdout/stderr and the launcher's requests; attach.c
 * keeps the clients attached to that I/O (sattach); naming.c
 * and bind.c make the pure decisions (step names, task binding). The
 * modules only change state; none asks whether the step is over.
 */
#ifndef ARBOR_STEPD_H
#define ARBOR_STEPD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <ev.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "conn.h"
#include "cpubind.h"
#include "error.h"
#include "plugin.h"
#include "proto.h"

#define STEPD_IO_CHUNK (64u << 10)  /* IO_DATA payload at most */
#define STEPD_OUT_HIGH (8u << 20)   /* pause reading output above */
#define STEPD_OUT_LOW (1u << 20)    /* ... and resume below */
#define STEPD_STDIN_MAX (64u << 20) /* buffered stdin per task */
#define STEPD_DRAIN_SECS 2.0        /* pipes kept after last exit */
#define STEPD_IO_CONNECT_MS 5000
#define STEPD_ATTACH_MAX 16   /* clients attached at once (attach.c) */
#define STEPD_KILL_POLL 0.15  /* s between is_empty checks */
#define STEPD_KILL_REPEAT 2.0 /* s between SIGKILL retries */

struct request;
struct attacher;
struct batch;
struct coll;
struct env;
struct mesh;
struct mpi;
struct multiprog;
struct contain;
struct killer;
struct life;
struct stepd;
struct task;
struct task_plan;
struct epilogs;

/* One output pipe of a task (stdout or stderr). */
struct task_out {
    ev_io w;
    int fd;          /* -1 once closed */
    uint32_t stream; /* 1 stdout, 2 stderr */
    struct task *task;
};

struct task {
    struct stepd *sd;
    uint32_t rank;  /* global */
    uint32_t local; /* index on this node */
    pid_t pid;      /* 0 until forked; also the process group */
    struct task_out out[2];
    int in_fd; /* write end of stdin, -1 if none or closed */
    ev_io in_w;
    char *in_buf; /* stdin waiting for the pipe */
    size_t in_len;
    bool in_eof; /* close stdin once in_buf is written */
    bool exited;
    bool exit_pending; /* to be reported in the next TASK_EXIT */
    bool oom;          /* killed by the OOM killer */
    int status;        /* wait status */
    /* What it used, from wait4 once exited (reap.c): CPU time, with the
     * descendants it waited for, and its peak resident size. */
    uint64_t user_usec, sys_usec;
    uint64_t maxrss_kb;
    /* The largest sizes sstat saw while it ran (stat.c). */
    uint64_t stat_rss_kb, stat_vsize_kb;
};

/* The phases of a step, in order (lifecycle.c). */
enum life_phase {
    LIFE_INIT = 0,
    LIFE_RUNNING,
    LIFE_DRAINING,
    LIFE_CLEANUP,
    LIFE_FLUSH,
    LIFE_REPORT,
    LIFE_DONE,
};

struct stepd {
    struct conf *conf;
    const char *node;
    bool nests;     /* this node shares its host (conf_node_nests), known
                     * before the spawner forks: a lookup among all nodes */
    long arbor_uid; /* privileged uid besides root */
    struct ev_loop *loop;
    struct auth_pool *pool; /* munge, only if a report must go to the
                             * ctld directly (threads start at first use) */
    struct peers *kept;     /* its kept connection (peers.h) */

    /* The noded: fd 0 (the socketpair it spawned us with) or, after a
     * noded restart, the step socket connection the new noded named
     * with STEPD_ATTACH (sock.c). NULL while there is none. */
    struct conn *noded;
    bool have_init;
    struct msg_stepd_init init;
    char id[32]; /* "5.0", see stepd_id() */

    char *sock_path; /* step socket, NULL if none */
    int listen_fd;
    ev_io listen_w;
    struct conn **peers; /* open step socket connections */
    size_t npeers;

    struct contain *ct;     /* contain.c's, private */
    struct killer *kill;    /* kill.c's, private */
    bool bind;              /* tasks are bound (bind.c decided) */
    cpu_set_t bind_set;     /* the step's cores here, when bound */
    struct cpubind cpubind; /* STEPD_INIT's --cpu-bind */
    char *bind_masks;       /* "0x1,0x2": each local task's, when bound */
    bool oom;               /* an OOM kill happened in the step */

    struct conn *io; /* launcher; NULL if closed */
    bool io_closing;
    struct attacher *attached; /* attach.c's clients (sattach) */

    struct task *tasks;
    uint32_t nlocal;              /* local tasks in the layout */
    uint32_t ntasks;              /* entries in tasks[], 0 until allocated */
    uint32_t *ranks;              /* every rank of the step, node by node
                                     (place.h) */
    const uint32_t *local_ranks;  /* this node's nlocal, within ranks */
    struct multiprog *multi_prog; /* --multi-prog, NULL: argv */
    uint32_t nexited;
    ev_prepare exit_w;  /* batches TASK_EXIT per loop iteration */
    ev_timer resume_w;  /* output paused on a full I/O queue */
    ev_signal sig_w[2]; /* SIGTERM, SIGINT: passed to tasks */
    ev_signal chld_w;   /* SIGCHLD: reap.c */
    bool out_paused;
    enum life_phase phase;    /* lifecycle.c */
    struct life *life;        /* lifecycle.c's, private */
    bool finishing;           /* phase >= LIFE_CLEANUP */
    struct request *report;   /* STEP_COMPLETE to the ctld (report.c) */
    struct conn *report_conn; /* ... or sent on this noded conn */
    ev_timer report_w;        /* bound on the noded's answer */
    bool reported;            /* taken, answered, failed or timed out */
    int rc;                   /* exit code for STEP_COMPLETE */

    struct batch *batch; /* batch.c's, for the batch step only */
    struct mpi *mpi;     /* mpi.c's, NULL without MPI (--mpi=none) */
    struct mesh *mesh;   /* mesh.c's: messages to the step's other stepds */
    struct coll *coll;   /* coll.c's: all-gathers over them */
    /* mpi.c: plugins the spawner loaded (mpi_preload), by type; a
     * stepd takes its own from here */
    struct plugin *mpi_loaded[2];
    struct epilogs *epilogs; /* task_epilog.c's, NULL until a task ends */
};

/* STEP_MESH kinds (mesh.c carries them, mpi.c dispatches them). */
enum mesh_kind {
    MESH_GATHER = 1, /* coll.c: records up the tree */
    MESH_BCAST = 2,  /* coll.c: a round's result down the tree */
    MESH_P2P = 3,    /* plugin to plugin (direct modex...) */
    MESH_ABORT = 4,  /* the step is aborted: [rank][code][text] */
};

/* spawner.c */
/* arbor-stepd --spawner: after stepd_load, serve the noded's SPAWN
 * requests on 'sock' (spawnmsg.h), forking one child per request. Returns 1 in
 * a child, whose fd 0 is now its socketpair to the noded, to go on with
 * stepd_start; 0 in the spawner when the noded closed 'sock'; -1 with err on
 * failure. */
int spawner_run (struct stepd *sd, int sock, arbor_error_t *err);

/* stepd.c */
/* A step daemon in two halves, so that the spawner (spawner.c) does the
 * first once and forks before the second. stepd_load: load CONF_PATH,
 * open NODE's log, load and set up ProctrackType (contain_preload); no
 * loop, no threads, no connection. 'node' is borrowed and must outlive the
 * stepd. NULL with err on failure. */
struct stepd *stepd_load (const char *conf_path, const char *node, int verbose,
                          arbor_error_t *err);
/* stepd_start: make the loop and its watchers and take 'noded_fd' (the
 * socketpair to the noded, STEPD_INIT expected on it). 0, or -1 with err
 * (stepd_destroy frees what was made). */
int stepd_start (struct stepd *sd, int noded_fd, arbor_error_t *err);
/* Run until the step is over (lifecycle.c). The exit status: 0, or 1 if
 * no valid STEPD_INIT came. */
int stepd_run (struct stepd *sd);
/* Free everything; NULL is accepted; errno is kept. */
void stepd_destroy (struct stepd *sd);
bool stepd_is_priv (const struct stepd *sd, uid_t uid);
/* The extern step (STEP_ID_EXTERN, PrologFlags=Contain): a container and
 * no task, kept until the job ends (STEPD_TERMINATE), for the ssh
 * sessions pam_arbor_adopt puts in it. */
bool stepd_extern (const struct stepd *sd);
/* Do our tasks' I/O go to a launcher (not the batch or extern step)? */
bool stepd_has_launcher (const struct stepd *sd);
/* A frame on the noded connection c (fd 0, or the attached one) that is
 * the same on both: an answer to us (mesh.c's or report.c's) or a
 * STEP_MESH. True if it was one (handled). */
bool stepd_noded_frame (struct stepd *sd, struct conn *c,
                        const struct frame *f);
/* The noded connection c is gone: the report and the mesh sends waiting
 * on it go elsewhere, or wait for the next noded. */
void stepd_noded_lost (struct stepd *sd, struct conn *c);
/* Signal every process of the step: through the container once it
 * exists, else each task's process group. */
void stepd_signal_tasks (struct stepd *sd, int sig);
/* "5.0" for logs and messages; borrowed, valid until the next call. */
const char *stepd_id (struct stepd *sd);

/* lifecycle.c: the phases of the step, advanced on the loop. 0, or -1
 * with errno ENOMEM. */
int life_init (struct stepd *sd);
/* No valid STEPD_INIT will come: end the loop. */
void life_abort (struct stepd *sd);
void life_fini (struct stepd *sd);

/* report.c: STEP_COMPLETE, through the noded (which answers once it has
 * taken over its delivery to the controller) or, with no noded, to the
 * controller directly; asynchronously. */
void report_start (struct stepd *sd);
bool report_done (const struct stepd *sd);
void report_cancel (struct stepd *sd); /* teardown: abandon it */
/* An answer (FRAME_F_RESPONSE) on the noded connection c. */
void report_answer (struct stepd *sd, struct conn *c, const struct frame *f);
/* The noded connection c is closing: a report awaiting its answer there
 * goes elsewhere. */
void report_conn_lost (struct stepd *sd, struct conn *c);

/* stat.c: the STEP_STAT_REPLY of what the tasks use now (sstat). 0, or
 * -1 with errno ENOMEM; proto_clear it. */
int stat_measure (struct stepd *sd, struct msg_step_stat_reply *r);

/* sock.c: the step socket <spool>/stepd.<job>.<step>.sock. */
int sock_listen (struct stepd *sd, arbor_error_t *err);
void sock_unlisten (struct stepd *sd);
/* Connections on the step socket still open, and attached clients
 * (attach.c). */
size_t sock_npeers (const struct stepd *sd);
/* Close them (attached clients too) once their queued frames are
 * written. */
void sock_close_peers_after_flush (struct stepd *sd);
/* Close them now. */
void sock_close_peers (struct stepd *sd);

/* contain.c */
/* Its private state (no container yet). 0, or -1 with errno ENOMEM. */
int contain_init (struct stepd *sd);
/* Is there a container now (created, not yet removed)? */
bool contain_exists (const struct stepd *sd);
/* Free the private state (after contain_destroy); the plugin stays
 * mapped until the stepd exits. NULL-safe. */
void contain_free (struct stepd *sd);
/* Load ProctrackType and init it, before any step is known (in the
 * spawner, once for every stepd it forks). A failure is kept and becomes
 * contain_create's: the launch fails with the plugin's reason. */
void contain_preload (struct stepd *sd);
/* Create the step's container (nested
 * under node_<NODE> by the emulation rule). -1 with err when containment
 * is configured but unusable (launch fails). */
int contain_create (struct stepd *sd, arbor_error_t *err);
/* Put a freshly forked (still waiting) task in the container. */
int contain_add (struct stepd *sd, pid_t pid);
/* Move a running process (a login's, pam_arbor_adopt) into the container.
 * -1 with errno and err: ENOTSUP when the plugin cannot adopt (pgid). */
int contain_adopt (struct stepd *sd, pid_t pid, arbor_error_t *err);
/* Does the plugin let a task add itself (add_self)? Then the child calls
 * contain_add_self before it execs, and the parent does not add it. */
bool contain_adds_self (struct stepd *sd);
int contain_add_self (struct stepd *sd);
/* Signal the container. -1 with errno if there is none or it failed. */
int contain_signal (struct stepd *sd, int sig);
/* 1 empty (or no container), 0 not empty, -1 error. */
int contain_is_empty (struct stepd *sd);
/* The live pids of the container (caller frees; none without one). 0,
 * or -1 with errno. */
int contain_pids (struct stepd *sd, pid_t **pids, size_t *n);
/* The live pids as "123 456" (at most 'size' bytes). */
void contain_pids_text (struct stepd *sd, char *buf, size_t size);
/* OOM kills since the container was made; 0 if not counted. */
uint64_t contain_oom_kills (struct stepd *sd);
/* A task died by SIGKILL: true (once per OOM kill) if the OOM killer did
 * it. */
bool contain_claim_oom (struct stepd *sd);
/* Remove the container (it must be empty) and unload the plugin. */
void contain_destroy (struct stepd *sd);

/* kill.c */
/* Its private state. 0, or -1 with errno ENOMEM. kill_fini frees it. */
int kill_init (struct stepd *sd);
/* STEPD_TERMINATE from conn c (answered later with RC on matchtag). */
void kill_terminate (struct stepd *sd, struct conn *c, uint32_t matchtag,
                     const char *reason);
/* The tasks are over: SIGKILL what is left in the container, wait until
 * it is empty, remove it. */
void kill_leftovers (struct stepd *sd);
/* A STEPD_TERMINATE came: the step is being ended. */
bool kill_requested (const struct stepd *sd);
/* The container is empty and removed (or there never was one). */
bool kill_done (const struct stepd *sd);
/* Forget requests from a closing connection. */
void kill_forget_conn (struct stepd *sd, struct conn *c);
/* Stop the poll and drop pending requests (the state stays). */
void kill_fini (struct stepd *sd);
/* kill_fini, then free the state. NULL-safe. */
void kill_free (struct stepd *sd);

/* mpi.c: the step's MPI plugin. mpi_prepare loads it and sets it up
 * (nothing for --mpi=none); -1 with err fails the launch. */
int mpi_prepare (struct stepd *sd, arbor_error_t *err);
/* SLURM_MPI_TYPE and the plugin's variables for the task of 'rank' into
 * env; *keep_fd: a descriptor the task inherits, or -1. */
int mpi_task_env (struct stepd *sd, uint32_t rank, struct env *env,
                  int *keep_fd, arbor_error_t *err);
void mpi_task_started (struct stepd *sd, uint32_t rank, pid_t pid);
/* A task ended: abort the step if that breaks the MPI job. */
void mpi_task_exited (struct stepd *sd, const struct task *t);
/* The tasks are over: stop serving, remove the step's MPI directory. */
void mpi_finish (struct stepd *sd);
/* Messages to other stepds still on their way. */
bool mpi_busy (const struct stepd *sd);
void mpi_free (struct stepd *sd);
/* In the spawner: load the plugin of MPI type 'type' ("pmix", "pmi2")
 * once, before forking, so that stepds find it loaded (a failure is
 * only logged: the stepd then loads it, and says why it cannot). */
void mpi_preload (struct stepd *sd, const char *type);

/* batch.c: the batch step (STEP_ID_BATCH): its script in the spool
 * area, run as the one task with its output in files. */
bool batch_step (const struct stepd *sd);
/* Write the script (nothing for other steps). -1 with err fails the
 * launch. */
int batch_prepare (struct stepd *sd, arbor_error_t *err);
/* The script's path (the task's argv[0]); NULL for other steps. */
const char *batch_script_path (const struct stepd *sd);
/* The step is over: remove the script and its directory. NULL-safe. */
void batch_finish (struct stepd *sd);

/* mesh.c: STEP_MESH to the stepds of the step on other nodes, through
 * the nodeds. 'names' (borrowed until mesh_fini) are the step's nodes by
 * index. recv gets what arrives; fail is told when a send to 'dst' is
 * given up (after retries for MESH_DEADLINE). */
typedef void (*mesh_recv_f) (struct stepd *sd, uint32_t src, uint32_t kind,
                             uint64_t seq, const char *data, size_t len);
typedef void (*mesh_fail_f) (struct stepd *sd, uint32_t dst, const char *why);
int mesh_init (struct stepd *sd, const char *const *names, uint32_t nnodes,
               mesh_recv_f recv, mesh_fail_f fail);
/* Send (data copied); 0, or -1 with errno (EINVAL, EMSGSIZE, ENOMEM). */
int mesh_send (struct stepd *sd, uint32_t dst, uint32_t kind, uint64_t seq,
               const void *data, size_t len);
/* A STEP_MESH frame from the noded. */
void mesh_frame (struct stepd *sd, const struct frame *f);
/* An answer from the noded: true if it was for one of our sends. */
bool mesh_answer (struct stepd *sd, const struct frame *f);
/* The noded connection went away: resend what was in flight on it. */
void mesh_noded_lost (struct stepd *sd);
size_t mesh_pending (const struct stepd *sd);
void mesh_fini (struct stepd *sd);

/* coll.c: all-gather rounds over a tree of the step's nodes ('width'
 * children each). done gets each round's result (every node's data in
 * node order; errnum != 0 and no data if it failed), never from inside
 * the call that completed it. */
typedef void (*coll_done_f) (struct stepd *sd, int64_t seq, const void *data,
                             size_t len, int errnum);
int coll_init (struct stepd *sd, uint32_t node, uint32_t nnodes, uint32_t width,
               coll_done_f done);
/* Contribute to the next round; its number, or -1 with errno. */
int64_t coll_allgather (struct stepd *sd, const void *data, size_t len);
void coll_recv (struct stepd *sd, uint32_t src, uint32_t kind, uint64_t seq,
                const char *data, size_t len);
/* Fail every round in progress with errnum. */
void coll_fail (struct stepd *sd, int errnum);
void coll_fini (struct stepd *sd);

/* tasks.c */
/* Check what STEPD_INIT asks of the tasks before anything is set up
 * (--cpu-bind: map_cpu's CPUs must be the step's here). -1 with err. */
int tasks_check (struct stepd *sd, arbor_error_t *err);
/* Fork and exec the local tasks, each put in the container before it
 * may exec. -1 with err on a launch failure (tasks already started are
 * killed). */
int tasks_start (struct stepd *sd, arbor_error_t *err);
void tasks_destroy (struct stepd *sd);
/* Task t ended with wait status 'status' (reap.c reaped it): log it, claim
 * an OOM kill, update the step's rc, queue its TASK_EXIT, tell MPI. */
void tasks_exited (struct task *t, int status);
/* Send one TASK_EXIT for the exits not reported yet. */
void tasks_flush_exits (struct stepd *sd);
/* The parent's side of a child just started from a plan: unless it puts
 * itself in the container (go_w -1), add it and let it go on (writing
 * go_w); then read its status pipe (status_r) until it execs (EOF) or
 * says why it could not. Returns what was read (the reason, NUL-ended in
 * buf; 0: it exec'd), -1 on a read error; *add_errno is the container's
 * refusal (the child then exits on its own), else 0. The caller closes
 * the fds. */
ssize_t tasks_release (struct stepd *sd, pid_t pid, int go_w, int status_r,
                       char *buf, size_t len, int *add_errno);

/* task_limits.c: the launcher's resource limits (SLURM_RLIMIT_* in
 * STEPD_INIT's env, common/rlimits.h) into plan, lowered to this node's
 * hard limits; then note (len bytes) is the line saying which were,
 * else "". */
void task_limits_plan (struct stepd *sd, struct task_plan *plan, char *note,
                       size_t len);

/* task_epilog.c: --task-epilog, then TaskEpilog, after each task ends,
 * as the job's user with the task's environment, in the container, each
 * bounded (--task-epilog a few seconds, TaskEpilog PrologEpilogTimeout).
 * The step is not over while one runs (lifecycle.c). */
void epilog_task_ended (struct stepd *sd, const struct task *t);
/* A child reaped (reap.c): true if it was an epilog (the next one of
 * its task starts). */
bool epilog_reaped (struct stepd *sd, pid_t pid, int status);
bool epilog_busy (const struct stepd *sd);
/* Kill what still runs (the container goes next) and free. NULL-safe. */
void epilog_fini (struct stepd *sd);

/* reap.c: every child is reaped by one SIGCHLD watcher on the stepd's
 * loop (not libev's default loop, whose own reaping drops the rusage),
 * with wait4. reap_start before the first task is made; the watcher does
 * not keep the loop alive. */
void reap_start (struct stepd *sd);
void reap_stop (struct stepd *sd);
/* The exit code srun reports for wait status 'status': 128+signal, else
 * the exit status. */
int reap_rc (int status);
/* STEP_COMPLETE's exit_code, signal and usage fields from the reaped
 * tasks (the rest of m is left alone). */
void reap_account (const struct stepd *sd, struct msg_step_complete *m);

/* io.c */
void io_init (struct stepd *sd);
int io_connect (struct stepd *sd, arbor_error_t *err);
/* Queue IO_HELLO (the step, this node, its ranks) on c, the first frame
 * of an I/O connection: the launcher's or an attached client's. 0, or -1
 * with errno. */
int io_hello (struct stepd *sd, struct conn *c);
/* Start the output watchers of a forked task. */
void io_task_start (struct stepd *sd, struct task *t);
/* Write stdin data for the task 'task' (rank or STDIN_ALL). */
void io_stdin (struct stepd *sd, int32_t task, const char *data, size_t len);
/* Close every output pipe still open (after the drain grace). */
void io_close_outputs (struct stepd *sd);
bool io_outputs_open (const struct stepd *sd);
/* Write text to the launcher as stderr of the first local task whose
 * stderr is still open; false if none is (or no I/O connection). */
bool io_user_error (struct stepd *sd, const char *text);
void io_close_stdin (struct task *t);

/* attach.c: clients attached to the tasks' I/O (sattach). */
/* STEP_ATTACH 'm' from step socket conn c: connect to m's host:port
 * without blocking, key the session with m's key, say IO_HELLO, and
 * answer RC on c (matchtag) once connected, or the error (EINVAL bad
 * request or a step without I/O, ESRCH ending, EBUSY STEPD_ATTACH_MAX
 * attached, or the connect's errno). */
void attach_start (struct stepd *sd, struct conn *c, uint32_t matchtag,
                   const struct msg_step_attach *m);
/* Queue an encoded frame (IO_DATA) to every attached client; a client
 * over STEPD_OUT_HIGH behind is told (RC ENOBUFS) and closed once
 * flushed. */
void attach_send_body (struct stepd *sd, int type, const char *body,
                       size_t len);
/* Is any client attached (output to send)? */
bool attach_any (const struct stepd *sd);
/* Step socket conn c is closing: connects it waits for are abandoned. */
void attach_forget_asker (struct stepd *sd, struct conn *c);
/* The step is over: connects in progress are answered ESRCH and
 * dropped, attached clients flushed and closed. */
void attach_close_after_flush (struct stepd *sd);
/* Clients connecting, attached or still flushing. */
size_t attach_count (const struct stepd *sd);
/* Close every one now (queued output is dropped). */
void attach_close_all (struct stepd *sd);

#endif
