/* stepd_table.h - the stepds this noded starts and signals.
 *
 * noded's record of one stepd is a struct stepd_rec, kept in a struct
 * stepd_table; it is not stepd/stepd.h's struct stepd (the step daemon's
 * own state), and not always our child: stepds re-found after a noded
 * restart are watched through their sockets (stepd_watch), not reaped.
 * stepd_spawn.c starts one arbor-stepd per (job, step) on this node: a
 * socketpair on its fd 0, setsid, STEPD_INIT built from the verified
 * claims, then it waits for STEPD_LAUNCHED. stepd_track.c keeps the table
 * of stepds (reaped through ev_child), and delivers STEP_KILL: STEP_SIGNAL
 * over each matching stepd's unix socket <spool>/stepd.<job>.<step>.sock,
 * which also finds stepds started before a noded restart. stepd_term.c
 * ends steps: STEPD_TERMINATE over the same sockets, one answer awaited
 * from each stepd (its container is empty, or it is unkillable).
 * stepd_relay.c carries each stepd's STEP_COMPLETE, which it sends over
 * its connection to us, on to the controller (retried), and sends the
 * orphans' too. stepd_ask.c relays a user's request about their own step
 * (sstat's STEP_STAT, sattach's STEP_ATTACH) to its stepd's socket.
 */
#ifndef ARBOR_NODED_STEPD_TABLE_H
#define ARBOR_NODED_STEPD_TABLE_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "proto.h"

struct noded;
struct conn;
struct stepd_table;
struct sigsend;
struct termsend;
struct orphan;
struct stepd_watch;
struct relay;
struct mesh_relay;
struct step_notify;

/* The stepds this noded started, and the messages in flight to stepd
 * sockets (stepd_track.c, stepd_term.c). */
struct stepd_table {
    struct stepd_rec *head;
    struct sigsend *sends;       /* STEP_SIGNAL awaiting an RC */
    struct termsend *terms;      /* STEPD_TERMINATE awaiting an RC */
    struct orphan *orphans;      /* containers of dead stepds being ended */
    struct stepd_watch *watches; /* stepds of a previous noded */
    struct relay *relays;        /* STEP_COMPLETEs taken from stepds */
    struct mesh_relay *meshes;   /* STEP_MESH sent on for stepds */
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

enum stepd_state {
    STEPD_STARTING, /* STEPD_INIT sent, STEPD_LAUNCHED not yet seen */
    STEPD_RUNNING,  /* tasks started */
    STEPD_FAILED,   /* reported a failure; waiting to be reaped */
};

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
    struct conn *conn; /* our end of the socketpair; NULL once closed */
    ev_child child_w;
    int pending_signal;  /* STEP_KILL seen while STARTING, 0 if none */
    bool exited;         /* reaped while its conn was still open */
    int status;          /* wait status, once exited */
    stepd_launched_f cb; /* NULL once reported or detached */
    void *arg;
};

/* ---- stepd_spawn.c ---------------------------------------------------- */

/* Start the stepd for 'req' with identity from 'claims' (both borrowed for
 * the duration of the call only). node_id is this node's index in the
 * step. 'cb' reports the outcome later (never from inside this call).
 * Returns the stepd (owned by nd->stepds) or NULL with errno and err. */
struct stepd_rec *stepd_spawn (struct noded *nd, const struct msg_launch *req,
                               const struct msg_cred_claims *claims,
                               uint32_t node_id, stepd_launched_f cb, void *arg,
                               arbor_error_t *err);

/* From the spawner (stepd_spawner.c): the stepd forked as 'pid' (its
 * record and watcher start now); it could not be (reported to the launch
 * with errnum and text, and forgotten); it was reaped with wait 'status'
 * (as ev_child would report it). */
void stepd_spawned (struct stepd_rec *s, pid_t pid);
void stepd_spawn_failed (struct stepd_rec *s, int errnum, const char *text);
void stepd_reaped (struct stepd_rec *s, int status);

/* posix_spawn StepdPath with 'argv' and 'envp' (NULL: the noded's
 * environment) as a stepd starts: its own session, default signals and an
 * empty mask, 'fd' as fd 0, /dev/null as 1 and 2, nothing else open. 0 or
 * an errno. */
