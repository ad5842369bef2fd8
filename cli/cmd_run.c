/* cmd_run.c - "arbor run" (srun): run a parallel command on the cluster.
 *
 * Parses the options (the allocation options of opt.h, srun's I/O and step
 * options, and their SLURM_* input variables) and hands them to the
 * launcher in cli/run/ (run/run.h), whose status is the command's: 128 +
 * the largest signal that killed a task, else the highest exit code; 1 if
 * the launch failed.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmds.h"
#include "conf.h"
#include "log.h"
#include "mpi.h"
#include "proto.h"
#include "run/run.h"

enum {
    OPT_LABEL = 'l',
    OPT_UNBUFFERED = 'u',
    OPT_OUTPUT = 'o',
    OPT_ERROR = 'e',
    OPT_INPUT = 'i',
    OPT_KILL_BAD_EXIT = 'K',
    OPT_EXPORT = 0x200,
    OPT_MPI,
};

static const struct option run_longopts[] = {
    { "label", no_argument, NULL, OPT_LABEL },
    { "unbuffered", no_argument, NULL, OPT_UNBUFFERED },
    { "output", required_argument, NULL, OPT_OUTPUT },
    { "error", required_argument, NULL, OPT_ERROR },
    { "input", required_argument, NULL, OPT_INPUT },
    { "kill-on-bad-exit", optional_argument, NULL, OPT_KILL_BAD_EXIT },
    { "export", required_argument, NULL, OPT_EXPORT },
    { "mpi", required_argument, NULL, OPT_MPI },
    { NULL, 0, NULL, 0 },
};

static const char run_usage[] =
    "Usage: %s [OPTIONS] COMMAND [ARGS...]\n"
    "Run COMMAND as a parallel job step.\n\n"
    "%s\n"
    "I/O options:\n"
    "  -l, --label               prefix output lines with the task rank\n"
    "  -u, --unbuffered          do not line-buffer task output\n"
    "  -o, --output=PATTERN      stdout to file (%%j job, %%s step, %%t task,\n"
    "                            %%N node, %%%% percent)\n"
    "  -e, --error=PATTERN       stderr to file (default: where -o goes)\n"
    "  -i, --input=all|none|N    stdin to every task (default), none, task N\n"
    "\nStep options:\n"
    "  -K, --kill-on-bad-exit[=0|1]  end the step when a task exits non-zero\n"
    "                            (default: KillOnBadExit of arbor.conf)\n"
    "      --export=ALL|NONE|VAR[,VAR=VALUE...]\n"
    "                            environment of the tasks (default ALL;\n"
    "                            NONE and lists keep only SLURM_*/ARBOR_*\n"
    "                            plus the named variables, unless ALL\n"
    "                            comes first)\n"
    "      --mpi=TYPE            MPI support: none, pmix (pmix_v3, pmix_v4),\n"
    "                            pmi2; list shows those installed (default:\n"
    "                            MpiDefault of arbor.conf)\n";

/* -i all|none|N */
static int run_parse_input (const char *s, int32_t *task)
{
    uint32_t n;

    if (!strcasecmp (s, "all"))
        *task = STDIN_ALL;
    else if (!strcasecmp (s, "none"))
        *task = STDIN_NONE;
    else if (opt_parse_count (s, true, &n) == 0 && n <= INT32_MAX)
        *task = (int32_t)n;
    else
        return -1;
    return 0;
}

static int run_set_str (char **dst, const char *s)
{
    free (*dst);
    return (*dst = strdup (s)) ? 0 : -1;
}

/* -K, -K1, -K0, --kill-on-bad-exit[=0|1] */
static int run_parse_kill (const char *s, int *out)
{
    if (!s || !strcmp (s, "1"))
        *out = 1;
    else if (!strcmp (s, "0"))
        *out = 0;
    else
        return -1;
    return 0;
}

/* --mpi=TYPE (checked now, so a typo fails before anything is
 * allocated) or list. */
