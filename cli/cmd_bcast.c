/* cmd_bcast.c - "arbor bcast" (sbcast): copy a file to every node of a job.
 *
 *     sbcast my.prog /tmp/my.prog          in a job: SLURM_JOB_ID
 *     sbcast -j 5.2 -f -p data.bin /tmp/   the nodes of step 5.2
 *     sbcast --send-libs app /tmp/app      and its libraries, /tmp/app_libs
 *
 * The controller gives a credential of the job's user for the job's
 * nodes (BCAST_CRED); the file then goes to node zero in blocks and down
 * the launch tree (bcast_send.h), and each node writes it as the job's
 * user. Exit status 0 when every node has it, else 1 with each failed
 * node named.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bcast_libs.h"
#include "bcast_opt.h"
#include "bcast_send.h"
#include "client.h"
#include "cmds.h"
#include "log.h"
#include "version.h"

enum { OPT_EXCLUDE = 0x100, OPT_SEND_LIBS };

static const char *const bcast_synopsis[] = {
    "[-C[lz4|zlib|none]] [-f] [-F fanout] [-j jobid[.stepid]] [-p]",
    "[-s size] [-t timeout] [-v] [--exclude=NONE|dir,...]",
    "[--send-libs[=yes|no]] SOURCE DEST",
    NULL,
};

static const char bcast_usage[] =
    "Usage: %s [-CfFjpstvV] SOURCE DEST\n"
    "  -C, --compress[=lz4|zlib|none]  accepted; blocks go uncompressed\n"
    "      --exclude=NONE|DIR,...      libraries not to send (--send-libs)\n"
    "  -f, --force                     replace DEST where it exists\n"
    "  -F, --fanout=N                  tree fanout (at most 8)\n"
    "  -j, --jobid=JOB[.STEP]          the job (default: SLURM_JOB_ID)\n"
    "  -p, --preserve                  keep the times and modes\n"
    "      --send-libs[=yes|no]        also send its libraries to DEST_libs/\n"
    "  -s, --size=N[k|m]               block size (default 8m)\n"
    "  -t, --timeout=SECS              per block (default 10)\n"
    "  -v, --verbose                   say more\n"
    "  -V, --version                   print the version and exit\n";

static const struct option bcast_longopts[] = {
    BCAST_LONGOPTS_COMMON,
    { "exclude", required_argument, NULL, OPT_EXCLUDE },
    { "send-libs", optional_argument, NULL, OPT_SEND_LIBS },
    { "size", required_argument, NULL, 's' },
    VERSION_LONGOPTS,
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void bcast_parse_opt (struct bcast_opts *o, int c, const char **jobarg)
{
    if (bcast_opt_common (o, c, optarg, jobarg))
        return;
    switch (c) {
    case OPT_EXCLUDE: o->exclude = optarg; break;
    case OPT_SEND_LIBS:
        if (bcast_parse_yes_no (optarg, &o->send_libs) < 0)
            die ("invalid --send-libs value '%s'", optarg);
        break;
    case 's':
        if (bcast_parse_size (optarg, &o->size) < 0)
            die ("invalid size '%s'", optarg);
        break;
    case 'V':
    case VERSION_OPT_USAGE: version_option (c, o->prog, bcast_synopsis); break;
    case 'h': printf (bcast_usage, o->prog); exit (0);
    default: fprintf (stderr, bcast_usage, o->prog); exit (1);
    }
}

static void bcast_parse (struct bcast_opts *o, int argc, char **argv)
{
    const char *jobarg = NULL;
    char why[160];
    int c;

    if (bcast_opts_from_env (o, why, sizeof (why)) < 0)
        die ("%s", why);
    while (
        (c = getopt_long (argc, argv, "C::fF:j:ps:t:vVh", bcast_longopts, NULL))
        != -1)
        bcast_parse_opt (o, c, &jobarg);
    bcast_parse_operands (o, argc, argv, bcast_usage);
    if (bcast_parse_job (o, jobarg, why, sizeof (why)) < 0)
        die ("%s", why);
}

/* --send-libs: each library into DEST_libs/, created on the nodes. */
static int bcast_send_libs (struct bcast_target *t, const char *dest)
{
    struct bcast_libs libs = { 0 };
    arbor_error_t err;
    char why[200];
    int rc = 0;

    if (bcast_libs_find (t->o->source, &libs, why, sizeof (why)) < 0) {
        fprintf (stderr, "%s: error: %s\n", t->o->prog, why);
        return -1;
    }
    bcast_libs_filter (&libs, t->o->exclude);
    for (size_t i = 0; i < libs.n && rc == 0; i++) {
        char *to;
        if (asprintf (&to, "%s_libs/%s", dest, libs.v[i].name) < 0)
            die ("out of memory");
        log_verbose ("library %s (%s)", libs.v[i].name, libs.v[i].path);
        if (bcast_send_file (t, libs.v[i].path, to, true, &err) < 0) {
            fprintf (stderr, "%s: error: %s: %s\n", t->o->prog, libs.v[i].path,
                     err.text);
            rc = -1;
        }
        free (to);
    }
    bcast_libs_clear (&libs);
    return rc;
}

int cmd_bcast_main (int argc, char **argv)
{
    struct bcast_opts o = { .prog = argv[0] };
    struct client cl;
    struct bcast_target t;
    arbor_error_t err;
    char *cwd = getcwd (NULL, 0), *dest;
    int rc = 1;

    log_open (argv[0], LOG_LVL_INFO, NULL);
    bcast_parse (&o, argc, argv);
    if (!cwd || !(dest = bcast_dest_path (o.source, o.dest, cwd)))
        die ("invalid destination '%s'", o.dest);
    if (access (o.source, R_OK) < 0)
        die ("can't open %s: %s", o.source, strerror (errno));
    if (bcast_target_begin (&t, &cl, &o) < 0)
        rc = 1; /* it said why */
    else if (bcast_send_file (&t, o.source, dest, false, &err) < 0)
        fprintf (stderr, "%s: error: %s not sent: %s\n", o.prog, o.source,
                 err.text);
    else if (!o.send_libs || bcast_send_libs (&t, dest) == 0)
        rc = 0;
    bcast_target_end (&t, &cl);
    free (dest);
    free (cwd);
    return rc;
}
