/* run_base.h - what every file of cli/run/ stands on: the launcher's one
 * context and the two helpers that every stage uses (run_base.c).
 *
 * Private to cli/run/; the rest of the command sees only run.h. run.c
 * drives the stages in order:
 *   run_place_prepare SLURM_HOSTFILE (-m arbitrary), --multi-prog file
 *   run_allocate      JOB_ALLOC (or use --jobid / $ARBOR_JOB_ID)
 *   run_step_create   STEP_CREATE, retried while the job's cores are busy
 *                     (not under --immediate)
 *   run_place_step    task_nodes, --multi-prog checked for the step
 *   run_io_listen     the listener the stepds connect back to
 *   run_launch_start  LAUNCH to node zero (answer handled on the loop)
 *   ev_run            stepd connections, output, stdin, task exits, signals
 *   run_finish        STEP_COMPLETE / JOB_COMPLETE, exit status
 * Each module has its own header: run_io.h (the stepd connections),
 * run_stdin.h (stdin), run_launch.h (the launch connection), run_signal.h
 * (signal handling), run_term.h (what ends a step early:
 * --kill-on-bad-exit, the controller's notices, OOM reports), run_place.h
 * (where ranks run and what they run: -m arbitrary, --multi-prog),
 * run_pty.h (--pty) and run_verbose.h (srun -v's Slurm lines). The
 * modules call each other only through those headers, never up into
 * run.c.
 */
#ifndef ARBOR_CLI_RUN_BASE_H
#define ARBOR_CLI_RUN_BASE_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include "client.h"
#include "output.h"
#include "proto.h"
#include "run.h"
#include "tasks.h"

struct conn;
struct listener;
struct auth_pool;
struct run_peer;  /* one stepd's I/O connection (run_io.h) */
struct run_chunk; /* stdin kept for late stepds (run_stdin.c) */

struct run_ctx {
    struct ev_loop *loop;
    const char *prog;    /* "arbor run" / "srun" for messages */
    struct run_opts opt; /* a shallow copy: the strings are the
                            caller's */
    char **argv;         /* the command to run (borrowed) */
    int argc;
    char *cwd;        /* absolute working directory of the tasks */
    char *input_path; /* -i FILE made absolute (when it was not) */
    char **env;       /* the tasks' environment (--export) */
    const char *mpi;  /* canonical MPI type (--mpi, else MpiDefault) */

    struct client cl;
    bool allocated; /* we made the job: JOB_COMPLETE at the end */
    uint32_t job_id;
    char *job_nodelist;
    uint32_t job_nnodes; /* nodes we were allocated (-N MIN-MAX: the
                            step spans what the range got) */
    struct msg_step_created step;
    bool have_step;

    /* I/O listener and stepd connections */
    struct listener *listener; /* accepts the stepds (common/wire/listen.h) */
    char io_host[64];
    uint16_t io_port;
    struct run_peer *peers;
    uint32_t nhello; /* stepds that said hello */

    /* launch */
    struct auth_pool *pool; /* the launch conn's munge encode */
    uid_t noded_uid;        /* NodedUser: node zero's uid */
    struct conn *launch_conn;
    ev_timer launch_timer;
    ev_tstamp launch_t0;
    bool launch_replied;
    bool launch_failed;

    /* tasks and their output */
    struct task_table tasks;
    struct output *out;
    bool out_error; /* an output write failed (reported once) */

    /* stdin forwarding (run_stdin.c) */
    ev_io stdin_w;
    ev_timer stdin_retry; /* waits for slow stepds to drain */
    bool stdin_started, stdin_eof;
    bool stdin_wait_all;      /* replay full: paused until all are there */
    struct run_chunk *replay; /* stdin sent before every stepd was there */
    size_t nreplay, replay_bytes;

    /* signals */
    ev_signal sig_w[6];
    ev_tstamp last_sigint;
    bool aborting;
    ev_timer abort_timer; /* gives up on stepds that never close */

    /* early ends (run_term.c) */
    ev_io ctld_w;             /* notices on the controller connection */
    bool terminating;         /* step being terminated (-K or notice) */
    ev_timer term_timer;      /* how long we wait for that */
    ev_timer reconnect_timer; /* the controller restarts: try again */
    uint32_t noom;            /* tasks reported killed for memory */
    bool mpi_aborted;         /* a stepd's STEP_ABORT came: ... */
    int abort_code;           /* ... the command's exit status */

    /* where ranks run and what they run (run_place.c) */
    char **arb_hosts;     /* -m arbitrary: the host of each rank */
    uint32_t arb_nhosts;  /* ... as many as tasks */
    char *arb_nodelist;   /* their distinct hosts, in order of appearance */
    uint32_t *arb_counts; /* ... and the ranks of each */
    uint32_t arb_nnodes;
    uint32_t *task_nodes; /* LAUNCH's: the step node of each rank */
    uint32_t ntask_nodes;
    char *multi_prog; /* --multi-prog's text, NUL-terminated */
    size_t multi_prog_len;

    ev_signal winch_w; /* --pty: our terminal's size (run_pty.c) */
};

/* Arm a one-shot timer 'after' seconds from now, now being the real time
 * (ev_now_update), not the loop's cached time: every timer of run goes
 * through here, since blocking calls (allocation, step creation, RPCs to
 * the controller) run before and between iterations. */
void run_timer_start (struct run_ctx *ctx, ev_timer *w,
                      void (*cb) (struct ev_loop *, ev_timer *, int),
                      double after);

/* "-v" progress on stderr (nothing without -v). */
void run_verbose (const struct run_ctx *ctx, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#endif
