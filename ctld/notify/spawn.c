/* spawn.c - run a program off the controller's loop. See spawn.h.
 *
 * fork() rather than posix_spawn: the child may have to become another
 * user, which posix_spawn cannot do. What the child runs before exec is
 * a fixed chain of system calls on data prepared by the parent (the
 * group list is converted before the fork), so it takes no lock a
 * thread of the parent might hold.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "notify/spawn.h"

#define SPAWN_MAX_GROUPS 1024

struct spawned {
    struct ev_loop *loop;
    pid_t pid;
    ev_child child_w;
    ev_timer timer_w;
    bool timed_out;
    spawn_done_f cb;
    void *arg;
};

static void spawn_child_cb (struct ev_loop *loop, ev_child *w, int revents)
{
    struct spawned *s = w->data;

    ev_child_stop (loop, w);
    ev_timer_stop (loop, &s->timer_w);
    s->cb (w->rstatus, s->timed_out, s->arg);
    free (s);
}

static void spawn_timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct spawned *s = w->data;

    s->timed_out = true;
    kill (-s->pid, SIGKILL); /* ev_child reports the end */
}

/* In the child: the descriptors, signals and session of a fresh program. */
static void spawn_child_setup (void)
{
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    sigset_t none;
    int fd;

    for (int sig = 1; sig < NSIG; sig++)
        (void)sigaction (sig, &dfl, NULL); /* SIGKILL/SIGSTOP: EINVAL */
    sigemptyset (&none);
    (void)sigprocmask (SIG_SETMASK, &none, NULL);
    (void)setsid ();
    if ((fd = open ("/dev/null", O_RDWR)) >= 0) {
        (void)dup2 (fd, 0);
        (void)dup2 (fd, 1);
        (void)dup2 (fd, 2);
    }
    (void)syscall (SYS_close_range, 3u, ~0u, 0u);
    (void)chdir ("/");
}

/* In the child: become the user, or _exit(126). */
static void spawn_child_user (const struct spawn_req *r, const gid_t *groups,
                              size_t ngroups)
{
    if (!r->as_user)
        return;
    if (setgroups (ngroups, groups) < 0 || setgid (r->gid) < 0
        || setuid (r->uid) < 0)
        _exit (126);
}

pid_t spawn_pid (const struct spawned *s)
{
    return s->pid;
}

/* The supplementary groups as gid_t, r->gid alone when none are given. */
static gid_t *spawn_groups (const struct spawn_req *r, size_t *n)
{
    size_t k = r->groups && r->ngroups ? r->ngroups : 1;
    gid_t *g;

    if (k > SPAWN_MAX_GROUPS)
        k = SPAWN_MAX_GROUPS;
    if (!(g = calloc (k, sizeof (*g))))
        return NULL;
    for (size_t i = 0; i < k; i++)
        g[i] = r->groups && r->ngroups ? (gid_t)r->groups[i] : r->gid;
    *n = k;
    return g;
}

struct spawned *spawn_start (struct ev_loop *loop, const struct spawn_req *r,
                             spawn_done_f cb, void *arg, arbor_error_t *err)
{
    struct spawned *s = calloc (1, sizeof (*s));
    size_t ngroups = 0;
    gid_t *groups = spawn_groups (r, &ngroups);

    if (!s || !groups) {
        free (s);
        free (groups);
        errno = ENOMEM;
        errprintf (err, "out of memory");
        return NULL;
    }
    if ((s->pid = fork ()) < 0) {
        int e = errno;
        free (s);
        free (groups);
        errno = e;
        errprintf (err, "fork: %s", strerror (e));
        return NULL;
    }
    if (s->pid == 0) {
        spawn_child_setup ();
        spawn_child_user (r, groups, ngroups);
        execve (r->path, r->argv, r->env);
        _exit (127);
    }
    free (groups);
    s->loop = loop;
    s->cb = cb;
    s->arg = arg;
    ev_child_init (&s->child_w, spawn_child_cb, s->pid, 0);
    s->child_w.data = s;
    ev_child_start (loop, &s->child_w);
    ev_timer_init (&s->timer_w, spawn_timeout_cb, r->timeout, 0.);
    s->timer_w.data = s;
    if (r->timeout > 0)
        ev_timer_start (loop, &s->timer_w);
    return s;
}

void spawn_cancel (struct spawned *s, bool kill_it)
{
    int saved = errno;

    if (!s)
        return;
    ev_child_stop (s->loop, &s->child_w);
    ev_timer_stop (s->loop, &s->timer_w);
    if (kill_it)
        kill (-s->pid, SIGKILL);
    free (s);
    errno = saved;
}

const char *spawn_status_str (int status, char *buf, size_t len)
{
    if (WIFEXITED (status))
        snprintf (buf, len, "exit %d", WEXITSTATUS (status));
    else if (WIFSIGNALED (status))
        snprintf (buf, len, "signal %d", WTERMSIG (status));
    else
        snprintf (buf, len, "status %d", status);
    return buf;
}
