/* tasks.c - start, feed and reap the tasks of this node's share of a step.
 *
 * Each task gets pipes for stdout and stderr, a pipe for stdin when it
 * takes stdin (else /dev/null), and its own process group. What a task
 * does between its birth and its exec is decided here, once per step or
 * per task, and written in a struct task_plan that task_child.c carries
 * out (usually in a child sharing the stepd's memory, see there):
 *   - its signals back to their default actions, none blocked;
 *   - into the step's container first, so nothing the task runs is ever
 *     outside it: the child puts itself there (contain_add_self, when the
 *     plugin can: on cgroup v1 that move skips the kernel's global
 *     threadgroup lock), or waits on a 'go' pipe while the stepd puts it
 *     there (contain_add); if that fails it exits without running
 *     anything;
 *   - bound to its cores (TaskPlugin=affinity, when the node's CPUs are
 *     this host's; --cpu-bind none/cores/map_cpu, bind.h), saying so on
 *     its stderr under --cpu-bind=verbose; every fd above 2 close-on-exec;
 *   - the job's identity when the stepd is root: the credential's groups
 *     (or the group database's, looked up here once per step), gid, uid;
 *     every step must succeed, a task never runs as root by accident;
 *   - SLURM_UMASK if the launcher sent one, the working directory, and
 *     exec of its argv (the step's, or under --multi-prog its own line of
 *     the configuration) with the task environment alone (built from
 * STEPD_INIT's env and the step's variables, never the stepd's own; PATH lookup
 * uses the task's PATH), SLURM_TASK_PID written in by the child.
 *
 * Failures before exec that mean the launch itself is wrong (privileges)
 * travel back on a close-on-exec pipe and fail STEPD_LAUNCHED. Failures that
 * srun reports as the task's own (chdir, command not found) are written to
 * the task's stderr and end the task with status 1 (chdir) or 2 (exec), as
 * Slurm does. Exits are reaped by reap.c (wait4, which also gives what
 * the task used) and reported here in one TASK_EXIT per loop iteration
 * (two when some were OOM kills: the flag is per message). A task killed
 * by SIGKILL while the container's OOM counter rose is reported with oom
 * set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "task_env.h"
#include "log.h"
#include "multiprog.h"
#include "net.h"
#include "bind.h"
#include "naming.h"
#include "fname.h"
#include "base.h"
#include "batch.h"
#include "contain.h"
#include "gpus.h"
#include "io.h"
#include "reap.h"
#include "step_mpi.h"
#include "stepd.h"
#include "task_epilog.h"
#include "task_limits.h"
#include "tasks.h"
#include "task_child.h"

/* The fds of one task being spawned: [0] read end, [1] write end. */
struct spawn {
    int in[2];
    int out[2];
    int err[2];
    int status[2]; /* close-on-exec: setup errors from the child */
    int go[2];     /* parent -> child: in the container, go on (unused
                    * when the child adds itself: contain_adds_self) */
    bool self;     /* the child puts itself in the container */
    bool tty;      /* --pty: in/out/err are a terminal's */
};

static void spawn_close (struct spawn *sp)
{
    int *fds[] = { sp->in, sp->out, sp->err, sp->status, sp->go };

    for (size_t i = 0; i < sizeof (fds) / sizeof (fds[0]); i++)
        for (int j = 0; j < 2; j++)
            if (fds[i][j] >= 0) {
                close (fds[i][j]);
                fds[i][j] = -1;
            }
}

static bool task_takes_stdin (const struct stepd *sd, const struct task *t)
{
    int32_t s = sd->init.stdin_task;

    return s == STDIN_ALL || (s >= 0 && (uint32_t)s == t->rank);
}

/* The pipes of a task; the batch script has none for its output (it
 * writes to its files). */
/* srun --pty: task 0 on a pseudo-terminal of the launcher's size; its
 * stdin, stdout and stderr are the terminal, whose master side is the
 * task's output (stream 1) and where its stdin is written. */
