/* cmd_local.c - "arbor local": a whole cluster emulated on this host.
 *
 *   arbor local -N K [--dir DIR] [--keep] [--tree-width W] [--cpus C]
 *               [--mem MB] [--debug] [--set KEY=VALUE]... [--conf-only]
 *               [-- CMD ...]
 *
 * Writes DIR/arbor.conf for nodes node1..nodeK on 127.0.1.x, finds or
 * starts a munged, starts arbor-ctld and K arbor-noded --emulate, waits
 * until the ctld reports every node IDLE, then runs CMD with ARBOR_CONF set
 * and exits with its status, or (without CMD) prints ARBOR_CONF=... and a
 * "ready" line and serves until SIGINT/SIGTERM. Whatever happens, it tears
 * down every process it started or inherited (it is a child subreaper) and
 * removes DIR unless --keep or --dir was given. See docs/design-launch.md
 * and arbor-local(1).
 *
 * Signals are taken through a signalfd, so no handler and no global state
 * is needed: SIGINT/SIGTERM/SIGHUP are blocked and read in the main loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "conf.h"
#include "local.h"

#define EXIT_USAGE 2

void local_say (const char *fmt, ...)
{
    va_list ap;

    fflush (stdout);
    fputs ("arbor local: ", stderr);
    va_start (ap, fmt);
    vfprintf (stderr, fmt, ap);
    va_end (ap);
    fputc ('\n', stderr);
}

int local_path (char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (buf, len, fmt, ap);
    va_end (ap);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

static void usage (FILE *f)
{
    fputs ("Usage: arbor local [-N K] [--dir DIR] [--keep] [--tree-width W]\n"
           "                   [--cpus C] [--mem MB] [--debug]\n"
           "                   [--set KEY=VALUE]... [--conf-only] [-- CMD ...]\n"
           "Emulate a cluster of K nodes on this host (see arbor-local(1)).\n"
           "  -N, --nodes K       nodes node[1-K] at 127.0.1.x (default 1, "
           "max 1000)\n"
           "  -d, --dir DIR       use DIR (kept) instead of a fresh temp dir\n"
           "  -k, --keep          keep the temp dir at exit\n"
           "  -w, --tree-width W  TreeWidth of the launch tree (default 16)\n"
           "  -c, --cpus C        CPUs of each node (default 4)\n"
           "  -m, --mem MB        RealMemory of each node (default 4096)\n"
           "  -D, --debug         daemons log at debug level\n"
           "  -s, --set K=V       add or override an arbor.conf line\n"
           "      --conf-only     write the configuration, print its path, "
           "exit\n"
           "      --restart NAME  restart the ctld or a node's noded of the "
           "running\n"
           "                      cluster in --dir (or $ARBOR_CONF's), "
           "and wait for it\n"
           "      --signal SIG    signal for the old daemon (default TERM; "
           "KILL: a crash)\n",
           f);
}

static int parse_uint (const char *opt, const char *s, unsigned min,
                       unsigned max, unsigned *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul (s, &end, 10);
    if (errno || end == s || *end || *s == '-' || v < min || v > max) {
        local_say ("%s: '%s' is not a number in [%u, %u]", opt, s, min, max);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static int add_set (struct local_opts *o, char *s)
{
    char **v = realloc (o->sets, (o->nsets + 1) * sizeof (*v));

    if (!v)
        return -1;
    o->sets = v;
    o->sets[o->nsets++] = s;
    return 0;
}

enum { OPT_CONF_ONLY = 256, OPT_RESTART, OPT_SIGNAL };

static const struct option longopts[] = {
    { "nodes", required_argument, NULL, 'N' },
    { "dir", required_argument, NULL, 'd' },
    { "keep", no_argument, NULL, 'k' },
    { "tree-width", required_argument, NULL, 'w' },
    { "cpus", required_argument, NULL, 'c' },
    { "mem", required_argument, NULL, 'm' },
    { "debug", no_argument, NULL, 'D' },
    { "set", required_argument, NULL, 's' },
    { "conf-only", no_argument, NULL, OPT_CONF_ONLY },
    { "restart", required_argument, NULL, OPT_RESTART },
    { "signal", required_argument, NULL, OPT_SIGNAL },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* Returns 0, 1 after --help, or -1 on a usage error. */
