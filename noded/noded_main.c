/* noded_main.c - arbor-noded's main: parse the arguments, assemble the
 * node daemon (noded_create), run it until SIGTERM/SIGINT, take it apart.
 *
 *     arbor-noded [-f CONF] -n NODE [--emulate] [-v]...
 *
 * Runs in the foreground; see noded.c for what the daemon is made of.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "noded.h"

#ifndef ARBOR_VERSION
#define ARBOR_VERSION "unknown"
#endif

struct noded_opts {
    const char *conf_path;
    const char *node;
    bool emulate;
    int verbose;
};

static const struct option noded_longopts[] = {
    { "conf", required_argument, NULL, 'f' },
    { "node", required_argument, NULL, 'n' },
    { "emulate", no_argument, NULL, 'E' },
    { "verbose", no_argument, NULL, 'v' },
    { "version", no_argument, NULL, 'V' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void noded_usage (FILE *fp)
{
    fprintf (fp,
             "Usage: arbor-noded [-f CONF] -n NODE [--emulate] [-v]...\n"
             "  -f, --conf CONF   configuration (default: $ARBOR_CONF,"
             " $SLURM_CONF, %s)\n"
             "  -n, --node NODE   the node to be (a NodeName of CONF)\n"
             "      --emulate     report the configured CPUs and"
             " RealMemory\n"
             "  -v, --verbose     log more (repeatable)\n"
             "  -V, --version     print the version and exit\n",
             conf_default_path ());
}

static void noded_parse_args (int argc, char **argv, struct noded_opts *o)
{
    int c;

    while ((c = getopt_long (argc, argv, "f:n:vVh", noded_longopts, NULL))
           != -1) {
        switch (c) {
        case 'f': o->conf_path = optarg; break;
        case 'n': o->node = optarg; break;
        case 'E': o->emulate = true; break;
        case 'v': o->verbose++; break;
        case 'V': printf ("arbor-noded %s\n", ARBOR_VERSION); exit (0);
        case 'h': noded_usage (stdout); exit (0);
        default: noded_usage (stderr); exit (2);
        }
    }
    if (optind < argc) {
        fprintf (stderr, "arbor-noded: error: unexpected argument '%s'\n",
                 argv[optind]);
        exit (2);
    }
    if (!o->node) {
        fprintf (stderr, "arbor-noded: error: -n NODE is required\n");
        noded_usage (stderr);
        exit (2);
    }
}

/* Make sure fds 0-2 are open, so no socket of ours lands on them. */
static void noded_std_fds (void)
{
    int fd;

    while ((fd = open ("/dev/null", O_RDWR)) >= 0 && fd <= 2)
        ;
    if (fd > 2)
        close (fd);
}

int main (int argc, char **argv)
{
    struct noded_opts opts = { 0 };
    arbor_error_t err = { "" };
    struct noded *nd;
    int rc = 0;

    noded_parse_args (argc, argv, &opts);
    noded_std_fds ();
    signal (SIGPIPE, SIG_IGN);
    if (!(nd = noded_create (opts.conf_path, opts.node, opts.verbose,
                             opts.emulate, &err))) {
        /* on stderr, as before the log is up: startup errors reach the
         * shell that started us */
        fprintf (stderr, "arbor-noded: error: %s\n", err.text);
        log_close ();
        return 1;
    }
    if (noded_run (nd) < 0) {
        fprintf (stderr, "arbor-noded: error: %s\n", strerror (errno));
        rc = 1;
    }
    noded_destroy (nd);
    log_close ();
    return rc;
}
