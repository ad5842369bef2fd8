/* run_private.h - the inside of cli/run/: one context, small stages.
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
 * run_io.c owns the stepd connections, run_stdin.c stdin, run_launch.c the
 * launch connection, run_signal.c the signal handling, run_term.c what
 * ends a step early (--kill-on-bad-exit, the controller's notices, OOM
 * reports), run_place.c where ranks run and what they run (-m arbitrary,
 * --multi-prog).
 */
#ifndef ARBOR_CLI_RUN_PRIVATE_H
#define ARBOR_CLI_RUN_PRIVATE_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include "client.h"
#include "output.h"
#include "proto.h"
#include "run.h"
#include "tasks.h"

struct conn;

/* One stepd's I/O connection. */
struct run_peer {
    struct run_ctx *ctx;
    struct conn *conn;
    bool hello;      /* IO_HELLO accepted */
    char *node;      /* node name from the hello */
    uint32_t *tasks; /* global ranks on this node */
    uint32_t ntasks;
    struct run_peer *next;
};

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

    /* stdin forwarding */
    ev_io stdin_w;
    ev_timer stdin_retry; /* waits for slow stepds to drain */
    bool stdin_started, stdin_eof;
    bool stdin_wait_all; /* replay full: paused until all are there */
    struct run_chunk {
        char *data;
        size_t len;
    } * replay; /* stdin sent before every stepd was there */
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

/* The stages; each returns 0 or -1 after printing why. run_allocate,
 * run_step_create and run_finish are in run.c, run_io_listen in run_io.c,
 * run_launch_start in run_launch.c. */
int run_allocate (struct run_ctx *ctx);
int run_step_create (struct run_ctx *ctx);
int run_io_listen (struct run_ctx *ctx);
int run_launch_start (struct run_ctx *ctx);
int run_finish (struct run_ctx *ctx);

/* run_io.c */
void run_io_stop (struct run_ctx *ctx);
/* STEP_SIGNAL 'sig' to every stepd that said hello. */
void run_signal_stepds (struct run_ctx *ctx, int sig);
/* Stop the loop if everything is over (tasks ended, stepds gone). */
void run_check_done (struct run_ctx *ctx);

/* run_pty.c: --pty. start: our terminal raw (put back at exit), size
 * changes sent on; stop: put it back. size: our terminal's size. */
void run_pty_start (struct run_ctx *ctx);
void run_pty_stop (struct run_ctx *ctx);
void run_pty_size (uint32_t *rows, uint32_t *cols);

/* run_stdin.c */
/* The stdin mode to launch with: STDIN_NONE when our stdin is /dev/null,
 * else 'requested'. */
int32_t run_stdin_mode (int32_t requested);
/* A stepd said hello: start reading stdin, or replay what was read. */
void run_stdin_hello (struct run_ctx *ctx, struct run_peer *p);
void run_stdin_free (struct run_ctx *ctx);

/* run_signal.c */
void run_signals_start (struct run_ctx *ctx);
void run_signals_stop (struct run_ctx *ctx);
/* Kill the step (launch failure, double Ctrl-C): SIGKILL to every stepd,
 * and a deadline after which we stop waiting for them. */
void run_abort (struct run_ctx *ctx);

/* run_place.c */
/* -m arbitrary? (after run_place_prepare: with a SLURM_HOSTFILE) */
bool run_place_arbitrary (const struct run_ctx *ctx);
/* Before the allocation: read SLURM_HOSTFILE (-m arbitrary; -n from it)
 * and the --multi-prog file (checked against -n when given). */
int run_place_prepare (struct run_ctx *ctx);
/* The step exists: LAUNCH's task_nodes, and the --multi-prog file checked
 * against the step's task count. */
int run_place_step (struct run_ctx *ctx);
void run_place_free (struct run_ctx *ctx);

/* run_term.c */
/* Watch the controller connection for notices while the loop runs. */
void run_term_start (struct run_ctx *ctx);
void run_term_stop (struct run_ctx *ctx);
/* The controller connection is back (client_reconnect, attached to our
 * allocation when we made it), tried for at most RUN_RECONNECT_S seconds:
 * 0, or -1 with err (blocking: for the end of the run). */
#define RUN_RECONNECT_S 90
int run_reconnect_wait (struct run_ctx *ctx, arbor_error_t *err);
/* A task ended (code, or sig if signalled; oom: killed for memory): print
 * srun's line and apply --kill-on-bad-exit. */
void run_term_task_exit (struct run_ctx *ctx, const char *node, uint32_t task,
                         int code, int sig, bool oom);
/* The connection of the stepd of 'node' was lost with tasks running: an
 * MPI step cannot go on, cancel it. */
void run_term_lost (struct run_ctx *ctx, const char *node);
/* A stepd of 'node' says the MPI layer ended the step: print why (once)
 * and make its code the command's exit status. */
void run_term_abort (struct run_ctx *ctx, const char *node,
                     const struct msg_step_abort *m);
/* At the end: the OOM summary line, if any task was OOM-killed. */
void run_term_summary (const struct run_ctx *ctx);

/* run.c: arm a one-shot timer 'after' seconds from now, now being
 * the real time (ev_now_update), not the loop's cached time: every timer
 * of run goes through here, since blocking calls (allocation, step
 * creation, RPCs to the controller) run before and between iterations. */
void run_timer_start (struct run_ctx *ctx, ev_timer *w,
                      void (*cb) (struct ev_loop *, ev_timer *, int),
                      double after);

/* run.c: "-v" progress on stderr. */
/* run_verbose.c: srun -v's Slurm lines for the allocation and the
 * step's launch (one per node). */
void run_verbose_job (const struct run_ctx *ctx,
                      const struct msg_job_allocated *a);
void run_verbose_step (const struct run_ctx *ctx);
void run_verbose (const struct run_ctx *ctx, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#endif