int stepd_exec_argv (struct noded *nd, char *const argv[], char *const envp[],
                     int fd, pid_t *pid);

/* The launch stops waiting: 'cb' will not be called. NULL is accepted. */
void stepd_detach (struct stepd_rec *s);

/* Path of arbor-stepd: StepdPath, else beside /proc/self/exe. Caller
 * frees; NULL with errno. */
char *stepd_default_path (const struct conf *conf);

/* ---- stepd_spawner.c -------------------------------------------------- */

/* Start the node's stepd spawner (and make the noded a child subreaper).
 * A spawner that cannot start is logged, not fatal: stepds are exec'd.
 * -1 with errno ENOMEM only. */
int spawner_create (struct noded *nd);
/* Ask the spawner for a stepd with 'fd' as its fd 0 (fd stays ours to
 * close); 'mpi' is the step's MPI type (the spawner loads its plugin
 * first; NULL or "none": none). 0 once asked (s->spawned; the pid comes
 * with stepd_spawned), -1 when there is no spawner to ask: exec the
 * stepd instead. */
int spawner_spawn (struct noded *nd, struct stepd_rec *s, int fd,
                   const char *mpi);
/* Let the spawner go (it exits; its stepds run on). NULL-safe. */
void spawner_destroy (struct noded *nd);

/* ---- stepd_track.c ---------------------------------------------------- */

struct stepd_table *stepd_table_create (void);
/* Forget every stepd without signalling it (they outlive the noded):
 * closes the socketpairs and stops the child watchers. */
void stepd_table_destroy (struct stepd_table *t);

void stepd_table_insert (struct stepd_table *t, struct stepd_rec *s);
/* Unlink and free 's' (its conn and watcher are stopped). */
void stepd_table_remove (struct stepd_table *t, struct stepd_rec *s);
struct stepd_rec *stepd_table_find (struct stepd_table *t, uint32_t job,
                                    uint32_t step);

/* Called by stepd_spawn.c when a STARTING stepd reports RUNNING: delivers
 * a signal that arrived in the meantime. */
void stepd_running (struct stepd_rec *s);

/* True if (job, step) has a stepd here: in the table, or a socket in the
 * spool from before a restart. */
bool stepd_exists (struct noded *nd, uint32_t job, uint32_t step);

/* Send 'sig' to every stepd of (job, step) (step may be STEP_ID_ALL).
 * Returns how many stepds were signalled or will be once started. */
int stepd_kill (struct noded *nd, uint32_t job, uint32_t step, int sig);

/* "<spool>/stepd.<job>.<step>.sock". Caller frees. */
char *stepd_socket_path (const struct noded *nd, uint32_t job, uint32_t step);

/* Parse a spool entry name "stepd.<job>.<step>.sock". */
bool stepd_socket_name (const char *name, uint32_t *job, uint32_t *step);

/* Call f for each live stepd of 'uid' here: ours (not FAILED) and those
 * of a previous noded (stepd_info.c), with when it started (unix ms). */
typedef void (*stepd_each_f) (uint32_t job, uint32_t step, uint64_t started_ms,
                              void *arg);
void stepd_each_of_user (struct noded *nd, uid_t uid, stepd_each_f f,
                         void *arg);
/* stepd_info.c: the part of stepd_each_of_user for those of a previous
 * noded. */
void stepd_watch_each_of_user (struct noded *nd, uid_t uid, stepd_each_f f,
                               void *arg);

/* ---- stepd_ask.c, stepd_stat.c, stepd_attach.c ------------------------ */

/* A user's request 'msg' (of 'type', copied) about their step (job,
 * step), from c: answered ESRCH when the step has no stepd here, EPERM
 * (logged) unless the sender owns the step or is root/ArborUser; else
 * relayed to the stepd's socket, and its answer of 'resp_type' (MSG_RC:
 * an RC, its text kept) goes back to c with f's matchtag, or an RC saying
 * why there is none (no answer within 'timeout' s: ETIMEDOUT). */
void stepd_ask_relay (struct noded *nd, struct conn *c, const struct frame *f,
                      uint32_t job, uint32_t step, int type, const void *msg,
                      int resp_type, double timeout);
/* The asker's connection closed: drop its requests. */
void stepd_ask_conn_closed (struct noded *nd, struct conn *c);
void stepd_ask_destroy_all (struct noded *nd);

