/* proc_helpers.h - process fixtures shared by the proctrack tests: a child
 * that forks a sleeping grandchild (optionally escaping via setsid), and
 * polling helpers. Header-only: each test is one executable. */
#ifndef ARBOR_PROCTRACK_TEST_HELPERS_H
#define ARBOR_PROCTRACK_TEST_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct tree {
    pid_t child;      /* our child, sleeping */
    pid_t grandchild; /* its descendant, sleeping */
};

/* Fork a child that waits for a byte on 'go' (so the caller can add it to
 * a container first), then forks a grandchild and sleeps. With 'setsid',
 * the grandchild is double-forked through a setsid() intermediate, as a
 * daemon escaping its session would do. The child reports the
 * grandchild's pid only once the intermediate is gone, so the tree is
 * exactly child + grandchild when tree_go() returns. */
static inline void tree_child (int go_fd, int rep_fd, bool setsid_escape)
{
    int inner[2];
    pid_t g, g2 = 0;
    char c;

    setpgid (0, 0);
    if (read (go_fd, &c, 1) != 1 || pipe2 (inner, O_CLOEXEC) < 0)
        _exit (1);
    if ((g = fork ()) == 0) {
        if (setsid_escape) {
            setsid ();
            if (fork () != 0)
                _exit (0); /* the intermediate exits at once */
        }
        pid_t me = getpid ();
        if (write (inner[1], &me, sizeof (me)) != sizeof (me))
            _exit (1);
        execlp ("sleep", "sleep", "300", (char *)NULL);
        _exit (127);
    }
    close (inner[1]);
    if (g < 0 || read (inner[0], &g2, sizeof (g2)) != sizeof (g2))
        _exit (1);
    if (setsid_escape)
        waitpid (g, NULL, 0);
    if (write (rep_fd, &g2, sizeof (g2)) != sizeof (g2))
        _exit (1);
    execlp ("sleep", "sleep", "300", (char *)NULL);
    _exit (127);
}

static inline int tree_spawn (struct tree *t, bool setsid_escape, int *go_fd,
                              int *pid_fd)
{
    int go[2], rep[2];

    if (pipe2 (go, O_CLOEXEC) < 0 || pipe2 (rep, O_CLOEXEC) < 0)
        return -1;
    if ((t->child = fork ()) < 0)
        return -1;
    if (t->child == 0) {
        close (go[1]);
        close (rep[0]);
        tree_child (go[0], rep[1], setsid_escape);
    }
    setpgid (t->child, t->child);
    close (go[0]);
    close (rep[1]);
    *go_fd = go[1];
    *pid_fd = rep[0];
    return 0;
}

/* Let the child go on and learn the grandchild's pid. */
static inline int tree_go (struct tree *t, int go_fd, int pid_fd)
{
    int rc = 0;

    if (write (go_fd, "g", 1) != 1
        || read (pid_fd, &t->grandchild, sizeof (pid_t)) != sizeof (pid_t))
        rc = -1;
    close (go_fd);
    close (pid_fd);
    return rc;
}

/* Reap whatever has exited among our children (we are a subreaper, so
 * orphaned grandchildren come to us too). */
static inline void reap_all (void)
{
    while (waitpid (-1, NULL, WNOHANG) > 0)
        ;
}

static inline void sleep_ms (int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep (&ts, NULL);
}

/* Process state letter from /proc/<pid>/stat, or 0 when gone. */
static inline char proc_state (pid_t pid)
{
    char path[64], buf[512], *p, st = 0;
    FILE *f;

    snprintf (path, sizeof (path), "/proc/%d/stat", (int)pid);
    if (!(f = fopen (path, "r")))
        return 0;
    if (fgets (buf, sizeof (buf), f) && (p = strrchr (buf, ')')))
        st = p[2];
    fclose (f);
    return st;
}

/* Is pid alive and not a zombie? */
static inline bool proc_alive (pid_t pid)
{
    char st = proc_state (pid);
    return st != 0 && st != 'Z';
}

/* SIGKILL what is left of a tree (stopped or not) and reap it. */
static inline void tree_kill (struct tree *t)
{
    if (t->child > 0)
        kill (t->child, SIGKILL);
    if (t->grandchild > 0)
        kill (t->grandchild, SIGKILL);
    for (int i = 0;
         i < 100 && (proc_alive (t->child) || proc_alive (t->grandchild));
         i++) {
        reap_all ();
        sleep_ms (5);
    }
    reap_all ();
}

static inline bool pids_contain (const pid_t *pids, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (pids[i] == pid)
            return true;
    return false;
}

#endif
