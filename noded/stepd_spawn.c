/* stepd_spawn.c - start an arbor-stepd and wait for it to launch its tasks.
 *
 * The stepd is a fork of the node's stepd spawner (stepd_spawner.c; its
 * pid comes later, with stepd_spawned) or, when there is none, started
 * with posix_spawn (a vfork-like clone: cheap even for a large noded);
 * either way in its own session, with one end of a socketpair as fd 0,
 * /dev/null as fd 1 and 2 and every other fd closed. Over the socketpair
 * (a conn in SO_PEERCRED mode) the noded sends STEPD_INIT, built from the
 * VERIFIED claims for identity (uid, gid, user, groups, home, io_key) and
 * from the launch
 * for the rest, then waits for STEPD_LAUNCHED; at the end of the step the
 * stepd sends its STEP_COMPLETE on it, which the noded relays to the
 * controller (stepd_relay.c). A stepd that exits before
 * saying so is a failure reported with its exit status (ev_child, or the
 * spawner's EXITED: stepd_reaped).
 * Each stepd gets a record in the spool (stepd_info.c) and, when it is
 * reaped, its end goes to stepd_ended(): the step is revoked, and a stepd
 * that died (killed, or its socket left behind) has its container ended by
 * the noded (stepd_orphan.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "conn.h"
#include "request_conn.h"
#include "log.h"
#include "noded_base.h"
#include "stepd_info.h"
#include "stepd_mesh.h"
#include "stepd_relay.h"
#include "stepd_spawn.h"
#include "stepd_spawner.h"
#include "stepd_table.h"
#include "stepd_term.h"
#include "stepd_track.h"

extern char **environ;

char *stepd_default_path (const struct conf *conf)
{
    char exe[PATH_MAX];
    char *slash, *path;
    ssize_t n;

    if (conf->stepd_path)
        return strdup (conf->stepd_path);
    if ((n = readlink ("/proc/self/exe", exe, sizeof (exe) - 1)) < 0)
        return NULL;
    exe[n] = '\0';
    if ((slash = strrchr (exe, '/')))
        *slash = '\0';
    if (asprintf (&path, "%s/arbor-stepd", exe) < 0)
        return NULL;
    return path;
}

static void stepd_spawn_record (const struct stepd_rec *s);

/* Hand the launch its outcome, once. */
static void stepd_report (struct stepd_rec *s, int errnum, const char *text)
{
    stepd_launched_f cb = s->cb;

    s->cb = NULL;
    if (cb)
        cb (errnum, text, s->arg);
}

void stepd_detach (struct stepd_rec *s)
{
    if (s)
        s->cb = NULL;
}

static void stepd_status_text (int status, char *buf, size_t len)
{
    if (WIFEXITED (status))
        snprintf (buf, len, "stepd exited with status %d",
                  WEXITSTATUS (status));
    else if (WIFSIGNALED (status))
        snprintf (buf, len, "stepd killed by signal %d", WTERMSIG (status));
    else
        snprintf (buf, len, "stepd ended with wait status %d", status);
}

/* Did the stepd die rather than end? A stepd removes its socket once its
 * container is empty and removed, just before it exits: if the socket is
 * still there, or a signal ended it, its tasks may live on. */
static bool stepd_died (const struct stepd_rec *s)
{
    char *path = stepd_socket_path (s->nd, s->job_id, s->step_id);
    struct stat st;
    bool left = path && stat (path, &st) == 0;

    free (path);
    /* FAILED: it reported a failed launch (its tasks were ended then), or
     * we killed it before it got its STEPD_INIT. */
    return left || (WIFSIGNALED (s->status) && s->state != STEPD_FAILED);
}

/* The node's STEP_COMPLETE code for a stepd that died: 128 + signal. */
static int stepd_died_rc (int status)
{
    if (WIFSIGNALED (status))
        return 128 + WTERMSIG (status);
    return WIFEXITED (status) && WEXITSTATUS (status) ? WEXITSTATUS (status)
                                                      : 1;
}

/* The stepd is gone and everything it wrote has been read. */
static void stepd_gone (struct stepd_rec *s)
{
    struct stepd_info si = { .job_id = s->job_id,
                             .step_id = s->step_id,
                             .pid = s->pid,
                             .uid = s->uid,
                             .gid = s->gid,
                             .expires = s->expires,
                             .restarts = s->restarts };
    struct noded *nd = s->nd;
    bool died = stepd_died (s);
    int rc = stepd_died_rc (s->status);
    char text[80];

    stepd_status_text (s->status, text, sizeof (text));
    if (s->state == STEPD_STARTING) {
        log_info ("stepd %u.%u (pid %d): %s before starting its tasks",
                  s->job_id, s->step_id, (int)s->pid, text);
        stepd_report (s, ECHILD, text);
    } else {
        log_verbose ("stepd %u.%u (pid %d): %s", s->job_id, s->step_id,
                     (int)s->pid, text);
    }
    stepd_term_gone (s);
    stepd_table_remove (nd->stepds, s);
    stepd_ended (nd, &si, died, rc, text); /* s is freed */
}