/* STEP_STAT from any user (sstat), relayed (stepd_ask_relay); the answer
 * is the stepd's STEP_STAT_REPLY. */
void stepd_stat_handle (struct noded *nd, struct conn *c, const struct frame *f,
                        const struct msg_step_stat *m);
/* STEP_ATTACH from any user (sattach): EINVAL without an address or with
 * a key of the wrong size, else relayed (stepd_ask_relay); the stepd
 * answers RC once it has connected to the client. */
void stepd_attach_handle (struct noded *nd, struct conn *c,
                          const struct frame *f,
                          const struct msg_step_attach *m);

/* ---- stepd_info.c ----------------------------------------------------- */

/* What a noded must know of a stepd once the stepd is gone, also across
 * a noded restart: kept in "<spool>/stepd.<job>.<step>.info" from the
 * stepd's start until its end has been dealt with. */
struct stepd_info {
    uint32_t job_id, step_id;
    pid_t pid;
    uid_t uid;
    gid_t gid;
    uint64_t expires;  /* unix seconds */
    uint32_t restarts; /* the job's run (revoke.h) */
};

/* Write / read / remove the record. 0 or -1 with errno (read: ENOENT when
 * there is none, EINVAL when it is malformed). */
int stepd_info_write (const struct noded *nd, const struct stepd_info *si);
int stepd_info_read (const struct noded *nd, uint32_t job, uint32_t step,
                     struct stepd_info *si);
void stepd_info_remove (const struct noded *nd, uint32_t job, uint32_t step);

/* A stepd is gone. The step is revoked until its credential expires (a
 * step that ended is as dead as a cancelled one: its credential can start
 * nothing again). 'died' (killed or crashed: it did not end its container
 * itself): the noded ends the container (stepd_orphan_start) with 'rc' as
 * the node's STEP_COMPLETE code and 'how' in the log. Else the record is
 * removed. */
void stepd_ended (struct noded *nd, const struct stepd_info *si, bool died,
                  int rc, const char *how);

/* The stepd behind the socket 'path' of (job, step) does not answer
 * (ECONNREFUSED): it died. Its container is ended if its record is known
 * (true: an orphan runs for it now), else the stale socket is removed
 * (false). */
bool stepd_socket_dead (struct noded *nd, uint32_t job, uint32_t step,
                        const char *path);

/* At start: the stepds of a previous noded, found in the spool and
 * logged at info ("found stepd 5.0 from before"). Live ones are watched
 * (a pidfd) so that their death is noticed; dead ones have their
 * container ended; records without a socket are steps that ended while
 * no noded ran: revoked. Returns how many stepd sockets were found. */
int stepd_scan (struct noded *nd);
void stepd_watch_free_all (struct stepd_table *t);

/* ---- stepd_orphan.c --------------------------------------------------- */

/* End the container of a stepd that died (see stepd_ended): load
 * ProctrackType, adopt the step's existing container, SIGCONT + SIGTERM,
 * KillWait, SIGKILL (repeated) until it is empty, remove it, then send
 * STEP_COMPLETE {node, rc} to the ctld (retried) and remove the socket
 * and the record. Nothing happens if one already runs for (job, step).
 * 0, or -1 with errno (logged) when the container cannot be adopted. */
int stepd_orphan_start (struct noded *nd, const struct stepd_info *si, int rc);
bool stepd_orphan_exists (struct noded *nd, uint32_t job, uint32_t step);
/* Call 'cb' when the orphan of (job, step) is empty (0) or found
 * unkillable (ETIME; it is still being killed). Returns 1 if there is
 * such an orphan still being emptied (cb will be called, never from
 * inside this call), else 0. */
int stepd_orphan_wait (struct noded *nd, uint32_t job, uint32_t step,
                       stepd_term_f cb, void *arg);
/* Waits reporting to 'arg' will not call back any more. */
void stepd_orphan_cancel (struct noded *nd, void *arg);
/* Drop every orphan (daemon shutdown): the socket and record stay, so the
 * next noded takes the containers over (stepd_scan). */
void stepd_orphan_free_all (struct stepd_table *t);

/* ---- stepd_relay.c --------------------------------------------------- */

