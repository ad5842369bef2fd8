/* stepd.h - arbor-stepd's context, shared by its files (not installed).
 *
 * One struct stepd per process holds everything (STYLE rule 7): the
 * configuration, the loop, the connections to noded (fd 0), to the launcher
 * (I/O) and the step socket, and the local tasks. stepd.c runs the story
 * (init, listen, connect, start, wait, complete); tasks.c forks, execs and
 * reaps the tasks; io.c moves their stdin/stdout/stderr and the launcher's
 * requests.
 */
#ifndef ARBOR_STEPD_H
#define ARBOR_STEPD_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "conn.h"
#include "error.h"
#include "proto.h"

#define STEPD_IO_CHUNK (64u << 10)        /* IO_DATA payload at most */
#define STEPD_OUT_HIGH (8u << 20)         /* pause reading output above */
#define STEPD_OUT_LOW (1u << 20)          /* ... and resume below */
#define STEPD_STDIN_MAX (64u << 20)       /* buffered stdin per task */
#define STEPD_DRAIN_SECS 2.0              /* pipes kept after last exit */
#define STEPD_IO_CONNECT_MS 5000

struct stepd;
struct task;

/* One output pipe of a task (stdout or stderr). */
struct task_out {
    ev_io w;
    int fd;            /* -1 once closed */
    uint32_t stream;   /* 1 stdout, 2 stderr */
    struct task *task;
};

struct task {
    struct stepd *sd;
    uint32_t rank;     /* global */
    uint32_t local;    /* index on this node */
    pid_t pid;         /* 0 until forked; also the process group */
    ev_child child;
    struct task_out out[2];
    int in_fd;         /* write end of stdin, -1 if none or closed */
    ev_io in_w;
    char *in_buf;      /* stdin waiting for the pipe */
    size_t in_len;
    bool in_eof;       /* close stdin once in_buf is written */
    bool exited;
    bool exit_pending; /* to be reported in the next TASK_EXIT */
    int status;        /* wait status */
};

struct stepd {
    struct conf *conf;
    const char *node;
    long arbor_uid;               /* privileged uid besides root */
    struct ev_loop *loop;
    struct auth *auth;

    struct conn *noded;           /* fd 0; NULL once closed */
    bool have_init;
    struct msg_stepd_init init;

    char *sock_path;              /* step socket, NULL if none */
    int listen_fd;
    ev_io listen_w;

    struct conn *io;              /* launcher; NULL if closed */
    bool io_closing;

    struct task *tasks;
    uint32_t nlocal;              /* local tasks in the layout */
    uint32_t ntasks;              /* entries in tasks[], 0 until allocated */
    uint32_t first_rank;
    uint32_t nexited;
    ev_prepare exit_w;            /* batches TASK_EXIT per loop iteration */
    ev_timer drain_w;             /* pipes' grace after the last exit */
    ev_timer resume_w;            /* output paused on a full I/O queue */
    ev_signal sig_w[2];           /* SIGTERM, SIGINT: passed to tasks */
    bool out_paused;
    bool finishing;
    int rc;                       /* exit code for STEP_COMPLETE */
};

/* stepd.c */
bool stepd_is_priv (const struct stepd *sd, uid_t uid);
void stepd_signal_tasks (struct stepd *sd, int sig);
/* Every task exited and every output pipe closed: wrap up. */
void stepd_check_done (struct stepd *sd);

/* tasks.c */
/* Fork and exec the local tasks. -1 with err on a launch failure (tasks
 * already started are killed). */
int tasks_start (struct stepd *sd, arbor_error_t *err);
void tasks_destroy (struct stepd *sd);
/* Send one TASK_EXIT for the exits not reported yet. */
void tasks_flush_exits (struct stepd *sd);

/* io.c */
void io_init (struct stepd *sd);
int io_connect (struct stepd *sd, arbor_error_t *err);
/* Start the output watchers of a forked task. */
void io_task_start (struct stepd *sd, struct task *t);
/* Write stdin data for the task 'task' (rank or STDIN_ALL). */
void io_stdin (struct stepd *sd, int32_t task, const char *data, size_t len);
/* Close every output pipe still open (after the drain grace). */
void io_close_outputs (struct stepd *sd);
bool io_outputs_open (const struct stepd *sd);
void io_close_stdin (struct task *t);

#endif
