/* cmd_run.c - "arbor run" (srun): run a parallel command on the cluster.
 *
 * Parses the options (the allocation options of opt.h, srun's I/O and step
 * options) and hands them to the launcher in cli/run/ (run/run.h), whose
 * status is the command's: 128 + the largest signal that killed a task,
 * else the highest exit code; 1 if the launch failed. srun's input
 * variables (SLURM_NTASKS, SLURM_DISTRIBUTION, ...: run_env_opts) are
 * read first, as options through optenv.h, so they are checked with the
 * same words; the command line then wins.
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
#include "cpubind.h"
#include "distrib.h"
#include "log.h"
#include "mpi.h"
#include "optenv.h"
#include "proto.h"
#include "version.h"
#include "run/run.h"

enum {
    OPT_LABEL = 'l',
    OPT_UNBUFFERED = 'u',
    OPT_OUTPUT = 'o',
    OPT_ERROR = 'e',
    OPT_INPUT = 'i',
    OPT_KILL_BAD_EXIT = 'K',
    OPT_DISTRIBUTION = 'm',
    OPT_QUIET = 'Q',
    OPT_IMMEDIATE = 'I',
    OPT_EXPORT = 0x200,
    OPT_MPI,
    OPT_MULTI_PROG,
    OPT_QUIT_ON_INTERRUPT,
    OPT_CPU_BIND,
    OPT_OVERLAP,
    OPT_EXACT,
    OPT_PTY,
    OPT_INTERACTIVE,
    OPT_PRESERVE_ENV = 'E',
    OPT_TASK_PROLOG = 0x280,
    OPT_TASK_EPILOG,
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
    { "distribution", required_argument, NULL, OPT_DISTRIBUTION },
    { "multi-prog", no_argument, NULL, OPT_MULTI_PROG },
    { "quiet", no_argument, NULL, OPT_QUIET },
    { "quit-on-interrupt", no_argument, NULL, OPT_QUIT_ON_INTERRUPT },
    { "cpu-bind", required_argument, NULL, OPT_CPU_BIND },
    { "cpu_bind", required_argument, NULL, OPT_CPU_BIND }, /* Slurm's old */
    { "overlap", no_argument, NULL, OPT_OVERLAP },
    { "exact", no_argument, NULL, OPT_EXACT },
    { "immediate", optional_argument, NULL, OPT_IMMEDIATE },
    { "pty", no_argument, NULL, OPT_PTY },
    { "interactive", no_argument, NULL, OPT_INTERACTIVE },
    { "preserve-env", no_argument, NULL, OPT_PRESERVE_ENV },
    { "task-prolog", required_argument, NULL, OPT_TASK_PROLOG },
    { "task-epilog", required_argument, NULL, OPT_TASK_EPILOG },
    { NULL, 0, NULL, 0 },
};

/* srun's input variables, in the order they are applied (a later one
 * wins: SLURM_NTASKS over SLURM_NPROCS, SRUN_EXPORT_ENV over
 * SLURM_EXPORT_ENV). SLURM_JOB_NAME is not read: every task of a job
 * inherits it, and a step would take the job's name. */