/* Called once a STEP_COMPLETE is delivered (the ctld answered, accepting
 * it: taken true, or refusing it) or given up. */
typedef void (*step_notify_f) (bool taken, void *arg);

/* Send 'm' (copied; node replaced by this node's name) to the ctld as
 * STEP_COMPLETE: the first attempt on the next loop iteration, then every
 * RELAY_RESEND s an unanswered attempt is given up and started again,
 * RELAY_TRIES times at most. 'cb' is called once, never from inside this
 * call; the notify frees itself before calling it. NULL with errno
 * ENOMEM. */
struct step_notify *step_notify_start (struct noded *nd,
                                       const struct msg_step_complete *m,
                                       step_notify_f cb, void *arg);
/* Stop and free it; 'cb' is not called. NULL is accepted. */
void step_notify_cancel (struct step_notify *n);

/* A frame from the stepd of (job, step) on its own connection 'c' (our
 * end of its socketpair, or the connection we opened on its socket and
 * sent STEPD_ATTACH on). A STEP_COMPLETE is checked (it must name that
 * job, step and this node, and come from root or our uid; else refused
 * with EPERM and logged), taken over (relayed to the ctld with retries,
 * in the table: it outlives the stepd's record) and answered RC 0.
 * Returns true if the frame was a STEP_COMPLETE (answered), else false
 * (the caller deals with it). */
bool stepd_relay_frame (struct noded *nd, struct conn *c, const struct frame *f,
                        uint32_t job, uint32_t step);
/* Daemon shutdown: drop the relays not yet delivered (logged). */
void stepd_relay_free_all (struct stepd_table *t);

/* ---- stepd_mesh.c ---------------------------------------------------- */

/* A frame from the stepd of (job, step) on its connection c: a STEP_MESH
 * is checked (it must name that job and step) and sent on to the noded
 * of its dst_node; that noded's answer goes back to the stepd. True if
 * the frame was a STEP_MESH (handled), else false. */
bool stepd_mesh_frame (struct noded *nd, struct conn *c, const struct frame *f,
                       uint32_t job, uint32_t step);
/* A STEP_MESH from another noded on c (serve.c): to this node's stepd of
 * the step, answered RC (ENOENT: no such stepd here). */
void stepd_mesh_deliver (struct noded *nd, struct conn *c,
                         const struct frame *f, const struct msg_step_mesh *m);
/* Daemon shutdown: drop the relays in flight. */
void stepd_mesh_free_all (struct stepd_table *t);

/* The connection to this node's stepd of (job, step): the socketpair of
 * one we started, or the attached connection of one from before a
 * restart. NULL if there is none. Borrowed. */
struct conn *stepd_conn_find (struct noded *nd, uint32_t job, uint32_t step);

/* ---- stepd_term.c ----------------------------------------------------- */

/* Send STEPD_TERMINATE {reason} to every stepd of (job, step) (step may be
 * STEP_ID_ALL): through the sockets in the spool, which also reaches the
 * stepds of a previous noded, and, for a stepd of ours still starting,
 * once it has started (if it fails instead, it counts as gone). A socket
 * that refuses the connection is a stepd that died: the noded ends its
 * container (stepd_orphan.c), which counts as that stepd's answer. A
 * stepd that answers "unknown message" (it predates STEPD_TERMINATE) gets
 * STEP_SIGNAL SIGKILL instead and is awaited until it closes. 'cb' is
 * called once per counted stepd, never from inside this call; a stepd
 * silent for 'timeout' seconds is reported ETIME. Returns the count. */
int stepd_terminate (struct noded *nd, uint32_t job, uint32_t step,
                     const char *reason, double timeout, stepd_term_f cb,
                     void *arg);

/* Pending terminations reporting to 'arg' will not call back any more (the
 * stepds are still awaited, quietly). */
void stepd_terminate_cancel (struct noded *nd, void *arg);

/* Hooks of the stepd table: a stepd of ours started its tasks (send the
 * terminations that waited for it), or is gone (they count as done).
 * stepd_term_free_all() drops every termination without calling back. */
void stepd_term_started (struct stepd_rec *s);
void stepd_term_gone (struct stepd_rec *s);
void stepd_term_free_all (struct stepd_table *t);

#endif
