/* local.c - "arbor local": set up the emulated cluster, run, tear down.
 *
 * Writes DIR/arbor.conf for nodes node1..nodeK on 127.0.1.x (with --netns,
 * each node and the ctld in its own network namespace on a private bridge:
 * local_netns.c), finds or starts a munged, starts arbor-ctld and K
 * arbor-noded --emulate, waits until the ctld reports every node IDLE,
 * then runs CMD with ARBOR_CONF set and returns its status, or (without
 * CMD) prints ARBOR_CONF=... and a "ready" line and serves until
 * SIGINT/SIGTERM. Whatever happens, it tears down every process it
 * started or inherited (it is a child subreaper) and removes DIR unless
 * --keep or --dir was given. See docs/design-launch.md, docs/netns.md and
 * arbor-local(1).
 *
 * Signals are taken through a signalfd, so no handler and no global state
 * is needed: SIGINT/SIGTERM/SIGHUP are blocked and read in the main loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "local_base.h"
#include "local_conf.h"
#include "local_ctl.h"
#include "local_munge.h"
#include "local_netns.h"
#include "local_proc.h"

static int exit_code (int status)
{
    if (WIFSIGNALED (status))
        return 128 + WTERMSIG (status);
    return WEXITSTATUS (status);
}

/* Wait for a signal or a control request (served here, see local_ctl.c).
 * 0 when the signalfd is readable, -1 on a poll error. */
static int wait_events (struct local *l)
{
    for (;;) {
        struct pollfd pfd[2] = { { .fd = l->sigfd, .events = POLLIN },
                                 { .fd = l->ctl_fd, .events = POLLIN } };
        if (poll (pfd, l->ctl_fd >= 0 ? 2 : 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (l->ctl_fd >= 0 && (pfd[1].revents & POLLIN))
            local_ctl_serve (l);
        if (pfd[0].revents & POLLIN)
            return 0;
    }
}

/* Run CMD to its end, forwarding SIGINT/SIGTERM/SIGHUP sent to us. A ^C
 * from the terminal (si_code SI_KERNEL) already reached CMD, which shares
 * our process group, so it is not sent twice. */
static int run_cmd (struct local *l)
{
    struct signalfd_siginfo si;

    if (local_spawn_cmd (l) < 0)
        return 1;
    while (l->cmd_pid > 0) {
        if (wait_events (l) < 0)
            break;
        while (read (l->sigfd, &si, sizeof (si)) == (ssize_t)sizeof (si)) {
            if (si.ssi_signo == SIGCHLD)
                local_reap (l);
            else if (l->cmd_pid > 0 && si.ssi_code != SI_KERNEL)
                kill (l->cmd_pid, (int)si.ssi_signo);
        }
        local_reap (l);
    }
    return exit_code (l->cmd_status);
}

/* No CMD: announce the cluster and serve until told to stop. */
static int serve (struct local *l)
{
    struct signalfd_siginfo si;

    printf ("ARBOR_CONF=%s\n", l->conf_path);
    printf ("arbor local: %zu nodes ready in %.2f s\n", l->conf->nnodes,
            (double)(l->ready_ms - l->start_ms) / 1000.0);
    fflush (stdout);
    for (;;) {
        if (wait_events (l) < 0)
            return 1;
        while (read (l->sigfd, &si, sizeof (si)) == (ssize_t)sizeof (si)) {
            if (si.ssi_signo != SIGCHLD)
                return 0;
            local_reap (l);
        }
    }
}

/* The ctld keeps a connection to every node, and each noded one to its
 * tree neighbours: raise the soft open-file limit to the hard one here, so
 * that every daemon we start (and CMD) inherits it. Not fatal: a small
 * cluster works under any limit. */
static void raise_nofile (unsigned nnodes)
{
    struct rlimit rl;

    if (getrlimit (RLIMIT_NOFILE, &rl) < 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit (RLIMIT_NOFILE, &rl) < 0)
            local_say ("RLIMIT_NOFILE: %s", strerror (errno));
    }
    /* The ctld: one connection per node, and some for clients. */
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 2 * (rlim_t)nnodes + 64)
        local_say ("warning: open file limit %lu is low for %u nodes",
                   (unsigned long)rl.rlim_cur, nnodes);
}

static int signals_setup (struct local *l)
{
    sigset_t set;

    sigemptyset (&set);
    sigaddset (&set, SIGINT);
    sigaddset (&set, SIGTERM);
    sigaddset (&set, SIGHUP);
    sigaddset (&set, SIGCHLD);
    if (sigprocmask (SIG_BLOCK, &set, NULL) < 0
        || (l->sigfd = signalfd (-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        local_say ("signalfd: %s", strerror (errno));
        return -1;
    }
    /* Our stdout may be a pipe whose reader went away; children get
     * SIGPIPE back to its default before exec. */
    signal (SIGPIPE, SIG_IGN);
    if (prctl (PR_SET_CHILD_SUBREAPER, 1) < 0) {
        local_say ("PR_SET_CHILD_SUBREAPER: %s", strerror (errno));
        return -1;
    }
    return 0;
}

static int conf_only (struct local *l)
{
    const char *env = getenv ("ARBOR_MUNGE_SOCKET");

    if (env && *env)
        snprintf (l->munge_socket, sizeof (l->munge_socket), "%s", env);
    if (local_conf_write (l) < 0)
        return 1;
    l->remove_dir = false; /* the configuration is the product */
    printf ("%s\n", l->conf_path);
    return 0;
}

static int local_stages (struct local *l)
{
    if (local_dir_setup (l) < 0)
        return 1;
    if (l->opt.conf_only)
        return conf_only (l);
    l->start_ms = local_now_ms ();
    if (local_munge_setup (l) < 0 || (l->opt.netns && local_netns_setup (l) < 0)
        || local_conf_write (l) < 0 || local_spawn_daemons (l) < 0
        || local_wait_ready (l) < 0)
        return 1;
    l->ready_ms = local_now_ms ();
    (void)local_ctl_listen (l); /* said why; the cluster works without */
    return l->opt.cmd ? run_cmd (l) : serve (l);
}

int local_run (const struct local_opts *o)
{
    struct local l;
    int rc;

    memset (&l, 0, sizeof (l));
    l.opt = *o;
    l.sigfd = -1;
    l.ctl_fd = -1;
    raise_nofile (o->nnodes);
    if (signals_setup (&l) < 0)
        rc = 1;
    else
        rc = local_stages (&l);
    fflush (stdout);
    local_ctl_close (&l);
    local_teardown (&l);
    if (l.opt.keep && !l.opt.dir && !l.opt.conf_only && l.dir[0])
        local_say ("kept %s", l.dir);
    if (l.sigfd >= 0)
        close (l.sigfd);
    conf_destroy (l.conf);
    free (l.noded);
    return rc;
}
