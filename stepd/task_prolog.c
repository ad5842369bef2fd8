/* task_prolog.c - TaskProlog and --task-prolog, run by the task itself.
 *
 * They run in the task's own process, between its setup (container,
 * cores, identity, directory) and its exec, as Slurm's slurmstepd does:
 * as the job's user, with the task's environment (SLURM_TASK_PID
 * included: the pid the task will keep), stdin from /dev/null, stderr on
 * the task's stderr, and standard output read here line by line. The
 * child is then a fork of the stepd, not a sharer of its memory
 * (task_child.h), so it may allocate while it edits the environment; it
 * has closed its status pipe first, so the stepd does not wait for the
 * prologs, and tasks run theirs side by side.
 *
 * Each prolog is bounded (PrologEpilogTimeout): at the bound its process
 * group is killed. A prolog that fails, is killed or runs over ends the
 * task before it runs, with the prolog's exit code (128 + signal, 1 for
 * a timeout), saying so on the task's stderr; srun reports that exit as
 * the task's, as Slurm does.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "task_child.h"
#include "task_prolog.h"

/* A line longer than this is cut: the environment is no place for more. */
#define PROLOG_LINE_MAX (64u << 10)

static const char *const prolog_what[2] = { "TaskProlog", "--task-prolog" };

/* NAME: a shell variable name. */
static bool prolog_name_ok (const char *s, size_t len)
{
    if (len == 0 || (!isalpha ((unsigned char)s[0]) && s[0] != '_'))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!isalnum ((unsigned char)s[i]) && s[i] != '_')
            return false;
    return true;
}

int task_prolog_line (struct env *env, const char *line, int out_fd)
{
    const char *eq;

    if (!strncmp (line, "export ", 7)) {
        line += 7 + strspn (line + 7, " ");
        if (!(eq = strchr (line, '='))
            || !prolog_name_ok (line, (size_t)(eq - line)))
            return 0;
        return env_put (env, line);
    }
    if (!strncmp (line, "unset ", 6)) {
        line += 6 + strspn (line + 6, " ");
        if (!prolog_name_ok (line, strlen (line)))
            return 0;
        return env_unset (env, line) < 0 && errno == ENOMEM ? -1 : 0;
    }
    if (!strncmp (line, "print ", 6)) {
        size_t n = strlen (line + 6);
        struct iovec iov[2] = { { (void *)(line + 6), n }, { "\n", 1 } };
        (void)!writev (out_fd, iov, 2);
    }
    return 0;
}

/* Act on every complete line of buf[0..*len), keeping the rest. */
static void prolog_lines (struct task_plan *p, char *buf, size_t *len)
{
    char *start = buf, *nl;

    while ((nl = memchr (start, '\n', *len - (size_t)(start - buf)))) {
        *nl = '\0';
        (void)task_prolog_line (p->env, start, 1);
        start = nl + 1;
    }
    *len -= (size_t)(start - buf);
    memmove (buf, start, *len);
    if (*len == PROLOG_LINE_MAX) { /* no newline in sight: act on it */
        buf[*len - 1] = '\0';
        (void)task_prolog_line (p->env, buf, 1);
        *len = 0;
    }
}

static double prolog_now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read the prolog's output until EOF or the deadline; false on timeout. */
static bool prolog_read (struct task_plan *p, int fd, double deadline)
{
    char *buf = malloc (PROLOG_LINE_MAX + 1);
    size_t len = 0;
    ssize_t n;

    if (!buf)
        return true; /* its output is lost; it still runs */
    for (;;) {
        struct pollfd pfd = { fd, POLLIN, 0 };
        double left = deadline - prolog_now ();
        if (left <= 0
            || (poll (&pfd, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)) {
            free (buf);
            return false;
        }
        if (!pfd.revents)
            continue;
        n = read (fd, buf + len, PROLOG_LINE_MAX - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        prolog_lines (p, buf, &len);
    }
    if (len > 0) { /* a last line without its newline */
        buf[len] = '\0';
        (void)task_prolog_line (p->env, buf, 1);
    }
    free (buf);
    return true;
}

/* The prolog's process: its own group (killed whole at the bound),
 * /dev/null in, the pipe out, the task's stderr. */
static void __attribute__ ((noreturn))
prolog_exec (struct task_plan *p, const char *path, int out)
{
    char *argv[] = { (char *)path, NULL };
    int null = open ("/dev/null", O_RDONLY);

    (void)setpgid (0, 0);
    if (null < 0 || dup2 (null, 0) < 0 || dup2 (out, 1) < 0)
        _exit (127);
    execvpe (path, argv, p->envp);
    dprintf (2, "%s: error: cannot run %s: %s\n", p->who, path,
             strerror (errno));
    _exit (127);
}

/* Run one prolog; its wait status, or -1 if it ran over the bound. */
static int prolog_one (struct task_plan *p, const char *path)
{
    double deadline = prolog_now () + (p->prolog_secs ? p->prolog_secs : 60);
    int fds[2], status = 0;
    bool in_time;
    pid_t pid;

    p->envp = env_vars (p->env);
    if (pipe2 (fds, O_CLOEXEC) < 0 || (pid = fork ()) < 0)
        return W_EXITCODE (1, 0);
    if (pid == 0)
        prolog_exec (p, path, fds[1]);
    close (fds[1]);
    in_time = prolog_read (p, fds[0], deadline);
    close (fds[0]);
    if (!in_time)
        (void)kill (-pid, SIGKILL);
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    return in_time ? status : -1;
}

int task_prolog_run (struct task_plan *p)
{
    for (int i = 0; i < 2; i++) {
        int st;
        if (!p->prologs[i])
            continue;
        st = prolog_one (p, p->prologs[i]);
        if (st == 0)
            continue;
        if (st < 0) {
            dprintf (2, "%s: error: %s %s timed out after %u s\n", p->who,
                     prolog_what[i], p->prologs[i], p->prolog_secs);
            return 1;
        }
        if (WIFSIGNALED (st)) {
            dprintf (2, "%s: error: %s %s killed by signal %d\n", p->who,
                     prolog_what[i], p->prologs[i], WTERMSIG (st));
            return 128 + WTERMSIG (st);
        }
        dprintf (2, "%s: error: %s %s failed: exit status %d\n", p->who,
                 prolog_what[i], p->prologs[i], WEXITSTATUS (st));
        return WEXITSTATUS (st) ? WEXITSTATUS (st) : 1;
    }
    p->envp = env_vars (p->env);
    return 0;
}
