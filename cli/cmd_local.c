/* cmd_local.c - "arbor local": a whole cluster emulated on this host.
 *
 *   arbor local -N K [--dir DIR] [--keep] [--tree-width W] [--cpus C]
 *               [--mem MB] [--features LIST] [--debug] [--netns]
 *               [--set KEY=VALUE]...
 *               [--conf-only] [-- CMD ...]
 *   arbor local --restart NAME [--signal SIG] [--dir DIR]
 *
 * Parses the command line and hands it to cli/local/ (local/local.h),
 * which sets the cluster up, runs CMD or serves, and tears it down. See
 * docs/design-launch.md and arbor-local(1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmds.h"
#include "local/local.h"
#include "local/local_base.h"
#include "local/local_ctl.h"
#include "local/local_gres.h"

#define EXIT_USAGE 2

static void usage (FILE *f)
{
    fputs (
        "Usage: arbor local [-N K] [--dir DIR] [--keep] [--tree-width W]\n"
        "                   [--cpus C] [--mem MB] [--debug] [--netns]\n"
        "                   [--set KEY=VALUE]... [--conf-only] [-- CMD ...]\n"
        "Emulate a cluster of K nodes on this host (see arbor-local(1)).\n"
        "  -N, --nodes K       nodes node[1-K] at 127.0.1.x, 127.0.2.x... "
        "(default 1,\n"
        "                      max 4096)\n"
        "  -d, --dir DIR       use DIR (kept) instead of a fresh temp dir\n"
        "  -k, --keep          keep the temp dir at exit\n"
        "  -w, --tree-width W  TreeWidth of the launch tree (default 16)\n"
        "  -c, --cpus C        CPUs of each node (default 4)\n"
        "  -m, --mem MB        RealMemory of each node (default 4096)\n"
        "      --features LIST each node's features (Features=LIST: what\n"
        "                      -C/--constraint asks for)\n"
        "      --gres gpu:N    N stand-in GPUs (1-4) on each node: device\n"
        "                      files, gres.conf, ConstrainDevices as root\n"
        "      --gres nvml     the host's GPUs, by AutoDetect=nvml\n"
        "  -D, --debug         daemons log at debug level\n"
        "  -s, --set K=V       add or override an arbor.conf line\n"
        "      --netns         each node and the ctld in its own network "
        "and UTS\n"
        "                      namespace on a private bridge (root; at most "
        "250 nodes)\n"
        "      --conf-only     write the configuration, print its path, "
        "exit\n"
        "      --restart NAME  restart the ctld, munged or a node's noded of "
        "the running\n"
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

enum {
    OPT_CONF_ONLY = 256,
    OPT_RESTART,
    OPT_SIGNAL,
    OPT_NETNS,
    OPT_FEATURES,
    OPT_GRES
};

static const struct option longopts[] = {
    { "nodes", required_argument, NULL, 'N' },
    { "dir", required_argument, NULL, 'd' },
    { "keep", no_argument, NULL, 'k' },
    { "tree-width", required_argument, NULL, 'w' },
    { "cpus", required_argument, NULL, 'c' },
    { "mem", required_argument, NULL, 'm' },
    { "features", required_argument, NULL, OPT_FEATURES },
    { "gres", required_argument, NULL, OPT_GRES },
    { "debug", no_argument, NULL, 'D' },
    { "set", required_argument, NULL, 's' },
    { "conf-only", no_argument, NULL, OPT_CONF_ONLY },
    { "netns", no_argument, NULL, OPT_NETNS },
    { "restart", required_argument, NULL, OPT_RESTART },
    { "signal", required_argument, NULL, OPT_SIGNAL },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* Returns 0, 1 after --help, or -1 on a usage error. */
static int parse_args (struct local_opts *o, int argc, char **argv)
{
    int c, rc = 0;

    *o = (struct local_opts){
        .nnodes = 1, .tree_width = 16, .cpus = 4, .mem_mb = 4096
    };
    optind = 0; /* reinitialise: the dispatcher may have used getopt */
    while (rc == 0
           && (c = getopt_long (argc, argv, "+N:d:kw:c:m:Ds:h", longopts, NULL))
                  != -1) {
        switch (c) {
        case 'N':
            rc = parse_uint ("--nodes", optarg, 1, LOCAL_MAX_NODES, &o->nnodes);
            break;
        case 'd': o->dir = optarg; break;
        case 'k': o->keep = true; break;
        case 'w':
            rc = parse_uint ("--tree-width", optarg, 1, 65535, &o->tree_width);
            break;
        case 'c':
            rc = parse_uint ("--cpus", optarg, 1, 1u << 20, &o->cpus);
            break;
        case 'm': rc = parse_uint ("--mem", optarg, 1, ~0u, &o->mem_mb); break;
        case 'D': o->debug = true; break;
        case OPT_FEATURES: o->features = optarg; break;
        case OPT_GRES:
            rc = local_gres_parse (optarg, &o->gpus, &o->nvml);
            break;
        case 's': rc = add_set (o, optarg); break;
        case OPT_CONF_ONLY: o->conf_only = true; break;
        case OPT_NETNS: o->netns = true; break;
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
    if (o->netns && (o->conf_only || o->restart)) {
        /* The addresses exist only while the cluster runs; a restart
         * asks the running cluster, which knows its namespaces. */
        local_say ("--netns starts a cluster: not with --conf-only or "
                   "--restart");
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

int cmd_local_main (int argc, char **argv)
{
    struct local_opts o;
    int rc;

    rc = parse_args (&o, argc, argv);
    if (rc != 0) {
        if (rc < 0)
            fputs ("Try 'arbor local --help'.\n", stderr);
        free (o.sets);
        return rc < 0 ? EXIT_USAGE : 0;
    }
    if (o.restart)
        rc = local_ctl_request (o.dir, o.restart, o.signal);
    else
        rc = local_run (&o);
    free (o.sets);
    return rc;
}