static int parse_args (struct local_opts *o, int argc, char **argv)
{
    int c, rc = 0;

    *o = (struct local_opts){ .nnodes = 1, .tree_width = 16, .cpus = 4,
                              .mem_mb = 4096 };
    optind = 0; /* reinitialise: the dispatcher may have used getopt */
    while (rc == 0
           && (c = getopt_long (argc, argv, "+N:d:kw:c:m:Ds:h", longopts,
                                NULL)) != -1) {
        switch (c) {
        case 'N':
            rc = parse_uint ("--nodes", optarg, 1, LOCAL_MAX_NODES, &o->nnodes);
            break;
        case 'd': o->dir = optarg; break;
        case 'k': o->keep = true; break;
        case 'w':
            rc = parse_uint ("--tree-width", optarg, 1, 65535, &o->tree_width);
            break;
        case 'c': rc = parse_uint ("--cpus", optarg, 1, 1u << 20, &o->cpus); break;
        case 'm': rc = parse_uint ("--mem", optarg, 1, ~0u, &o->mem_mb); break;
        case 'D': o->debug = true; break;
        case 's': rc = add_set (o, optarg); break;
        case OPT_CONF_ONLY: o->conf_only = true; break;
        case OPT_RESTART: o->restart = optarg; break;
        case OPT_SIGNAL: o->signal = optarg; break;
        case 'h': usage (stdout); return 1;
        default: rc = -1; break;
        }
    }
    if (rc < 0)
        return -1;
    if (optind < argc)
        o->cmd = &argv[optind];
    if (o->conf_only && o->cmd) {
        local_say ("--conf-only takes no command");
        return -1;
    }
    if ((o->restart && (o->cmd || o->conf_only))
        || (o->signal && !o->restart)) {
        local_say (o->restart ? "--restart takes no command"
                              : "--signal goes with --restart");
        return -1;
    }
    return 0;
}

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
    printf ("arbor local: %zu nodes ready\n", l->conf->nnodes);
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

static int local_run (struct local *l)
{
    if (local_dir_setup (l) < 0)
        return 1;
    if (l->opt.conf_only)
        return conf_only (l);
    if (local_munge_setup (l) < 0 || local_conf_write (l) < 0
        || local_spawn_daemons (l) < 0 || local_wait_ready (l) < 0)
        return 1;
    (void)local_ctl_listen (l); /* said why; the cluster works without */
    return l->opt.cmd ? run_cmd (l) : serve (l);
}

int cmd_local_main (int argc, char **argv)
{
    struct local l;
    int rc;

    memset (&l, 0, sizeof (l));
    l.sigfd = -1;
    l.ctl_fd = -1;
    rc = parse_args (&l.opt, argc, argv);
    if (rc != 0) {
        if (rc < 0)
            fputs ("Try 'arbor local --help'.\n", stderr);
        free (l.opt.sets);
        return rc < 0 ? EXIT_USAGE : 0;
    }
    if (l.opt.restart) {
        free (l.opt.sets);
        return local_ctl_request (l.opt.dir, l.opt.restart, l.opt.signal);
    }
    if (signals_setup (&l) < 0)
        rc = 1;
    else
        rc = local_run (&l);
    fflush (stdout);
    local_ctl_close (&l);
    local_teardown (&l);
    if (l.opt.keep && !l.opt.dir && !l.opt.conf_only && l.dir[0])
        local_say ("kept %s", l.dir);
    if (l.sigfd >= 0)
        close (l.sigfd);
    conf_destroy (l.conf);
    free (l.noded);
    free (l.opt.sets);
    return rc;
}
