/* task_child.c - start a task from its plan; see task_child.h.
 *
 * Everything after the child's birth is a system call on the plan or on
 * the child's own stack: no malloc, no lock, no write to the stepd's
 * memory except the plan's pid slot and errno, and raw set*id calls
 * (glibc's wrappers would ask every thread of the stepd to follow suit).
 * The order is the one tasks.c describes: default signal actions, own
 * process group, into the container, cores, fds, identity, umask,
 * directory, exec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "contain.h"
#include "task_child.h"
#include "task_prolog.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
/* The child's frames, never returned from, leave their poison in the
 * shadow of the stack it shared: clear it before the stack is reused. */
#define STACK_DONE(stack, size) ASAN_UNPOISON_MEMORY_REGION (stack, size)
#else
#define STACK_DONE(stack, size) ((void)(stack), (void)(size))
#endif

/* The child's stack when it shares the stepd's memory: the exec path
 * search keeps a path and, for a script, a copy of argv on it. */
#define CHILD_STACK_BASE (128 * 1024)

/* execvp's PATH when the task's environment has none (glibc's). */
#define CHILD_DEFAULT_PATH "/bin:/usr/bin"

/* The kernel's struct sigaction for SIG_DFL: with no handler, flags or
 * mask, its layout past the handler does not matter. */
struct ksigaction {
    void (*handler) (int);
    unsigned long flags;
    void (*restorer) (void);
    uint64_t mask;
};

int task_plan_signals (int *sigs)
{
    struct ksigaction cur;
    int n = 0;

    for (int sig = 1; sig < NSIG; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP)
            continue;
        if (syscall (SYS_rt_sigaction, sig, NULL, &cur, sizeof (cur.mask)) == 0
            && cur.handler != SIG_DFL)
            sigs[n++] = sig;
    }
    return n;
}

int task_plan_groups (const char *user, gid_t gid, const gid_t *cred_gids,
                      size_t cred_count, gid_t **gids)
{
    int n = cred_count > 0 ? (int)cred_count : 1;
    gid_t *g;

    if (cred_count == 0 && user && *user) {
        int want = 32;
        for (;;) { /* getgrouplist says how many when it has more */
            if (!(g = malloc ((size_t)want * sizeof (*g))))
                return -1;
            n = want;
            if (getgrouplist (user, gid, g, &n) >= 0)
                break;
            free (g);
            if (n <= want) { /* no growth: the database failed */
                errno = ENOENT;
                return -1;
            }
            want = n;
        }
        *gids = g;
        return n;
    }
    if (!(g = malloc ((size_t)n * sizeof (*g))))
        return -1;
    if (cred_count > 0)
        memcpy (g, cred_gids, cred_count * sizeof (*g));
    else
        g[0] = gid; /* no name: no root's groups */
    *gids = g;
    return n;
}

/* Child: a message to fd, formatted on the stack (dprintf would
 * malloc a buffer). */
static void child_say (int fd, const char *fmt, va_list ap)
{
    char buf[512];
    int n = vsnprintf (buf, sizeof (buf), fmt, ap);

    if (n > 0) {
        ssize_t w = write (
            fd, buf, (size_t)n < sizeof (buf) ? (size_t)n : sizeof (buf) - 1);
        (void)w; /* nothing more a dying child can do */
    }
}

/* Child: a message on fd. */
static void __attribute__ ((format (printf, 2, 3)))
child_print (int fd, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    child_say (fd, fmt, ap);
    va_end (ap);
}

/* Child: report a setup failure to the stepd and die. */
static void __attribute__ ((noreturn, format (printf, 2, 3)))
child_fail (int fd, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    child_say (fd, fmt, ap);
    va_end (ap);
    _exit (1);
}

/* Child: a failure srun reports as the task's own: on its stderr, and
 * the task ends with 'code'. */
static void __attribute__ ((noreturn, format (printf, 2, 3)))
child_exit (int code, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    child_say (2, fmt, ap);
    va_end (ap);
    _exit (code);
}

/* Child: the stepd's handlers and ignored signals back to SIG_DFL (a
 * handler left in place would run the stepd's code in the child; an
 * ignored signal would stay ignored through exec), then no signal
 * blocked. The raw call also reaches glibc's internal signals. */
static void child_reset_signals (const struct task_plan *p)
{
    struct ksigaction dfl = { SIG_DFL, 0, NULL, 0 };
    uint64_t none = 0;

    for (int i = 0; i < p->nsigs; i++)
        (void)syscall (SYS_rt_sigaction, p->sigs[i], &dfl, NULL,
                       sizeof (dfl.mask));
    (void)syscall (SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof (none));
}