static int spawn_open_pty (struct stepd *sd, struct spawn *sp)
{
    struct winsize ws = { .ws_row = (unsigned short)sd->init.pty_rows,
                          .ws_col = (unsigned short)sd->init.pty_cols };
    int master, slave;

    memset (sp, -1, sizeof (*sp));
    sp->self = contain_adds_self (sd);
    sp->tty = true;
    if (openpty (&master, &slave, NULL, NULL, ws.ws_row ? &ws : NULL) < 0)
        return -1;
    sp->out[0] = master;
    sp->out[1] = slave;
    (void)fcntl (master, F_SETFD, FD_CLOEXEC);
    (void)fcntl (slave, F_SETFD, FD_CLOEXEC);
    if ((sp->in[1] = fcntl (master, F_DUPFD_CLOEXEC, 3)) < 0
        || (sp->in[0] = fcntl (slave, F_DUPFD_CLOEXEC, 3)) < 0
        || (sp->err[1] = fcntl (slave, F_DUPFD_CLOEXEC, 3)) < 0
        || pipe2 (sp->status, O_CLOEXEC) < 0
        || (!sp->self && pipe2 (sp->go, O_CLOEXEC) < 0)) {
        int e = errno;
        spawn_close (sp);
        errno = e;
        return -1;
    }
    return 0;
}