static const struct optenv run_env_opts[] = {
    { "SLURM_NPROCS", "ntasks", false },
    { "SLURM_NTASKS", "ntasks", false },
    { "SLURM_NNODES", "nodes", false },
    { "SLURM_CPUS_PER_TASK", "cpus-per-task", false },
    { "SLURM_NTASKS_PER_NODE", "ntasks-per-node", false },
    { "SLURM_DISTRIBUTION", "distribution", false },
    { "SLURM_CPU_BIND", "cpu-bind", false },
    { "SLURM_OVERCOMMIT", "overcommit", true },
    { "SLURM_OVERLAP", "overlap", true },
    { "SLURM_EXACT", "exact", true },
    { "SLURM_EXCLUSIVE", "exclusive", true },
    { "SLURM_IMMEDIATE", "immediate", false },
    { "SLURM_PARTITION", "partition", false },
    { "SLURM_TIMELIMIT", "time", false },
    { "SLURM_MEM_PER_NODE", "mem", false },
    { "SLURM_MEM_PER_CPU", "mem-per-cpu", false },
    { "SLURM_SIGNAL", "signal", false },
    { "SLURM_WORKING_DIR", "chdir", false },
    { "SLURM_LABELIO", "label", true },
    { "SLURM_UNBUFFEREDIO", "unbuffered", true },
    { "SLURM_STDINMODE", "input", false },
    { "SLURM_STDOUTMODE", "output", false },
    { "SLURM_STDERRMODE", "error", false },
    { "SLURM_KILL_BAD_EXIT", "kill-on-bad-exit", false },
    { "SLURM_EXPORT_ENV", "export", false },
    { "SRUN_EXPORT_ENV", "export", false },
    { "SLURM_MPI_TYPE", "mpi", false },
    { "SLURM_TASK_PROLOG", "task-prolog", false },
    { "SLURM_TASK_EPILOG", "task-epilog", false },
    { "SLURM_CONSTRAINT", "constraint", false },
    { "SLURM_GRES", "gres", false },
    { "SLURM_GPUS", "gpus", false },
    { "SLURM_GPUS_PER_NODE", "gpus-per-node", false },
    { "SLURM_GPUS_PER_TASK", "gpus-per-task", false },
    { "SLURM_CPUS_PER_GPU", "cpus-per-gpu", false },
    { "SLURM_MEM_PER_GPU", "mem-per-gpu", false },
    { "SLURM_GPU_BIND", "gpu-bind", false },
    { "SLURM_GRES_FLAGS", "gres-flags", false },
    { "SLURM_QOS", "qos", false },
    { NULL, NULL, false },
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
    "  -i, --input=all|none|N|FILE  stdin to every task (default), none,\n"
    "                            task N, or from FILE (a pattern as -o's,\n"
    "                            opened on each task's node)\n"
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
    "                            MpiDefault of arbor.conf)\n"
    "  -m, --distribution=block|cyclic|plane=N|arbitrary\n"
    "                            which ranks each node runs (default block;\n"
    "                            arbitrary: one host a rank in the file\n"
    "                            named by SLURM_HOSTFILE)\n"
    "      --multi-prog          COMMAND is a file giving each task its\n"
    "                            program: 'RANKS PROGRAM ARGS' lines (%%t\n"
    "                            rank, %%o offset in RANKS)\n"
    "      --cpu-bind=[verbose,]none|cores|map_cpu:LIST\n"
    "                            binding of the tasks to CPUs (with\n"
    "                            TaskPlugin=affinity; default cores)\n"
    "      --overlap             share the cores of the job's other steps\n"
    "      --exact               only the cores the step asks for\n"
    "  -I, --immediate[=SECS]    fail if the step cannot start within SECS\n"
    "                            (at once without SECS)\n"
    "  -Q, --quiet               print errors only\n"
    "      --pty                 task 0 on a pseudo-terminal (an interactive\n"
    "                            shell: arbor run --pty bash); the output of\n"
    "                            the other tasks is dropped\n"
    "      --interactive         the job's interactive step (what arbor\n"
    "                            alloc runs its shell in)\n"
    "      --quit-on-interrupt   one Ctrl-C ends the step (not a status)\n"
    "  -E, --preserve-env        pass SLURM_NTASKS and SLURM_JOB_NUM_NODES\n"
    "                            on as they are, not the step's\n"
    "      --task-prolog=PROG    run PROG before each task (after\n"
    "                            TaskProlog); its 'export', 'unset' and\n"
    "                            'print' lines change the task\n"
    "      --task-epilog=PROG    run PROG after each task (before\n"
    "                            TaskEpilog)\n";

/* -i all|none|N|FILE (a file name pattern: %t, %n, %N... as -o's) */
static int run_parse_input (const char *s, struct run_opts *o)
{
    uint32_t n;

    free (o->input_file);
    o->input_file = NULL;
    if (!strcasecmp (s, "all"))
        o->stdin_task = STDIN_ALL;
    else if (!strcasecmp (s, "none"))
        o->stdin_task = STDIN_NONE;
    else if (opt_parse_count (s, true, &n) == 0 && n <= INT32_MAX)
        o->stdin_task = (int32_t)n;
    else if (!*s || !(o->input_file = strdup (s)))
        return -1;
    else
        o->stdin_task = STDIN_NONE;
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

/* -m: checked now, stored canonical ("plane=4"). "plane" without a size
 * takes SLURM_DIST_PLANESIZE, as srun does. */
static int run_parse_distribution (const char *s, char **dst)
{
    const char *size = getenv ("SLURM_DIST_PLANESIZE");
    enum distrib d;
    uint32_t plane;
    char buf[128];
    arbor_error_t err;

    if (!strncasecmp (s, "plane", 5) && strchr (":,", s[5]) && size && *size
        && snprintf (buf, sizeof (buf), "plane=%s%s", size, s + 5)
               < (int)sizeof (buf))
        s = buf;
    if (distrib_parse (s, &d, &plane, &err) < 0)
        return -1; /* opt_parse says "invalid --distribution 'x'" */
    if (d == DISTRIB_PLANE)
        snprintf (buf, sizeof (buf), "plane=%u", plane);
    else
        snprintf (buf, sizeof (buf), "%s", distrib_name (d));
    return run_set_str (dst, buf);
}

/* --cpu-bind: checked now, stored canonical. */
static int run_parse_cpu_bind (const char *s, char **dst)
{
    struct cpubind b;
    arbor_error_t err;
    char *text;

    if (cpubind_parse (s, &b, &err) < 0)
        return -1; /* opt_parse says "invalid --cpu-bind 'x'" */
    text = cpubind_text (&b);
    cpubind_clear (&b);
    if (!text)
        return -1;
    free (*dst);
    *dst = text;
    return 0;
}

/* -I, -I SECS, --immediate[=SECS] ("" from SLURM_IMMEDIATE: at once). */
static int run_parse_immediate (const char *s, int *out)
{
    uint32_t n;

    if (!s || !*s) {
        *out = 0;
        return 0;
    }
    if (opt_parse_count (s, true, &n) < 0 || n > INT32_MAX)
        return -1;
    *out = (int)n;
    return 0;
}

/* The flags among srun's own options. */
static int run_opt_flag (int c, struct run_opts *o)
{
    switch (c) {
    case OPT_LABEL: o->label = true; return 0;
    case OPT_UNBUFFERED: o->unbuffered = true; return 0;
    case OPT_MULTI_PROG: o->multi_prog = true; return 0;
    case OPT_QUIET: o->quiet = true; return 0;
    case OPT_QUIT_ON_INTERRUPT: o->quit_on_interrupt = true; return 0;
    case OPT_OVERLAP: o->overlap = true; return 0;
    case OPT_EXACT: o->exact = true; return 0;
    case OPT_PTY: o->pty = true; return 0;
    case OPT_INTERACTIVE: o->interactive = true; return 0;
    case OPT_PRESERVE_ENV: o->preserve_env = true; return 0;
    default: return 1;
    }
}

static int run_opt_cb (int c, const char *arg, void *data)
{
    struct run_opts *o = data;
    int rc = run_opt_flag (c, o);

    if (rc <= 0)
        return rc;
    switch (c) {
    case OPT_OUTPUT: return *arg ? run_set_str (&o->output, arg) : -1;
    case OPT_ERROR: return *arg ? run_set_str (&o->error, arg) : -1;
    case OPT_INPUT: return run_parse_input (arg, o);
    case OPT_KILL_BAD_EXIT: return run_parse_kill (arg, &o->kill_bad_exit);
    case OPT_EXPORT: return *arg ? run_set_str (&o->export_spec, arg) : -1;
    case OPT_MPI: return run_parse_mpi (arg, &o->mpi);
    case OPT_DISTRIBUTION:
        return run_parse_distribution (arg, &o->distribution);
    case OPT_CPU_BIND: return run_parse_cpu_bind (arg, &o->cpu_bind);
    case OPT_IMMEDIATE: return run_parse_immediate (arg, &o->immediate);
    case OPT_TASK_PROLOG: return *arg ? run_set_str (&o->task_prolog, arg) : -1;
    case OPT_TASK_EPILOG: return *arg ? run_set_str (&o->task_epilog, arg) : -1;
    default: return -1;
    }
}

/* srun's input variables (run_env_opts), as options; exits on a bad
 * one, naming it. */
static void run_parse_env (struct run_opts *o, const char *prog,
                           const struct opt_extra *extra)
{
    int eargc;
    char **eargv = optenv_argv (prog, run_env_opts, &eargc);
    arbor_error_t err;

    if (!eargv) {
        fprintf (stderr, "%s: out of memory\n", prog);
        exit (1);
    }
    if (eargc > 1 && opt_parse (&o->alloc, eargc, eargv, extra, &err) < 0) {
        fprintf (stderr, "%s (from a SLURM_* variable)\n", err.text);
        exit (1);
    }
    optenv_free (eargv);
}

/* What srun settles after parsing: -N above -n, -Q. */
static void run_parse_finish (struct run_opts *o)
{
    struct alloc_opts *a = &o->alloc;

    if (o->quiet)
        log_set_level (LOG_LVL_ERR);
    if (a->ntasks && a->nnodes > a->ntasks) {
        log_warn ("can't run %u processes on %u nodes, setting nnodes to %u",
                  a->ntasks, a->nnodes, a->ntasks);
        a->nnodes = a->ntasks;
    }
    /* srun since Slurm 21.08: a step that says how many CPUs its tasks
     * need takes only those, so that steps side by side share the job */
    if (a->cpus_per_task_set)
        o->exact = true;
    if (o->pty) { /* as srun: stdin to task 0, output as it comes */
        o->stdin_task = 0;
        o->unbuffered = true;
    }
}

/* Options into *o, exiting on --help, --version or a usage error.
 * Returns the index of the command in argv. */
static int run_parse (struct run_opts *o, const char *prog, int argc,
                      char **argv)
{
    struct opt_extra extra = {
        .longopts = run_longopts,
        .shortopts = "luo:e:i:K::m:QI::E",
        .cb = run_opt_cb,
        .arg = o,
        .cmd = SLURM_CMD_RUN,
    };
    arbor_error_t err;
    int ind;

    opt_defaults (&o->alloc);
    o->stdin_task = STDIN_ALL;
    o->kill_bad_exit = -1;
    o->immediate = -1;
    run_parse_env (o, prog, &extra);
    if ((ind = opt_parse (&o->alloc, argc, argv, &extra, &err)) < 0) {
        fprintf (stderr, "%s\nTry '%s --help' for more information.\n",
                 err.text, prog);
        exit (1);
    }
    if (o->alloc.help) {
        printf (run_usage, prog, opt_alloc_help);
        exit (0);
    }
    version_alloc (o->alloc.version, o->alloc.usage, prog, "run");
    if (ind >= argc) {
        fprintf (stderr,
                 "%s: no command to run\n"
                 "Try '%s --help' for more information.\n",
                 prog, prog);
        exit (1);
    }
    run_parse_finish (o);
    return ind;
}

static void run_opts_clear (struct run_opts *o)
{
    free (o->export_spec);
    free (o->mpi);
    free (o->output);
    free (o->error);
    free (o->distribution);
    free (o->cpu_bind);
    free (o->task_prolog);
    free (o->task_epilog);
    free (o->input_file);
    opt_clear (&o->alloc);
}

int cmd_run_main (int argc, char **argv)
{
    struct run_opts opt = { 0 };
    int ind, rc;

    /* "srun: error: ..." as srun; "arbor: error: ..." as arbor run */
    log_open (strchr (argv[0], ' ') ? "arbor" : argv[0], LOG_LVL_INFO, NULL);
    signal (SIGPIPE, SIG_IGN);
    rlimits_capture (&opt.limits); /* what --propagate sends */
    ind = run_parse (&opt, argv[0], argc, argv);
    rc = run_step (argv[0], &opt, argc - ind, argv + ind);
    run_opts_clear (&opt);
    return rc;
}