/* Child: become the job's user, or fail; never stay root by accident. */
static void child_drop_privs (const struct task_plan *p)
{
    uid_t r, e, s;
    gid_t rg, eg, sg;

    if (!p->drop)
        return;
    if (syscall (SYS_setgroups, p->ngids, p->gids) < 0)
        child_fail (p->status, "setgroups: %s", strerror (errno));
    if (syscall (SYS_setresgid, p->gid, p->gid, p->gid) < 0)
        child_fail (p->status, "setgid %lu: %s", (unsigned long)p->gid,
                    strerror (errno));
    if (syscall (SYS_setresuid, p->uid, p->uid, p->uid) < 0)
        child_fail (p->status, "setuid %lu: %s", (unsigned long)p->uid,
                    strerror (errno));
    if (syscall (SYS_getresuid, &r, &e, &s) < 0
        || syscall (SYS_getresgid, &rg, &eg, &sg) < 0 || r != p->uid
        || e != p->uid || s != p->uid || rg != p->gid || eg != p->gid
        || sg != p->gid || syscall (SYS_setresuid, 0, 0, 0) == 0)
        child_fail (p->status, "could not drop privileges to uid %lu",
                    (unsigned long)p->uid);
}

/* Child: its pid into SLURM_TASK_PID's reserved value. */
static void child_write_pid (char *slot)
{
    char digits[TASK_PID_ROOM];
    long pid = syscall (SYS_getpid);
    int n = 0, i = 0;

    do
        digits[n++] = (char)('0' + pid % 10);
    while ((pid /= 10) > 0 && n < TASK_PID_ROOM - 1);
    while (n > 0)
        slot[i++] = digits[--n];
    slot[i] = '\0';
}

/* Child: open 'path' as the job's user over fd 'target'; failures end
 * the launch with the reason (the user named a file they cannot use). */
static void child_open (const struct task_plan *p, const char *path, int flags,
                        int target, const char *what)
{
    int fd = open (path, flags | O_CLOEXEC, 0666);

    if (fd < 0)
        child_fail (p->status, "cannot open %s file %s: %s", what, path,
                    strerror (errno));
    if (dup2 (fd, target) < 0)
        child_fail (p->status, "dup2: %s", strerror (errno));
    close (fd);
}

/* Child: the working directory cannot be entered. A task ends with
 * status 1; the batch script, as Slurm's, runs in /tmp instead, saying
 * so on its stderr. */
/* What execvp does, with the task's environment rather than environ:
 * the child shares the stepd's memory, where another thread (PMIx's)
 * may read or change environ meanwhile. A name without '/' is looked up
 * in the task's PATH (CHILD_DEFAULT_PATH without one); a file the kernel
 * cannot run (ENOEXEC) is given to /bin/sh, as execvp does. Returns
 * only on failure, errno as execvp's: EACCES if some candidate was not
 * executable, else the last error. */
static void child_exec_file (const char *path, char **argv, char **envp)
{
    size_t argc = 0;

    execve (path, argv, envp);
    if (errno != ENOEXEC)
        return;
    while (argv[argc])
        argc++;
    {
        char *sh[argc + 2]; /* sh, path, argv[1..], NULL */
        sh[0] = "/bin/sh";
        sh[1] = (char *)path;
        for (size_t i = 1; i <= argc; i++)
            sh[i + 1] = argv[i];
        execve (sh[0], sh, envp);
        errno = ENOEXEC;
    }
}

static const char *child_path_of (char **envp)
{
    for (char **e = envp; e && *e; e++)
        if (!strncmp (*e, "PATH=", 5))
            return *e + 5;
    return CHILD_DEFAULT_PATH;
}

static void child_exec (char **argv, char **envp)
{
    const char *name = argv[0], *dir = child_path_of (envp);
    size_t nlen = strlen (name);
    char path[PATH_MAX];
    bool denied = false;

    if (!*name || strchr (name, '/')) {
        if (!*name)
            errno = ENOENT;
        else
            child_exec_file (name, argv, envp);
        return;
    }
    for (;;) {
        const char *end = strchrnul (dir, ':');
        size_t dlen = (size_t)(end - dir);
        if (dlen + 1 + nlen < sizeof (path)) {
            memcpy (path, dir, dlen); /* "" is the current directory */
            path[dlen] = '/';
            memcpy (path + dlen + 1, name, nlen + 1);
            child_exec_file (dlen ? path : path + 1, argv, envp);
            if (errno == EACCES)
                denied = true;
            else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE
                     && errno != ENODEV && errno != ETIMEDOUT)
                return; /* found, but it would not run */
        }
        if (!*end)
            break;
        dir = end + 1;
    }
    errno = denied ? EACCES : ENOENT;
}

static void child_chdir_failed (const struct task_plan *p)
{
    int e = errno;

    if (!p->cwd_fallback || chdir ("/tmp") < 0)
        child_exit (1, "%s: chdir %s: %s\n", p->who, p->cwd, strerror (e));
    child_print (2,
                 "%s: error: couldn't chdir to '%s': %s: going "
                 "to /tmp instead\n",
                 p->who, p->cwd, strerror (e));
}