/* Reaped. A STEPD_LAUNCHED sent just before exiting may still sit unread
 * in the socketpair: while the conn is open, wait for its EOF, which
 * comes after every frame the stepd wrote. */
void stepd_reaped (struct stepd_rec *s, int status)
{
    ev_child_stop (s->nd->loop, &s->child_w);
    s->exited = true;
    s->status = status;
    if (!s->conn)
        stepd_gone (s);
}

static void stepd_child_cb (struct ev_loop *loop, ev_child *w, int revents)
{
    stepd_reaped (w->data, w->rstatus);
}

/* The pid is known: keep its record, watch it (a spawned stepd is not our
 * child while its spawner lives; the watcher fires if it becomes ours). */
void stepd_spawned (struct stepd_rec *s, pid_t pid)
{
    s->pid = pid;
    stepd_spawn_record (s);
    ev_child_init (&s->child_w, stepd_child_cb, s->pid, 0);
    s->child_w.data = s;
    ev_child_start (s->nd->loop, &s->child_w);
    log_debug ("stepd %u.%u started (pid %d%s)", s->job_id, s->step_id,
               (int)s->pid, s->spawned ? ", spawned" : "");
}

void stepd_spawn_failed (struct stepd_rec *s, int errnum, const char *text)
{
    char buf[160];

    snprintf (buf, sizeof (buf), "%s: %s", text, strerror (errnum));
    log_err ("stepd %u.%u: %s", s->job_id, s->step_id, buf);
    s->state = STEPD_FAILED;
    stepd_report (s, errnum, buf);
    stepd_term_gone (s);
    stepd_table_remove (s->nd->stepds, s);
}

static void stepd_launched (struct stepd_rec *s,
                            const struct msg_stepd_launched *m)
{
    if (m->errnum == 0) {
        s->state = STEPD_RUNNING;
        log_debug ("stepd %u.%u (pid %d) started its tasks", s->job_id,
                   s->step_id, (int)s->pid);
        stepd_report (s, 0, NULL);
        stepd_running (s);
    } else {
        s->state = STEPD_FAILED;
        log_info ("stepd %u.%u: %s", s->job_id, s->step_id,
                  m->text ? m->text : "launch failed");
        stepd_report (s, m->errnum, m->text ? m->text : "stepd launch failed");
    }
}

/* STEPD_INIT's answer, STEPD_LAUNCHED: its tasks run, or why not. A conn
 * that closed first tells nothing here: the exit status does
 * (stepd_closed_cb, stepd_reaped). */
static void stepd_init_answered_cb (const struct request_result *res, void *arg)
{
    struct stepd_rec *s = arg;

    s->init_req = NULL;
    if (s->state != STEPD_STARTING || res->outcome == REQUEST_CLOSED
        || res->outcome == REQUEST_UNREACHED)
        return;
    if (res->outcome == REQUEST_ANSWERED) {
        stepd_launched (s, res->msg);
        return;
    }
    log_err ("stepd %u.%u: %s", s->job_id, s->step_id, res->err.text);
    s->state = STEPD_FAILED;
    stepd_report (s, EPROTO, "stepd sent a malformed STEPD_LAUNCHED");
}

static void stepd_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct stepd_rec *s = arg;

    if (stepd_relay_frame (s->nd, c, f, s->job_id, s->step_id))
        return; /* its STEP_COMPLETE: ours to deliver now */
    else if (stepd_mesh_frame (s->nd, c, f, s->job_id, s->step_id))
        return; /* for a stepd of the step on another node */
    else
        log_debug ("stepd %u.%u: ignoring %s", s->job_id, s->step_id,
                   proto_msg_name (f->type) ? proto_msg_name (f->type)
                                            : "unknown frame");
}

/* The stepd closed fd 0. Before STEPD_LAUNCHED the exit status (ev_child)
 * will say why; afterwards it is no concern of ours. If it was already
 * reaped, this EOF is the last word from it. */
static void stepd_closed_cb (struct conn *c, const arbor_error_t *err,
                             void *arg)
{
    struct stepd_rec *s = arg;

    s->conn = NULL; /* the conn frees itself */
    if (s->exited)
        stepd_gone (s);
}

