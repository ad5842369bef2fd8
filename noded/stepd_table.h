/* stepd_table.h - the record of a stepd this noded starts, and the table
 * that holds it: the base the stepd_* modules of noded/ stand on.
 *
 * noded's record of one stepd is a struct stepd_rec, kept in a struct
 * stepd_table; it is not stepd/stepd.h's struct stepd (the step daemon's
 * own state), and not always our child: stepds re-found after a noded
 * restart are watched through their sockets (stepd_watch), not reaped.
 * This header holds only those records and the callback types more than
 * one module shares; each module's functions are in its own header:
 *   stepd_spawn.h    start one arbor-stepd per (job, step) on this node
 *   stepd_spawner.h  the forking helper that starts them
 *   stepd_track.h    the table, STEP_KILL over the stepd sockets
 *   stepd_info.h     the records kept in the spool, stepds re-found
 *   stepd_orphan.h   the containers of stepds that died
 *   stepd_term.h     STEPD_TERMINATE, one answer awaited per stepd
 *   stepd_relay.h    each stepd's STEP_COMPLETE carried to the controller
 *   stepd_mesh.h     STEP_MESH between the stepds of a step
 *   stepd_ask.h      a user's request about their step (stepd_stat.h,
 *                    stepd_attach.h) relayed to its stepd
 *   spool_scan.h     the stepd sockets found in the spool
 */
#ifndef ARBOR_NODED_STEPD_TABLE_H
#define ARBOR_NODED_STEPD_TABLE_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct noded;
struct conn;
struct sigsend;
struct termsend;
struct orphan;
struct stepd_watch;
struct relay;
struct mesh_relay;

/* The stepds this noded started, and the messages in flight to stepd
 * sockets; each list belongs to the module named. */
struct stepd_table {
    struct stepd_rec *head;      /* stepd_track.c */
    struct sigsend *sends;       /* stepd_track.c: STEP_SIGNAL awaiting
                                    an RC */
    struct termsend *terms;      /* stepd_term.c: STEPD_TERMINATE
                                    awaiting an RC */
    struct orphan *orphans;      /* stepd_orphan.c: containers of dead
                                    stepds being ended */
    struct stepd_watch *watches; /* stepd_info.c: stepds of a previous
                                    noded */
    struct relay *relays;        /* stepd_relay.c: STEP_COMPLETEs taken
                                    from stepds */
    struct mesh_relay *meshes;   /* stepd_mesh.c: STEP_MESH sent on for
                                    stepds */
};

/* The launch's view of its stepd: errnum 0 once it reported its tasks
 * started, else an errno value and a sentence ("stepd exited with
 * status 1", or the stepd's own text). Called at most once. */
typedef void (*stepd_launched_f) (int errnum, const char *error, void *arg);

/* One stepd's answer to STEPD_TERMINATE: errnum 0 when its container is
 * empty (or the stepd is gone), ETIME when it is unkillable or did not
 * answer in time; text is the stepd's sentence (may be NULL). */
typedef void (*stepd_term_f) (uint32_t job, uint32_t step, int errnum,
                              const char *text, void *arg);

/* A live stepd of a user here (stepd_each_of_user), with when it started
 * (unix ms). */
typedef void (*stepd_each_f) (uint32_t job, uint32_t step, uint64_t started_ms,
                              void *arg);

enum stepd_state {
    STEPD_STARTING, /* STEPD_INIT sent, STEPD_LAUNCHED not yet seen */
    STEPD_RUNNING,  /* tasks started */
    STEPD_FAILED,   /* reported a failure; waiting to be reaped */
};

struct request;

struct stepd_rec {
    struct noded *nd;
    struct stepd_rec *next;
    uint32_t job_id, step_id;
    uid_t uid; /* owner of the step (its container's path) */
    gid_t gid;
    uint64_t expires;     /* the credential's: revoked until then */
    uint64_t started_ms;  /* unix ms when we began to start it */
    uint32_t restarts;    /* the job's run (revoke.h) */
    pid_t pid;            /* 0 until the spawner says (spawned) */
    bool spawned;         /* forked by the spawner, not exec'd */
    uint64_t spawn_token; /* its SPAWN request */
    enum stepd_state state;
    struct conn *conn;        /* our end of the socketpair; NULL once closed */
    struct request *init_req; /* STEPD_INIT until STEPD_LAUNCHED answers */
    ev_child child_w;
    int pending_signal;  /* STEP_KILL seen while STARTING, 0 if none */
    bool exited;         /* reaped while its conn was still open */
    int status;          /* wait status, once exited */
    stepd_launched_f cb; /* NULL once reported or detached */
    void *arg;
};

#endif
