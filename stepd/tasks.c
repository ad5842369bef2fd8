/* tasks.c - fork, exec and reap the tasks of this node's share of a step.
 *
 * Each task gets pipes for stdout and stderr, a pipe for stdin when it
 * takes stdin (else /dev/null), and its own process group. Right after
 * fork the child puts itself in the step's container (contain_add_self,
 * when the plugin can: on cgroup v1 that move skips the kernel's global
 * threadgroup lock), or waits on a 'go' pipe while the parent puts it
 * there (contain_add), so nothing the task runs is ever outside it; if
 * that fails the child exits without running anything.
 * The child then resets its signal mask and dispositions, binds itself to
 * the step's cores (TaskPlugin=affinity, when the node's CPUs are this
 * host's), marks every fd above 2 close-on-exec, drops to the job's
 * identity (setgid, setgroups with the credential's groups or initgroups,
 * setuid when the stepd is root; every step
 * must succeed, a task never runs as root by accident), applies
 * SLURM_UMASK if the launcher sent one, changes to the working directory
 * and execs with the task environment alone (built from STEPD_INIT's env
 * and the step's variables, never the stepd's own; PATH lookup uses the
 * task's PATH).
 *
 * Failures before exec that mean the launch itself is wrong (privileges)
 * travel back on a close-on-exec pipe and fail STEPD_LAUNCHED. Failures that
 * srun reports as the task's own (chdir, command not found) are written to
 * the task's stderr and end the task with status 1 (chdir) or 2 (exec), as
 * Slurm does. Exits are reaped with ev_child and reported in one TASK_EXIT
 * per loop iteration (two when some were OOM kills: the flag is per
 * message). A task killed by SIGKILL while the container's OOM counter
 * rose is reported with oom set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "task_env.h"
#include "log.h"
#include "net.h"
#include "bind.h"
#include "stepd.h"

extern char **environ;

/* The fds of one task being spawned: [0] read end, [1] write end. */
struct spawn {
    int in[2];
    int out[2];
    int err[2];
    int status[2]; /* close-on-exec: setup errors from the child */
    int go[2];     /* parent -> child: in the container, go on (unused
                    * when the child adds itself: contain_adds_self) */
    bool self;     /* the child puts itself in the container */
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

static int spawn_open (struct stepd *sd, struct task *t, struct spawn *sp)
{
    memset (sp, -1, sizeof (*sp));
    sp->self = contain_adds_self (sd);
    if (pipe2 (sp->out, O_CLOEXEC) < 0 || pipe2 (sp->err, O_CLOEXEC) < 0
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

/* Child: report a setup failure to the stepd and die. */
static void __attribute__ ((noreturn)) child_fail (int fd, const char *fmt, ...)
{
    char buf[160];
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    if (n > 0) {
        ssize_t w = write (
            fd, buf, (size_t)n < sizeof (buf) ? (size_t)n : sizeof (buf) - 1);
        (void)w; /* nothing more a dying child can do */
    }
    _exit (1);
}

_Static_assert(sizeof (gid_t) == sizeof (uint32_t), "gids are u32 on the wire");

/* Child: become the job's user, or fail; never stay root by accident. */
static void child_drop_privs (const struct msg_stepd_init *in, int fd)
{
    uid_t uid = in->uid;
    gid_t gid = in->gid;

    if (getuid () != 0 || uid == 0)
        return; /* not root: stepd_validate checked uid == getuid();
                 * uid 0: the credential names root as the job's user */
    if (setgid (gid) < 0)
        child_fail (fd, "setgid %lu: %s", (unsigned long)gid, strerror (errno));
    if (in->gids_count > 0) { /* the credential's: no name service here */
        if (setgroups (in->gids_count, (const gid_t *)in->gids) < 0)
            child_fail (fd, "setgroups: %s", strerror (errno));
    } else if (in->user && *in->user) {
        if (initgroups (in->user, gid) < 0)
            child_fail (fd, "initgroups %s: %s", in->user, strerror (errno));
    } else if (setgroups (1, &gid) < 0) /* no name: no root's groups */
        child_fail (fd, "setgroups: %s", strerror (errno));
    if (setuid (uid) < 0)
        child_fail (fd, "setuid %lu: %s", (unsigned long)uid, strerror (errno));
    if (getuid () != uid || geteuid () != uid || getgid () != gid
        || getegid () != gid || setuid (0) == 0)
        child_fail (fd, "could not drop privileges to uid %lu",
                    (unsigned long)uid);
}

/* Child: SLURM_UMASK (octal, as srun exports it), if the launcher sent
 * one; otherwise the stepd's umask stays. */
static void child_umask (const struct env *env)
{
    const char *u = env_get (env, "SLURM_UMASK");
    char *end;
    unsigned long v;

    if (!u || !*u)
        return;
    v = strtoul (u, &end, 8);
    if (*end == '\0' && v <= 0777)
        umask ((mode_t)v);
}

/* Child: every signal back to its default action. glibc refuses to
 * touch its internal signals (32 and 33: EINVAL), yet an ignored one
 * would survive exec (the stepd has them ignored), so those go through
 * the raw system call. With SIG_DFL, no flags and an empty mask, the
 * kernel's struct layout past the handler does not matter. */
static void child_reset_signals (void)
{
    struct {
        void (*handler) (int);
        unsigned long flags;
        void (*restorer) (void);
        uint64_t mask;
    } ksa = { SIG_DFL, 0, NULL, 0 };
    sigset_t none;

    for (int sig = 1; sig < NSIG; sig++)
        if (signal (sig, SIG_DFL) == SIG_ERR && errno == EINVAL
            && sig != SIGKILL && sig != SIGSTOP)
            (void)syscall (SYS_rt_sigaction, sig, &ksa, NULL,
                           sizeof (ksa.mask));
    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
}

static void __attribute__ ((noreturn))
task_child (struct stepd *sd, struct spawn *sp, struct env *env, char **argv,
            uint32_t local)
{
    const struct msg_stepd_init *in = &sd->init;
    int fd = sp->status[1];
    char go;

    /* Defaults first: the stepd's handlers must not run in a task. */
    child_reset_signals ();
    setpgid (0, 0);
    if (sp->self) {
        if (contain_add_self (sd) < 0)
            child_fail (fd, "cannot put itself in the step's container: %s",
                        strerror (errno));
    } else {
        close (sp->go[1]);
        if (read (sp->go[0], &go, 1) != 1)
            _exit (1); /* not contained: the parent reports why */
    }
    if (sd->bind) {
        cpu_set_t mine;
        bind_task_set (&sd->bind_set, local, sd->ntasks, &mine);
        if (sched_setaffinity (0, sizeof (mine), &mine) < 0)
            child_fail (fd, "sched_setaffinity (cores %s): %s", in->cores,
                        strerror (errno));
    }
    if (dup2 (sp->in[0], 0) < 0 || dup2 (sp->out[1], 1) < 0
        || dup2 (sp->err[1], 2) < 0)
        child_fail (fd, "dup2: %s", strerror (errno));
    close_range (3, ~0U, CLOSE_RANGE_CLOEXEC); /* no stepd fd leaks in */
    child_drop_privs (in, fd);
    child_umask (env);
    if (in->cwd && *in->cwd && chdir (in->cwd) < 0) {
        dprintf (2, "arbor-stepd: chdir %s: %s\n", in->cwd, strerror (errno));
        _exit (1);
    }
    if (env_setf (env, "SLURM_TASK_PID", "%ld", (long)getpid ()) < 0)
        child_fail (fd, "task environment: %s", strerror (errno));
    environ = env_vars (env); /* execvp searches the task's PATH */
    execvp (argv[0], argv);
    dprintf (2, "arbor-stepd: execve %s: %s\n", argv[0], strerror (errno));
    _exit (2);
}

static void task_exit_cb (struct ev_loop *loop, ev_child *w, int revents);

/* Parent side after fork: keep our ends, hear the child's setup result. */
static int task_parent (struct stepd *sd, struct task *t, struct spawn *sp,
                        arbor_error_t *err)
{
    char buf[160];
    ssize_t n;
    int added = 0, add_errno = 0;

    setpgid (t->pid, t->pid); /* also here: no race with kill(-pgid) */
    ev_child_init (&t->child, task_exit_cb, t->pid, 0);
    t->child.data = t;
    ev_child_start (sd->loop, &t->child);
    close (sp->status[1]);
    sp->status[1] = -1;
    if (!sp->self) {
        close (sp->go[0]);
        sp->go[0] = -1;
        if ((added = contain_add (sd, t->pid)) < 0)
            add_errno = errno; /* closing 'go' unwritten ends the child */
        else if (write (sp->go[1], "g", 1) != 1)
            added = -1, add_errno = errno;
        close (sp->go[1]);
        sp->go[1] = -1;
    }
    do
        n = read (sp->status[0], buf, sizeof (buf) - 1);
    while (n < 0 && errno == EINTR);
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
        buf[n] = '\0';
        errno = EPERM;
        return errprintf (err, "task %u: %s", t->rank, buf);
    }
    return 0;
}

static int task_spawn (struct stepd *sd, struct task *t, struct env *env,
                       char **argv, arbor_error_t *err)
{
    struct spawn sp;

    if (spawn_open (sd, t, &sp) < 0)
        return errprintf (err, "task %u: pipe: %s", t->rank, strerror (errno));
    if ((t->pid = fork ()) < 0) {
        int e = errno;
        spawn_close (&sp);
        t->pid = 0;
        errno = e;
        return errprintf (err, "task %u: fork: %s", t->rank, strerror (e));
    }
    if (t->pid == 0)
        task_child (sd, &sp, env, argv, t->local);
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
        t->rank = sd->first_rank + i;
        t->in_fd = -1;
        for (int s = 0; s < 2; s++) {
            t->out[s].fd = -1;
            t->out[s].stream = (uint32_t)s + 1;
            t->out[s].task = t;
        }
    }
    return 0;
}

/* TaskPlugin=affinity: decide once whether (and where) tasks are bound;
 * a skip is logged once, at info. A malformed core list fails the
 * launch. */
static int tasks_bind_plan (struct stepd *sd, arbor_error_t *err)
{
    const struct conf_node *n = conf_node_find (sd->conf, sd->node);
    cpu_set_t allowed;
    struct bind_host host = { sysconf (_SC_NPROCESSORS_ONLN), NULL };
    arbor_error_t why = { "" };
    int rc;

    sd->bind = false;
    if (!task_plugin_binds (sd->conf->task_plugin))
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
    return 0;
}

int tasks_start (struct stepd *sd, arbor_error_t *err)
{
    const struct msg_stepd_init *in = &sd->init;
    struct env_step es = { in, sd->node, sd->conf->cluster_name, NULL };
    char **argv;
    int rc = 0;

    if (tasks_bind_plan (sd, err) < 0)
        return -1;
    if (tasks_alloc (sd) < 0
        || !(argv = calloc (in->argv_count + 1, sizeof (char *))))
        return errprintf (err, "out of memory");
    memcpy (argv, in->argv, in->argv_count * sizeof (char *));
    es.user_home =
        in->home && *in->home ? strdup (in->home) : user_home (in->user);
    for (uint32_t i = 0; i < sd->ntasks && rc == 0; i++) {
        struct env *env = env_task_create (&es, i, err);
        rc = env ? task_spawn (sd, &sd->tasks[i], env, argv, err) : -1;
        env_destroy (env);
    }
    free ((char *)es.user_home);
    free (argv);
    if (rc < 0)
        stepd_signal_tasks (sd, SIGKILL);
    return rc;
}

/* Exit code srun reports: 128+signal, else the exit status. */
static int status_code (int status)
{
    if (WIFSIGNALED (status))
        return 128 + WTERMSIG (status);
    return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}

static void task_exit_cb (struct ev_loop *loop, ev_child *w, int revents)
{
    struct task *t = w->data;
    struct stepd *sd = t->sd;
    int code = status_code (w->rstatus);

    ev_child_stop (loop, w);
    t->exited = true;
    t->exit_pending = true;
    t->status = w->rstatus;
    sd->nexited++;
    if (code > sd->rc)
        sd->rc = code;
    if (WIFSIGNALED (w->rstatus) && WTERMSIG (w->rstatus) == SIGKILL
        && contain_claim_oom (sd)) {
        t->oom = true;
        sd->oom = true;
        log_err ("task %u (pid %ld) killed by the OOM killer (memory limit "
                 "%llu MB)",
                 t->rank, (long)t->pid, (unsigned long long)sd->init.mem_mb);
    } else if (WIFSIGNALED (w->rstatus))
        log_verbose ("task %u (pid %ld) killed by signal %d", t->rank,
                     (long)t->pid, WTERMSIG (w->rstatus));
    else
        log_debug ("task %u (pid %ld) exited with status %d", t->rank,
                   (long)t->pid, code);
    ev_prepare_start (loop, &sd->exit_w);
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
        if (t->pid > 0 && !t->exited)
            ev_child_stop (sd->loop, &t->child);
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