/* Child: the batch script's stdin, stdout and stderr files. */
static void child_open_files (const struct task_plan *p)
{
    int wflags = O_WRONLY | O_CREAT | (p->append ? O_APPEND : O_TRUNC);

    if (p->in_path)
        child_open (p, p->in_path, O_RDONLY, 0, "input");
    if (p->out_path)
        child_open (p, p->out_path, wflags, 1, "output");
    if (p->err_path && (!p->out_path || strcmp (p->err_path, p->out_path)))
        child_open (p, p->err_path, wflags, 2, "error");
    else if (p->out_path && dup2 (1, 2) < 0)
        child_fail (p->status, "dup2: %s", strerror (errno));
}

/* Child: the launcher's soft limits (rlimits.h), as the job's user. A
 * refusal is said and the task runs with the node's limit. */
static void child_set_rlimits (const struct task_plan *p)
{
    if (p->rlim_note)
        child_print (2, "%s", p->rlim_note);
    for (int i = 0; i < p->nrlims; i++)
        if (setrlimit (p->rlim_res[i], &p->rlims[i]) < 0)
            child_print (2,
                         "%s: warning: cannot set resource limit "
                         "%d: %s\n",
                         p->who, p->rlim_res[i], strerror (errno));
}

/* Child: the prologs, which print the task's environment changes; the
 * stepd stops waiting for us first (status closed). */
static void child_prologs (struct task_plan *p)
{
    int rc;

    if (!p->prologs[0] && !p->prologs[1])
        return;
    close (p->status);
    if ((rc = task_prolog_run (p)) != 0)
        _exit (rc);
}

static int __attribute__ ((noreturn)) child_main (void *arg)
{
    struct task_plan *p = arg;
    char go;

    child_reset_signals (p);
    if (p->tty)
        (void)setsid (); /* also its own process group */
    else
        (void)setpgid (0, 0);
    if (p->go < 0) {
        if (contain_add_self (p->sd) < 0)
            child_fail (p->status,
                        "cannot put itself in the step's container: %s",
                        strerror (errno));
    } else {
        close (p->go_peer);
        if (read (p->go, &go, 1) != 1)
            _exit (1); /* not contained: the parent reports why */
    }
    if (p->bind && sched_setaffinity (0, sizeof (p->cpus), &p->cpus) < 0)
        child_fail (p->status, "sched_setaffinity (cores %s): %s", p->cores,
                    strerror (errno));
    if (dup2 (p->in, 0) < 0 || (p->out >= 0 && dup2 (p->out, 1) < 0)
        || (p->err >= 0 && dup2 (p->err, 2) < 0))
        child_fail (p->status, "dup2: %s", strerror (errno));
    if (p->tty && ioctl (0, TIOCSCTTY, 0) < 0)
        child_fail (p->status, "controlling terminal: %s", strerror (errno));
    close_range (3, ~0U, CLOSE_RANGE_CLOEXEC); /* no stepd fd leaks in */
    if (p->keep_fd > 2 && fcntl (p->keep_fd, F_SETFD, 0) < 0)
        child_fail (p->status, "keep fd %d: %s", p->keep_fd, strerror (errno));
    child_drop_privs (p);
    if (p->umask >= 0)
        umask ((mode_t)p->umask);
    child_open_files (p);
    if (p->cwd && *p->cwd && chdir (p->cwd) < 0)
        child_chdir_failed (p);
    child_set_rlimits (p);
    child_write_pid (p->pid_slot);
    child_prologs (p);
    if (p->bind_say)
        child_print (2, "%s [%s]%s", p->bind_head, p->pid_slot, p->bind_tail);
    if (p->gpu_note[0])
        child_print (2, "%s", p->gpu_note);
    child_exec (p->argv, p->envp);
    child_exit (2, "%s: execve %s: %s\n", p->who, p->argv[0], strerror (errno));
}

/* Shared memory: the stepd's signals are blocked until the child has
 * set its own actions (no stepd handler may run in it). */
static pid_t start_shared (struct task_plan *p)
{
    size_t argc = 0, size;
    sigset_t all, old;
    void *stack;
    pid_t pid;
    int e;

    while (p->argv[argc])
        argc++;
    size = CHILD_STACK_BASE + (argc + 3) * sizeof (char *);
    size = (size + 4095) & ~(size_t)4095;
    stack = mmap (NULL, size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all, &old);
    pid = clone (child_main, (char *)stack + size,
                 CLONE_VM | CLONE_VFORK | SIGCHLD, p);
    e = errno;
    pthread_sigmask (SIG_SETMASK, &old, NULL);
    STACK_DONE (stack, size);
    munmap (stack, size);
    errno = e;
    return pid;
}

pid_t task_child_start (struct task_plan *p)
{
    pid_t pid;

    if (p->go < 0 && !p->prologs[0] && !p->prologs[1])
        return start_shared (p);
    if ((pid = fork ()) == 0)
        child_main (p);
    return pid;
}
