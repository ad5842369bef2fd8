/* ctld_main.c - arbor-ctld's main: parse the arguments, assemble the
 * controller (ctld_create), run it until SIGTERM/SIGINT, take it apart.
 *
 *     arbor-ctld [-f CONF] [-v]...
 *
 * Runs in the foreground; see ctld.c for what the controller is made of.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "conf.h"
#include "ctld.h"
#include "error.h"
#include "log.h"

static void usage (FILE *fp)
{
    fprintf (fp,
             "Usage: arbor-ctld [-c] [-f CONF] [-v]...\n"
             "  -c, --clear      start with no state: set the state "
             "database aside\n"
             "  -f, --conf CONF  configuration file (default %s)\n"
             "  -v, --verbose    log more (repeatable)\n"
             "  -h, --help       this help\n",
             conf_default_path ());
}

static int parse_args (int argc, char **argv, const char **path, int *verbose,
                       bool *clear)
{
    static const struct option opts[] = {
        { "clear", no_argument, NULL, 'c' },
        { "conf", required_argument, NULL, 'f' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    while ((c = getopt_long (argc, argv, "cf:vh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': *clear = true; break;
        case 'f': *path = optarg; break;
        case 'v': (*verbose)++; break;
        case 'h': usage (stdout); exit (0);
        default: usage (stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "arbor-ctld: unexpected argument '%s'\n",
                 argv[optind]);
        return -1;
    }
    return 0;
}

int main (int argc, char **argv)
{
    const char *path = NULL;
    arbor_error_t err = { "" };
    struct ctld *ctx;
    int verbose = 0;
    bool clear = false;

    if (parse_args (argc, argv, &path, &verbose, &clear) < 0)
        return 2;
    log_open ("arbor-ctld", LOG_LVL_INFO, NULL);
    signal (SIGPIPE, SIG_IGN);
    if (!(ctx = ctld_create (path, verbose, clear, &err))) {
        log_err ("%s", err.text);
        /* and where the one who started us sees it, when the log is a
         * file */
        fprintf (stderr, "arbor-ctld: error: %s\n", err.text);
        log_close ();
        return 1;
    }
    ctld_run (ctx);
    ctld_destroy (ctx);
    log_info ("stopped");
    log_close ();
    return 0;
}