static const struct conn_ops stepd_conn_ops = {
    .frame = stepd_frame_cb,
    .closed = stepd_closed_cb,
};

int stepd_exec_argv (struct noded *nd, char *const argv[], char *const envp[],
                     int fd, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t mask, defaults;
    int rc;

    sigemptyset (&mask);
    sigemptyset (&defaults);
    for (int sig = 1; sig < 32; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaddset (&defaults, sig); /* undo SIG_IGN (SIGPIPE) */
    }
    posix_spawnattr_init (&attr);
    posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK
                                         | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setsigmask (&attr, &mask);
    posix_spawnattr_setsigdefault (&attr, &defaults);
    posix_spawn_file_actions_init (&fa);
    posix_spawn_file_actions_adddup2 (&fa, fd, 0);
    posix_spawn_file_actions_addopen (&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2 (&fa, 1, 2);
    posix_spawn_file_actions_addclosefrom_np (&fa, 3);
    rc = posix_spawn (pid, nd->stepd_path, &fa, &attr, argv,
                      envp ? envp : environ);
    posix_spawn_file_actions_destroy (&fa);
    posix_spawnattr_destroy (&attr);
    return rc;
}

/* posix_spawn the stepd with 'fd' as its fd 0. Returns 0 or an errno. */
static int stepd_exec (struct noded *nd, int fd, pid_t *pid)
{
    char *argv[] = { nd->stepd_path,   "-f", nd->conf->path, "-n",
                     (char *)nd->name, NULL };

    return stepd_exec_argv (nd, argv, NULL, fd, pid);
}

/* The node's device units as STEPD_INIT's lists (texts borrowed from
 * 'g'): one entry per unit with a file, units of a name in index order. */
struct stepd_devs {
    char **names, **files, **cores;
    uint32_t n;
};

static int stepd_devs_make (const struct gresnode *g, struct stepd_devs *d)
{
    size_t total = 0;

    memset (d, 0, sizeof (*d));
    for (size_t i = 0; i < g->n; i++)
        total += g->v[i].nfiles;
    d->names = calloc (total + 1, sizeof (char *));
    d->files = calloc (total + 1, sizeof (char *));
    d->cores = calloc (total + 1, sizeof (char *));
    if (!d->names || !d->files || !d->cores) {
        free (d->names);
        free (d->files);
        free (d->cores);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < g->n; i++)
        for (size_t k = 0; k < g->v[i].nfiles; k++, d->n++) {
            d->names[d->n] = g->v[i].name;
            d->files[d->n] = g->v[i].files[k];
            d->cores[d->n] = g->v[i].cores ? g->v[i].cores : "";
        }
    return 0;
}

/* STEPD_INIT: identity, limits and layout from the verified claims (uid,
 * gid, user, io_key, memory, this node's cores, the step's nodes and its
 * tasks and cpus per node: launch_check made sure the launch asked for
 * the same), the rest from the launch (what to run, where the I/O goes).
 * The launch carries no time limit, so time_limit (informational) stays
 * 0. */
static int stepd_send_init (struct stepd_rec *s, const struct msg_launch *req,
                            const struct msg_cred_claims *claims,
                            uint32_t node_id)
{
    const char *cores = node_id < claims->cores_count && claims->cores[node_id]
                            ? claims->cores[node_id]
                            : "";
    struct msg_stepd_init init = {
        .job_id = claims->job_id,
        .step_id = claims->step_id,
        .uid = claims->uid,
        .gid = claims->gid,
        .user = claims->user,
        .io_key = claims->io_key,
        .node_id = node_id,
        .argv = req->argv,
        .argv_count = req->argv_count,
        .env = req->env,
        .env_count = req->env_count,
        .cwd = req->cwd,
        .io_host = req->io_host,
        .io_port = req->io_port,
        .step_nodelist = claims->nodelist,
        .tasks = claims->tasks,
        .tasks_count = claims->tasks_count,
        .cpus = claims->cpus,
        .cpus_count = claims->cpus_count,
        .job_nodelist = req->job_nodelist,
        .cpus_per_task = req->cpus_per_task,
        .stdin_task = req->stdin_task,
        .job_name = req->job_name,
        .mem_mb = claims->mem_mb,
        .cores = (char *)cores,
        .time_limit = 0,
        .gids = claims->gids,
        .gids_count = claims->gids_count,
        .home = claims->home,
        .mpi = req->mpi,
        .script = req->script,
        .script_len = req->script_len,
        .std_out = req->std_out,
        .std_err = req->std_err,
        .std_in = req->std_in,
        .open_append = req->open_append,
        .distribution = req->distribution,
        .task_nodes = req->task_nodes,
        .task_nodes_count = req->task_nodes_count,
        .multi_prog = req->multi_prog,
        .multi_prog_len = req->multi_prog_len,
        .cpu_bind = req->cpu_bind,
        .pty = req->pty,
        .pty_rows = req->pty_rows,
        .pty_cols = req->pty_cols,
        .preserve_env = req->preserve_env,
        .task_prolog = req->task_prolog,
        .task_epilog = req->task_epilog,
        .slurm_names = req->slurm_names,
        .gres = (char *)PROTO_STR (claims, gres, node_id),
        .job_gres = (char *)PROTO_STR (claims, job_gres, node_id),
        .gpu_bind = claims->gpu_bind,
        .gpus_per_task = claims->gpus_per_task,
    };
    struct stepd_devs devs;

    if (stepd_devs_make (&s->nd->gres, &devs) < 0)
        return -1;
    init.dev_names = devs.names;
    init.dev_files = devs.files;
    init.dev_cores = devs.cores;
    init.dev_names_count = init.dev_files_count = init.dev_cores_count = devs.n;

    struct request_opts opts = { .resp_type = MSG_STEPD_LAUNCHED };

    /* No timeout: the stepd answers once its tasks started, or exits. */
    s->init_req = request_conn (s->conn, MSG_STEPD_INIT, &init, &opts,
                                stepd_init_answered_cb, s);
    free (devs.names); /* the texts are borrowed from the node's */
    free (devs.files);
    free (devs.cores);
    return s->init_req ? 0 : -1;
}

/* The record a later noded needs if this stepd dies (stepd_info.c). */
static void stepd_spawn_record (const struct stepd_rec *s)
{
    struct stepd_info si = { .job_id = s->job_id,
                             .step_id = s->step_id,
                             .pid = s->pid,
                             .uid = s->uid,
                             .gid = s->gid,
                             .expires = s->expires,
                             .restarts = s->restarts };

    if (stepd_info_write (s->nd, &si) < 0)
        log_warn ("stepd %u.%u: cannot write its record: %s (its death "
                  "would go unnoticed after a noded restart)",
                  s->job_id, s->step_id, strerror (errno));
}

/* Ask the spawner (telling it the step's MPI type), else exec. 0, or -1
 * with err. */
static int stepd_start (struct noded *nd, struct stepd_rec *s, int fd,
                        const char *mpi, arbor_error_t *err)
{
    int rc;

    s->nd = nd;
    if (spawner_spawn (nd, s, fd, mpi) == 0)
        return 0;
    if ((rc = stepd_exec (nd, fd, &s->pid)) != 0) {
        errno = rc;
        return errprintf (err, "cannot run %s: %s", nd->stepd_path,
                          strerror (rc));
    }
    return 0;
}

struct stepd_rec *stepd_spawn (struct noded *nd, const struct msg_launch *req,
                               const struct msg_cred_claims *claims,
                               uint32_t node_id, stepd_launched_f cb, void *arg,
                               arbor_error_t *err)
{
    struct stepd_rec *s;
    int sv[2];

    if (!(s = calloc (1, sizeof (*s)))) {
        errprintf (err, "out of memory");
        return NULL;
    }
    if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        errprintf (err, "socketpair: %s", strerror (errno));
        goto fail;
    }
    s->job_id = claims->job_id;
    s->step_id = claims->step_id;
    s->uid = claims->uid;
    s->gid = claims->gid;
    s->expires = claims->expires;
    s->restarts = claims->restarts;
    s->started_ms = (uint64_t)(ev_time () * 1000.0);
    if (stepd_start (nd, s, sv[1], req->mpi, err) < 0) {
        close (sv[0]);
        close (sv[1]);
        goto fail;
    }
    close (sv[1]);
    s->state = STEPD_STARTING;
    s->cb = cb;
    s->arg = arg;
    if (!s->spawned)
        stepd_spawned (s, s->pid);
    stepd_table_insert (nd->stepds, s);
    s->conn = conn_create_unix (nd->loop, sv[0], &stepd_conn_ops, s);
    if (!s->conn || stepd_send_init (s, req, claims, node_id) < 0) {
        int saved = errno;
        errprintf (err, "cannot talk to the stepd: %s", strerror (saved));
        if (!s->conn)
            close (sv[0]);
        /* It reads EOF on fd 0 and exits; it is reaped, no report. */
        s->cb = NULL;
        s->state = STEPD_FAILED;
        if (s->pid > 0)
            kill (s->pid, SIGKILL);
        errno = saved;
        return NULL;
    }
    return s;
fail:
    free (s);
    return NULL;
}