static int run_parse_mpi (const char *s, char **dst)
{
    if (!strcasecmp (s, "list")) {
        char **types = mpi_list (NULL);
        printf ("MPI plugin types are...\n");
        for (size_t i = 0; types && types[i]; i++) {
            printf ("\t%s\n", types[i]);
            free (types[i]);
        }
        free (types);
        exit (0);
    }
    if (!conf_mpi_type (s)) {
        fprintf (stderr,
                 "invalid MPI type '%s' (none, pmix, pmi2; "
                 "--mpi=list shows those installed)\n",
                 s);
        return -1;
    }
    return run_set_str (dst, s);
}

static int run_opt_cb (int c, const char *arg, void *data)
{
    struct run_opts *o = data;

    switch (c) {
    case OPT_LABEL: o->label = true; return 0;
    case OPT_UNBUFFERED: o->unbuffered = true; return 0;
    case OPT_OUTPUT: return *arg ? run_set_str (&o->output, arg) : -1;
    case OPT_ERROR: return *arg ? run_set_str (&o->error, arg) : -1;
    case OPT_INPUT: return run_parse_input (arg, &o->stdin_task);
    case OPT_KILL_BAD_EXIT: return run_parse_kill (arg, &o->kill_bad_exit);
    case OPT_EXPORT: return *arg ? run_set_str (&o->export_spec, arg) : -1;
    case OPT_MPI: return run_parse_mpi (arg, &o->mpi);
    default: return -1;
    }
}

/* srun's input environment for the I/O options. */
static void run_opts_env (struct run_opts *o)
{
    const char *s;

    if ((s = getenv ("SLURM_LABELIO")) && *s && strcmp (s, "0") != 0)
        o->label = true;
    if ((s = getenv ("SLURM_STDINMODE")) && *s)
        run_parse_input (s, &o->stdin_task);
    if ((s = getenv ("SLURM_STDOUTMODE")) && *s)
        run_set_str (&o->output, s);
    if ((s = getenv ("SLURM_STDERRMODE")) && *s)
        run_set_str (&o->error, s);
    if ((s = getenv ("SLURM_KILL_BAD_EXIT")) && *s)
        run_parse_kill (s, &o->kill_bad_exit);
    if ((s = getenv ("SLURM_EXPORT_ENV")) && *s)
        run_set_str (&o->export_spec, s);
    if ((s = getenv ("SLURM_MPI_TYPE")) && *s)
        run_set_str (&o->mpi, s); /* checked when the step starts */
}

/* Options into *o, exiting on --help, --version or a usage error.
 * Returns the index of the command in argv. */
static int run_parse (struct run_opts *o, const char *prog, int argc,
                      char **argv)
{
    struct opt_extra extra = {
        .longopts = run_longopts,
        .shortopts = "luo:e:i:K::",
        .cb = run_opt_cb,
        .arg = o,
    };
    arbor_error_t err;
    int ind;

    opt_init (&o->alloc);
    o->stdin_task = STDIN_ALL;
    o->kill_bad_exit = -1;
    run_opts_env (o);
    if ((ind = opt_parse (&o->alloc, argc, argv, &extra, &err)) < 0) {
        fprintf (stderr, "%s\nTry '%s --help' for more information.\n",
                 err.text, prog);
        exit (1);
    }
    if (o->alloc.help) {
        printf (run_usage, prog, opt_alloc_help);
        exit (0);
    }
    if (o->alloc.version) {
        printf ("arbor %s\n", ARBOR_VERSION);
        exit (0);
    }
    if (ind >= argc) {
        fprintf (stderr,
                 "%s: no command to run\n"
                 "Try '%s --help' for more information.\n",
                 prog, prog);
        exit (1);
    }
    return ind;
}

static void run_opts_clear (struct run_opts *o)
{
    free (o->export_spec);
    free (o->mpi);
    free (o->output);
    free (o->error);
    opt_clear (&o->alloc);
}

int cmd_run_main (int argc, char **argv)
{
    struct run_opts opt = { 0 };
    int ind, rc;

    log_open ("arbor", LOG_LVL_INFO, NULL);
    signal (SIGPIPE, SIG_IGN);
    ind = run_parse (&opt, argv[0], argc, argv);
    rc = run_step (argv[0], &opt, argc - ind, argv + ind);
    run_opts_clear (&opt);
    return rc;
}
