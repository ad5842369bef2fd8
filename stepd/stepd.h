/* stepd.h - arbor-stepd's records, shared by its files (not installed).
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
 *
 * This header holds the records only. Each module's functions are in its
 * own header (contain.h, kill.h, io.h... mpi.c's in step_mpi.h); the
 * driver's (stepd.c) in driver.h; the helpers all of them use (stepd_id,
 * stepd_signal_tasks...) in base.h, under the driver and the modules
 * alike.
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
struct mesh;
struct mpi;
struct multiprog;
struct contain;
struct killer;
struct life;
struct stepd;
struct task;
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

struct gpus;

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
    uint32_t init_tag; /* STEPD_INIT's matchtag: STEPD_LAUNCHED answers it */
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
    struct gpus *gpus;      /* the step's GPUs here (gpus.h); NULL none */
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

#endif