static int spawn_open (struct stepd *sd, struct task *t, struct spawn *sp)
{
    bool pipes = !batch_step (sd);

    if (sd->init.pty && t->rank == 0)
        return spawn_open_pty (sd, sp);

    memset (sp, -1, sizeof (*sp));
    sp->self = contain_adds_self (sd);
    sp->tty = false;
    if ((pipes
         && (pipe2 (sp->out, O_CLOEXEC) < 0 || pipe2 (sp->err, O_CLOEXEC) < 0))
        || pipe2 (sp->status, O_CLOEXEC) < 0
        || (!sp->self && pipe2 (sp->go, O_CLOEXEC) < 0))
        goto fail;
    if (task_takes_stdin (sd, t)) {
        if (pipe2 (sp->in, O_CLOEXEC) < 0)
            goto fail;
    } else if ((sp->in[0] = open ("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
        goto fail;
    return 0;
fail : {
    int e = errno;
    spawn_close (sp);
    errno = e;
}
    return -1;
}

/* SLURM_UMASK (octal, as srun exports it) if the launcher sent one, else
 * -1: the stepd's umask stays. */
static int task_umask (const struct env *env)
{
    const char *u = env_get (env, "SLURM_UMASK");
    char *end;
    unsigned long v;

    if (!u || !*u)
        return -1;
    v = strtoul (u, &end, 8);
    return *end == '\0' && v <= 0777 ? (int)v : -1;
}

ssize_t tasks_release (struct stepd *sd, pid_t pid, int go_w, int status_r,
                       char *buf, size_t len, int *add_errno)
{
    ssize_t n;

    *add_errno = 0;
    if (go_w >= 0) {
        if (contain_add (sd, pid) < 0)
            *add_errno = errno; /* closing 'go' unwritten ends the child */
        else if (write (go_w, "g", 1) != 1)
            *add_errno = errno ? errno : EIO;
    }
    do
        n = read (status_r, buf, len - 1);
    while (n < 0 && errno == EINTR);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

/* Parent side after fork: keep our ends, hear the child's setup result. */
static int task_parent (struct stepd *sd, struct task *t, struct spawn *sp,
                        arbor_error_t *err)
{
    char buf[160];
    ssize_t n;
    int added = 0, add_errno = 0;

    setpgid (t->pid, t->pid); /* also here: no race with kill(-pgid) */
    close (sp->status[1]);
    sp->status[1] = -1;
    if (!sp->self) {
        close (sp->go[0]);
        sp->go[0] = -1;
    }
    n = tasks_release (sd, t->pid, sp->self ? -1 : sp->go[1], sp->status[0],
                       buf, sizeof (buf), &add_errno);
    if (add_errno)
        added = -1;
    if (!sp->self) {
        close (sp->go[1]);
        sp->go[1] = -1;
    }
    t->out[0].fd = sp->out[0];
    t->out[1].fd = sp->err[0];
    t->in_fd = sp->in[1];
    sp->out[0] = sp->err[0] = sp->in[1] = -1;
    spawn_close (sp);
    for (int i = 0; i < 2; i++)
        fd_set_nonblock (t->out[i].fd, 1);
    if (t->in_fd >= 0)
        fd_set_nonblock (t->in_fd, 1);
    io_task_start (sd, t);
    if (added < 0) {
        errno = add_errno;
        return errprintf (err,
                          "task %u: cannot put pid %ld in the step's "
                          "container: %s",
                          t->rank, (long)t->pid, strerror (add_errno));
    }
    if (n > 0) {
        errno = EPERM;
        return errprintf (err, "task %u: %s", t->rank, buf);
    }
    return 0;
}

/* --cpu-bind=verbose: the line the task prints on its stderr before it
 * execs, as Slurm's task/affinity words it ("cpu-bind=MASK - node1, task
 *  2  0 [PID]: mask 0x4 set"); the child puts its pid in. */
static void plan_bind_note (struct stepd *sd, struct task *t,
                            struct task_plan *plan)
{
    const char *kind = sd->cpubind.type == CPUBIND_MAP ? "MAP" : "MASK";
    char mask[CPU_SETSIZE / 4 + 3];
    cpu_set_t now;

    plan->bind_say = sd->cpubind.verbose;
    if (!plan->bind_say)
        return;
    if (!plan->bind) {
        kind = "NONE";
        if (sched_getaffinity (0, sizeof (now), &now) < 0)
            CPU_ZERO (&now);
    }
    bind_mask_hex (plan->bind ? &plan->cpus : &now, mask, sizeof (mask));
    snprintf (plan->bind_head, sizeof (plan->bind_head),
              "cpu-bind=%s - %s, task %2u %2u", kind, sd->node, t->rank,
              t->local);
    snprintf (plan->bind_tail, sizeof (plan->bind_tail), ": mask %s%s\n", mask,
              plan->bind ? " set" : "");
}

/* This task's part of the plan: its fds, cores, umask and environment
 * (with room for its pid, which only the child knows). */
static int plan_task (struct stepd *sd, struct task *t, struct spawn *sp,
                      struct env *env, struct task_plan *plan)
{
    char room[TASK_PID_ROOM];

    memset (room, ' ', sizeof (room) - 1);
    room[sizeof (room) - 1] = '\0';
    if (env_set (env, "SLURM_TASK_PID", room) < 0)
        return -1;
    plan->pid_slot = (char *)env_get (env, "SLURM_TASK_PID");
    plan->envp = env_vars (env);
    plan->env = env; /* the prologs change it (task_prolog.c) */
    plan->umask = task_umask (env);
    plan->in = sp->in[0];
    plan->out = sp->out[1];
    plan->err = sp->err[1];
    plan->status = sp->status[1];
    plan->go = sp->self ? -1 : sp->go[0];
    plan->tty = sp->tty;
    plan->go_peer = sp->self ? -1 : sp->go[1];
    if (plan->bind)
        bind_task_cpus (&sd->cpubind, &sd->bind_set, t->local, sd->ntasks,
                        &plan->cpus);
    plan_bind_note (sd, t, plan);
    gpus_note (sd, t->local, t->rank, plan->gpu_note, sizeof (plan->gpu_note));
    return bind_env_set (env, &sd->cpubind, sd->bind, sd->bind_masks);
}

/* A non-empty path, or NULL. */
static const char *path_or_null (const char *p)
{
    return p && *p ? p : NULL;
}

/* The batch script's files, opened by the task as the job's user. */
static void plan_batch_files (struct stepd *sd, struct task_plan *plan)
{
    const struct msg_stepd_init *in = &sd->init;

    if (!batch_step (sd))
        return;
    plan->out_path = path_or_null (in->std_out);
    plan->err_path = path_or_null (in->std_err);
    plan->in_path = path_or_null (in->std_in);
    plan->append = in->open_append;
    plan->cwd_fallback = true;
}

/* srun --input=PATTERN: task 'rank' reads its own file, the pattern
 * expanded for it (%t, %n, %N, %j, %s...), which the child opens as the
 * job's user in its directory. *path (caller frees) is NULL when the
 * step has no input file. 0, or -1 with errno ENOMEM. */
static int plan_input_file (struct stepd *sd, uint32_t rank,
                            struct task_plan *plan, char **path)
{
    const struct msg_stepd_init *in = &sd->init;
    struct fname_vars v = {
        .job_id = in->job_id,
        .step_id = in->step_id,
        .task = rank,
        .node_id = in->node_id,
        .node = sd->node,
        .user = in->user,
        .job_name = in->job_name,
        .array_task_id = FNAME_NO_ARRAY,
    };

    *path = NULL;
    if (batch_step (sd) || !path_or_null (in->std_in))
        return 0;
    if (!(*path = fname_expand (in->std_in, &v)))
        return -1;
    plan->in_path = *path;
    return 0;
}

static int task_spawn (struct stepd *sd, struct task *t, struct env *env,
                       struct task_plan *plan, arbor_error_t *err)
{
    struct spawn sp;

    if (mpi_task_env (sd, t->rank, env, &plan->keep_fd, err) < 0)
        return -1;
    if (spawn_open (sd, t, &sp) < 0)
        return errprintf (err, "task %u: pipe: %s", t->rank, strerror (errno));
    if (plan_task (sd, t, &sp, env, plan) < 0) {
        spawn_close (&sp);
        return errprintf (err, "task %u: environment: out of memory", t->rank);
    }
    if ((t->pid = task_child_start (plan)) < 0) {
        int e = errno;
        spawn_close (&sp);
        t->pid = 0;
        mpi_task_started (sd, t->rank, 0);
        errno = e;
        return errprintf (err, "task %u: fork: %s", t->rank, strerror (e));
    }
    mpi_task_started (sd, t->rank, t->pid);
    return task_parent (sd, t, &sp, err);
}

/* The job's home directory (for HOME), malloc'd; NULL if unknown. */
static char *user_home (const char *user)
{
    struct passwd pw, *res = NULL;
    char buf[4096];

    if (!user || getpwnam_r (user, &pw, buf, sizeof (buf), &res) != 0 || !res)
        return NULL;
    return strdup (res->pw_dir);
}

static int tasks_alloc (struct stepd *sd)
{
    sd->tasks = calloc (sd->nlocal ? sd->nlocal : 1, sizeof (*sd->tasks));
    if (!sd->tasks)
        return -1;
    sd->ntasks = sd->nlocal;
    for (uint32_t i = 0; i < sd->ntasks; i++) {
        struct task *t = &sd->tasks[i];
        t->sd = sd;
        t->local = i;
        t->rank = sd->local_ranks[i]; /* srun -m: place.h */
        t->in_fd = -1;
        for (int s = 0; s < 2; s++) {
            t->out[s].fd = -1;
            t->out[s].stream = (uint32_t)s + 1;
            t->out[s].task = t;
        }
    }
    return 0;
}

int tasks_check (struct stepd *sd, arbor_error_t *err)
{
    const struct conf_node *n = conf_node_find (sd->conf, sd->node);
    arbor_error_t why = { "" };

    if (cpubind_parse (sd->init.cpu_bind, &sd->cpubind, &why) < 0
        || bind_map_check (&sd->cpubind, sd->init.cores, n ? n->cpus : 0,
                           sd->node, &why)
               < 0)
        return errprintf (err, "%s", why.text);
    return 0;
}

/* --cpu-bind (checked by tasks_check) and TaskPlugin=affinity: decide
 * once whether (and where) tasks are bound; a skip is logged once, at
 * info. A malformed core list fails the launch. none binds nothing; cores
 * (the default) and map_cpu only bind under TaskPlugin=affinity, as in
 * Slurm. */
static int tasks_bind_plan (struct stepd *sd, arbor_error_t *err)
{
    const struct conf_node *n = conf_node_find (sd->conf, sd->node);
    cpu_set_t allowed;
    struct bind_host host = { sysconf (_SC_NPROCESSORS_ONLN), NULL };
    arbor_error_t why = { "" };
    int rc;

    sd->bind = false;
    if (sd->cpubind.type == CPUBIND_NONE
        || !task_plugin_binds (sd->conf->task_plugin))
        return 0;
    if (sched_getaffinity (0, sizeof (allowed), &allowed) == 0)
        host.allowed = &allowed;
    rc = bind_plan (sd->node, sd->init.cores, n ? n->cpus : 0, &host,
                    &sd->bind_set, &why);
    if (rc < 0)
        return errprintf (err, "TaskPlugin=affinity: %s", why.text);
    if (rc == 0)
        log_info ("%s", why.text);
    else
        log_debug ("binding tasks to cores %s", sd->init.cores);
    sd->bind = rc == 1;
    if (sd->bind
        && !(sd->bind_masks =
                 bind_masks_text (&sd->cpubind, &sd->bind_set, sd->nlocal)))
        return errprintf (err, "out of memory");
    return 0;
}

_Static_assert(sizeof (gid_t) == sizeof (uint32_t), "gids are u32 on the wire");

/* The part of the plan all tasks share: identity, directory, command,
 * binding and the signals to reset. Fills *gids (caller frees). */
static int plan_step (struct stepd *sd, struct task_plan *plan, char **argv,
                      int *sigs, gid_t **gids, arbor_error_t *err)
{
    const struct msg_stepd_init *in = &sd->init;
    int n;

    memset (plan, 0, sizeof (*plan));
    plan->sd = sd;
    plan->who = stepd_who (sd->init.slurm_names);
    plan->bind = sd->bind;
    plan->cores = in->cores;
    plan->cwd = in->cwd;
    plan->argv = argv;
    plan->sigs = sigs;
    plan->nsigs = task_plan_signals (sigs);
    plan->prologs[0] = path_or_null (sd->conf->task_prolog);
    plan->prologs[1] = path_or_null (in->task_prolog);
    plan->prolog_secs = sd->conf->prolog_epilog_timeout;
    /* Not root: stepd_validate checked uid == getuid(). uid 0: the
     * credential names root as the job's user. */
    plan->drop = getuid () == 0 && in->uid != 0;
    plan->uid = in->uid;
    plan->gid = in->gid;
    if (!plan->drop)
        return 0;
    n = task_plan_groups (in->user, in->gid, (const gid_t *)in->gids,
                          in->gids_count, gids);
    if (n < 0)
        return errprintf (err, "groups of %s: %s", in->user, strerror (errno));
    plan->gids = *gids;
    plan->ngids = (size_t)n;
    return 0;
}

/* Local task i: its environment and, under --multi-prog, its own argv
 * (%t and %o expanded) in place of the step's for this one spawn. */
static int task_start_one (struct stepd *sd, const struct env_step *es,
                           uint32_t i, struct task_plan *plan,
                           arbor_error_t *err)
{
    struct task *t = &sd->tasks[i];
    char **step_argv = plan->argv, **mp = NULL;
    struct env *env;
    int rc;

    if (sd->multi_prog && !(mp = multiprog_argv (sd->multi_prog, t->rank)))
        return errprintf (err, "task %u: --multi-prog: %s", t->rank,
                          strerror (errno));
    if (mp)
        plan->argv = mp;
    env = env_task_create (es, i, err);
    rc = env ? task_spawn (sd, t, env, plan, err) : -1;
    env_destroy (env);
    plan->argv = step_argv; /* the child has exec'd or exited by now */
    multiprog_argv_free (mp);
    return rc;
}

int tasks_start (struct stepd *sd, arbor_error_t *err)
{
    const struct msg_stepd_init *in = &sd->init;
    struct env_step es = { in,   sd->node, sd->conf->cluster_name,
                           NULL, NULL,     NULL };
    struct task_plan plan;
    int sigs[NSIG];
    gid_t *gids = NULL;
    char **argv, note[512];
    int rc = 0;

    if (tasks_bind_plan (sd, err) < 0 || gpus_prepare (sd, err) < 0)
        return -1;
    if (tasks_alloc (sd) < 0
        || !(argv = calloc (in->argv_count + 1, sizeof (char *))))
        return errprintf (err, "out of memory");
    memcpy (argv, in->argv, in->argv_count * sizeof (char *));
    if (batch_script_path (sd))
        argv[0] = (char *)batch_script_path (sd);
    if (plan_step (sd, &plan, argv, sigs, &gids, err) < 0) {
        free (argv);
        return -1;
    }
    plan_batch_files (sd, &plan);
    task_limits_plan (sd, &plan, note, sizeof (note));
    es.user_home =
        in->home && *in->home ? strdup (in->home) : user_home (in->user);
    es.ranks = sd->local_ranks;
    es.gpus = gpus_env (sd);
    for (uint32_t i = 0; i < sd->ntasks && rc == 0; i++) {
        char *input;
        plan.rlim_note = i == 0 && note[0] ? note : NULL; /* once a node */
        if (plan_input_file (sd, sd->local_ranks[i], &plan, &input) < 0)
            rc = errprintf (err, "out of memory");
        else
            rc = task_start_one (sd, &es, i, &plan, err);
        free (input);
    }
    free ((char *)es.user_home);
    free (gids);
    free (argv);
    if (rc < 0)
        stepd_signal_tasks (sd, SIGKILL);
    return rc;
}

void tasks_exited (struct task *t, int status)
{
    struct stepd *sd = t->sd;
    int code = reap_rc (status);

    t->exited = true;
    t->exit_pending = true;
    t->status = status;
    sd->nexited++;
    if (code > sd->rc)
        sd->rc = code;
    if (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL
        && contain_claim_oom (sd)) {
        t->oom = true;
        sd->oom = true;
        log_err ("task %u (pid %ld) killed by the OOM killer (memory limit "
                 "%llu MB)",
                 t->rank, (long)t->pid, (unsigned long long)sd->init.mem_mb);
    } else if (WIFSIGNALED (status))
        log_verbose ("task %u (pid %ld) killed by signal %d", t->rank,
                     (long)t->pid, WTERMSIG (status));
    else
        log_debug ("task %u (pid %ld) exited with status %d", t->rank,
                   (long)t->pid, code);
    ev_prepare_start (sd->loop, &sd->exit_w);
    mpi_task_exited (sd, t);
    epilog_task_ended (sd, t);
}

/* One TASK_EXIT for the pending exits whose oom flag is 'oom'. */
static void tasks_send_exits (struct stepd *sd, bool oom)
{
    struct msg_task_exit m = { .oom = oom };
    uint32_t n = 0;

    m.tasks = calloc (sd->ntasks + 1, sizeof (uint32_t));
    m.exit_codes = calloc (sd->ntasks + 1, sizeof (int32_t));
    m.signals = calloc (sd->ntasks + 1, sizeof (int32_t));
    if (!m.tasks || !m.exit_codes || !m.signals)
        goto out;
    for (uint32_t i = 0; i < sd->ntasks; i++) {
        struct task *t = &sd->tasks[i];
        if (!t->exit_pending || t->oom != oom)
            continue;
        t->exit_pending = false;
        m.tasks[n] = t->rank;
        m.exit_codes[n] = WIFEXITED (t->status) ? WEXITSTATUS (t->status) : 0;
        m.signals[n] = WIFSIGNALED (t->status) ? WTERMSIG (t->status) : 0;
        n++;
    }
    m.tasks_count = m.exit_codes_count = m.signals_count = n;
    if (n > 0 && sd->io && conn_send (sd->io, MSG_TASK_EXIT, 0, 0, &m) < 0)
        log_err ("send TASK_EXIT: %s", strerror (errno));
out:
    free (m.tasks);
    free (m.exit_codes);
    free (m.signals);
}

void tasks_flush_exits (struct stepd *sd)
{
    ev_prepare_stop (sd->loop, &sd->exit_w);
    tasks_send_exits (sd, true);
    tasks_send_exits (sd, false);
}

void tasks_destroy (struct stepd *sd)
{
    if (!sd->tasks)
        return;
    for (uint32_t i = 0; i < sd->ntasks; i++) {
        struct task *t = &sd->tasks[i];
        for (int s = 0; s < 2; s++)
            if (t->out[s].fd >= 0) {
                ev_io_stop (sd->loop, &t->out[s].w);
                close (t->out[s].fd);
            }
        io_close_stdin (t);
        free (t->in_buf);
    }
    free (sd->tasks);
    sd->tasks = NULL;
}
