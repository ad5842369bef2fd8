/* cmd_batch.c - "arbor batch" (sbatch): submit a batch script.
 *
 *     arbor batch [OPTIONS] [SCRIPT [ARGS...]]
 *     arbor batch [OPTIONS] --wrap=COMMAND
 *
 * The script comes from SCRIPT, from --wrap (a /bin/sh script running
 * COMMAND) or from stdin. Its options come, weakest first, from its
 * directive lines (#SBATCH or #ARBOR, before its first command), then
 * from the SBATCH_* input variables, then from the command line, as
 * sbatch takes them. They are validated here, before anything is sent:
 * an unknown directive, a script that is not one (no "#!", a binary) or
 * an output directory the user cannot write is refused with the reason,
 * and nothing is submitted. The script, its arguments, the environment
 * (--export, default ALL, with SLURM_UMASK) and the -o/-e/-i patterns
 * go to the controller in one JOB_ALLOC, answered with the job id:
 * "Submitted batch job N" (--parsable: "N"). With --wait (-W) we then
 * wait for the job to be over and exit with its exit code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "cmds.h"
#include "conf.h"
#include "directives.h"
#include "export.h"
#include "log.h"
#include "opt.h"
#include "willrun.h"
#include "optenv.h"
#include "opt_when.h"
#include "proto.h"
#include "version.h"

extern char **environ;

enum {
    BOPT_OUTPUT = 'o',
    BOPT_ERROR = 'e',
    BOPT_INPUT = 'i',
    BOPT_WAIT = 'W',
    BOPT_QUIET = 'Q',
    BOPT_DISTRIBUTION = 'm',
    BOPT_OPEN_MODE = 0x300,
    BOPT_PARSABLE,
    BOPT_WRAP,
    BOPT_EXPORT,
};

static const struct option batch_longopts[] = {
    { "output", required_argument, NULL, BOPT_OUTPUT },
    { "error", required_argument, NULL, BOPT_ERROR },
    { "input", required_argument, NULL, BOPT_INPUT },
    { "open-mode", required_argument, NULL, BOPT_OPEN_MODE },
    { "parsable", no_argument, NULL, BOPT_PARSABLE },
    { "wait", no_argument, NULL, BOPT_WAIT },
    { "wrap", required_argument, NULL, BOPT_WRAP },
    { "export", required_argument, NULL, BOPT_EXPORT },
    { "quiet", no_argument, NULL, BOPT_QUIET },
    { "distribution", required_argument, NULL, BOPT_DISTRIBUTION },
    { NULL, 0, NULL, 0 },
};

/* sbatch's input variables for the options above (and the shared ones). */
static const struct optenv batch_env_opts[] = {
    { "SBATCH_PARTITION", "partition", false },
    { "SBATCH_ACCOUNT", "account", false },
    { "SBATCH_TIMELIMIT", "time", false },
    { "SBATCH_JOB_NAME", "job-name", false },
    { "SBATCH_EXCLUSIVE", "exclusive", true },
    { "SBATCH_MEM_PER_NODE", "mem", false },
    { "SBATCH_MEM_PER_CPU", "mem-per-cpu", false },
    { "SBATCH_SIGNAL", "signal", false },
    { "SBATCH_OUTPUT", "output", false },
    { "SBATCH_ERROR", "error", false },
    { "SBATCH_INPUT", "input", false },
    { "SBATCH_OPEN_MODE", "open-mode", false },
    { "SBATCH_EXPORT", "export", false },
    { "SBATCH_WAIT", "wait", true },
    { "SBATCH_OVERCOMMIT", "overcommit", true },
    { "SBATCH_DISTRIBUTION", "distribution", false },
    { "SBATCH_ARRAY_INX", "array", false },
    { "SBATCH_REQUEUE", "requeue", true },
    { "SBATCH_NO_REQUEUE", "no-requeue", true },
    { "SBATCH_CONSTRAINT", "constraint", false },
    { "SBATCH_GRES", "gres", false },
    { "SBATCH_GPUS", "gpus", false },
    { "SBATCH_GPUS_PER_NODE", "gpus-per-node", false },
    { "SBATCH_GPUS_PER_TASK", "gpus-per-task", false },
    { "SBATCH_CPUS_PER_GPU", "cpus-per-gpu", false },
    { "SBATCH_MEM_PER_GPU", "mem-per-gpu", false },
    { "SBATCH_GPU_BIND", "gpu-bind", false },
    { "SBATCH_GRES_FLAGS", "gres-flags", false },
    { "SBATCH_QOS", "qos", false },
    { NULL, NULL, false },
};

static const char batch_usage[] =
    "Usage: %s [OPTIONS] [SCRIPT [ARGS...]]\n"
    "       %s [OPTIONS] --wrap=COMMAND\n"
    "Submit a batch script (from SCRIPT, --wrap or stdin). Options may also\n"
    "be given in the script on #SBATCH or #ARBOR lines before its first\n"
    "command; the command line wins.\n\n%s\n"
    "Batch options:\n"
    "  -o, --output=PATTERN      stdout of the script (default slurm-%%j.out;\n"
    "                            %%j job, %%x name, %%u user, %%N node, %%A/%%a\n"
    "                            array job/task, %%%% percent)\n"
    "  -e, --error=PATTERN       stderr (default: where stdout goes)\n"
    "  -i, --input=FILE          stdin of the script (default /dev/null)\n"
    "      --open-mode=append|truncate  (default truncate)\n"
    "      --wrap=COMMAND        submit a /bin/sh script running COMMAND\n"
    "      --export=ALL|NONE|VAR[,VAR=VALUE...]  environment of the script\n"
    "      --parsable            print only the job id\n"
    "  -W, --wait                wait for the job to end; exit with its code\n"
    "  -Q, --quiet               print nothing but errors\n"
    "  -m, --distribution=block|cyclic|plane=N|arbitrary  for the script's\n"
    "                            steps (SLURM_DISTRIBUTION)\n"
    "\nWhen the job may start:\n"
    "  -a, --array=INDEXES       a job array: 0-99, 1,3,5, 0-15:4; %%N at\n"
    "                            most N tasks running at once\n"
    "  -d, --dependency=after|afterany|afterok|afternotok:ID[:ID...][,...]\n"
    "                            or singleton; '?' instead of ',': any one\n"
    "      --kill-on-invalid-dep=yes|no  cancel a job whose dependency can\n"
    "                            never be satisfied (default yes)\n"
    "  -H, --hold                submit held (arbor release lets it go)\n"
    "  -b, --begin=TIME          not before TIME (now+1hour, 16:00,\n"
    "                            2030-01-02T03:04, midnight, tomorrow...)\n"
    "      --requeue, --no-requeue  requeue on a node failure (default:\n"
    "                            JobRequeue of arbor.conf)\n";

struct batch_opts {
    struct when_opts when;  /* --array, --dependency, --hold... */
    arbor_error_t when_err; /* why a when option's value is bad */
    char *output, *error, *input;
    int append; /* -1 not given, 0 truncate, 1 append */
    bool parsable, wait, quiet;
    bool first_pass; /* only finding the script: when options unchecked */
    char *wrap;
    char *export_spec;
    char *distribution; /* -m: SLURM_DISTRIBUTION for the script's steps */
};

struct batch_ctx {
    const char *prog;
    struct alloc_opts opt;
    struct batch_opts b;
    char *script; /* the text */
    size_t script_len;
    const char *script_name; /* file, "wrap" or "stdin" for messages */
    char **args;             /* its arguments */
    int nargs;
    char cwd[PATH_MAX];
    struct client cl;
};

static int batch_opt_cb (int c, const char *a, void *arg)
{
    struct batch_opts *b = arg;

    switch (c) {
    case BOPT_OUTPUT: return *a ? opt_set_str (&b->output, a) : -1;
    case BOPT_ERROR: return *a ? opt_set_str (&b->error, a) : -1;
    case BOPT_INPUT: return *a ? opt_set_str (&b->input, a) : -1;
    case BOPT_OPEN_MODE:
        if (!strcasecmp (a, "append") || !strcasecmp (a, "a"))
            b->append = 1;
        else if (!strcasecmp (a, "truncate") || !strcasecmp (a, "t"))
            b->append = 0;
        else
            return -1;
        return 0;
    case BOPT_PARSABLE: b->parsable = true; return 0;
    case BOPT_WAIT: b->wait = true; return 0;
    case BOPT_QUIET: b->quiet = true; return 0;
    case BOPT_WRAP: return opt_set_str (&b->wrap, a);
    case BOPT_EXPORT: return opt_set_str (&b->export_spec, a);
    case BOPT_DISTRIBUTION: return opt_distribution (&b->distribution, a);
    default:
        if (b->first_pass) /* checked once arbor.conf is known */
            return 0;
        return when_opt_one (&b->when, c, a, &b->when_err) == 0 ? 0 : -1;
    }
}

static void batch_opts_clear (struct batch_opts *b)
{
    struct when_opts w = b->when;

    when_opts_clear (&w);
    free (b->output);
    free (b->error);
    free (b->input);
    free (b->wrap);
    free (b->export_spec);
    free (b->distribution);
    memset (b, 0, sizeof (*b));
    b->when = w;
    b->append = -1;
}

/* Our option table: the batch options and when_longopts. */
static const struct option *batch_table (void)
{
    static struct option
        tab[sizeof (batch_longopts) / sizeof (batch_longopts[0])
            + WHEN_NLONGOPTS];
    size_t n = sizeof (batch_longopts) / sizeof (batch_longopts[0]) - 1;

    if (!tab[0].name) {
        memcpy (tab, batch_longopts, n * sizeof (*tab));
        memcpy (tab + n, when_longopts, sizeof (when_longopts));
    }
    return tab;
}

/* Parse argv into ctx->opt and ctx->b; the index of the first argument
 * that is not an option, or exit(1) with the message and 'where'. */
static int batch_parse_into (struct batch_ctx *ctx, int argc, char **argv,
                             const char *where)
{
    struct opt_extra extra = { batch_table (), "o:e:i:WQm:" WHEN_SHORTOPTS,
                               batch_opt_cb, &ctx->b, SLURM_CMD_BATCH };
    arbor_error_t err;
    int ind;

    ctx->b.when_err.text[0] = '\0';
    if ((ind = opt_parse (&ctx->opt, argc, argv, &extra, &err)) < 0) {
        if (ctx->b.when_err.text[0]) /* "sbatch: error: invalid --begin" */
            die ("%s%s", ctx->b.when_err.text, where ? where : "");
        else
            fprintf (stderr, "%s%s\nTry '%s --help' for more information.\n",
                     err.text, where ? where : "", ctx->prog);
        exit (1);
    }
    return ind;
}

/* Pass one over the command line: where the script is, and --wrap. */
static void batch_parse_cli (struct batch_ctx *ctx, int argc, char **argv)
{
    int ind;

    opt_defaults (&ctx->opt);
    ctx->opt.warn_batch_ok = true; /* --signal=B:SIG@TIME */
    when_opts_init (&ctx->b.when);
    batch_opts_clear (&ctx->b);
    ctx->b.first_pass = true;
    ind = batch_parse_into (ctx, argc, argv, NULL);
    if (ctx->opt.help) {
        printf (batch_usage, ctx->prog, ctx->prog, opt_alloc_help);
        exit (0);
    }
    version_alloc (ctx->opt.version, ctx->opt.usage, ctx->prog, "batch");
    if (ctx->b.wrap && ind < argc)
        die ("--wrap and a script file are mutually exclusive");
    if (ctx->b.wrap) {
        if (asprintf (&ctx->script,
                      "#!/bin/sh\n# This script was created by arbor batch "
                      "--wrap.\n\n%s\n",
                      ctx->b.wrap)
            < 0)
            die ("out of memory");
        ctx->script_len = strlen (ctx->script);
        ctx->script_name = "wrap";
    } else if (ind < argc) {
        ctx->script_name = argv[ind];
        ctx->args = argv + ind + 1;
        ctx->nargs = argc - ind - 1;
    }
    opt_clear (&ctx->opt);
    batch_opts_clear (&ctx->b);
}

/* The controller's connection and arbor.conf (MaxArraySize, JobRequeue
 * are needed to check and fill the options). */
static void batch_connect (struct batch_ctx *ctx)
{
    arbor_error_t err;

    if (client_open (&ctx->cl, &err) < 0)
        die ("Batch job submission failed: %s", err.text);
    ctx->b.when.max_array_index =
        ctx->cl.conf->max_array_size ? ctx->cl.conf->max_array_size - 1 : 0;
}

/* Read all of fd (at most PROTO_MAX_SCRIPT bytes). */
static void batch_read_fd (struct batch_ctx *ctx, int fd)
{
    size_t cap = 0;
    ssize_t n;

    for (;;) {
        if (ctx->script_len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            if (!(ctx->script = realloc (ctx->script, cap)))
                die ("out of memory");
        }
        n = read (fd, ctx->script + ctx->script_len, cap - ctx->script_len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die ("cannot read %s: %s", ctx->script_name, strerror (errno));
        if (n == 0)
            break;
        ctx->script_len += (size_t)n;
        if (ctx->script_len > PROTO_MAX_SCRIPT)
            die ("%s is larger than the %u MiB a batch script may be",
                 ctx->script_name, PROTO_MAX_SCRIPT >> 20);
    }
    ctx->script[ctx->script_len] = '\0';
}

/* The script's text, checked to be one. */
static void batch_read_script (struct batch_ctx *ctx)
{
    int fd = 0;

    if (!ctx->script && ctx->script_name) {
        if ((fd = open (ctx->script_name, O_RDONLY | O_CLOEXEC)) < 0)
            die ("cannot open %s: %s", ctx->script_name, strerror (errno));
        batch_read_fd (ctx, fd);
        close (fd);
    } else if (!ctx->script) {
        if (isatty (0))
            die ("no batch script: give a file, --wrap=COMMAND, or the "
                 "script on stdin");
        ctx->script_name = "stdin";
        batch_read_fd (ctx, 0);
    }
    if (memchr (ctx->script, '\0', ctx->script_len))
        die ("%s contains a NUL byte: it is not a batch script (a binary "
             "file?)",
             ctx->script_name);
    if (ctx->script_len < 2 || strncmp (ctx->script, "#!", 2) != 0)
        die ("%s does not look like a batch script: its first line must "
             "start with #! followed by the path of an interpreter",
             ctx->script_name);
}

/* The script's directive lines, parsed into the options; a bad one is
 * named by its line. */
static void batch_parse_directives (struct batch_ctx *ctx)
{
    static const char *const prefixes[] = { "#SBATCH", "#ARBOR", NULL };
    struct opt_extra extra = { batch_table (), "o:e:i:WQm:" WHEN_SHORTOPTS,
                               batch_opt_cb, &ctx->b, SLURM_CMD_BATCH };
    struct directives d;
    arbor_error_t err;
    int ind;

    if (directives_parse (ctx->script, ctx->script_len, prefixes, ctx->prog, &d,
                          &err)
        < 0)
        die ("%s: %s", ctx->script_name, err.text);
    if (d.argc <= 1) {
        directives_clear (&d);
        return;
    }
    if ((ind = opt_parse (&ctx->opt, d.argc, d.argv, &extra, &err)) < 0) {
        /* getopt's optind is past the word it stopped at */
        int at = optind > 1 && optind <= d.argc ? optind - 1 : d.argc - 1;
        size_t plen = strlen (ctx->prog);
        const char *text = err.text;
        if (!strncmp (text, ctx->prog, plen) && !strncmp (text + plen, ": ", 2))
            text += plen + 2; /* the line says where */
        if (ctx->b.when_err.text[0])
            text = ctx->b.when_err.text;
        die ("%s line %u: %s", ctx->script_name, d.lines[at], text);
    }
    if (ind < d.argc)
        die ("%s line %u: unexpected argument '%s' in a directive (options "
             "only)",
             ctx->script_name, d.lines[ind], d.argv[ind]);
    directives_clear (&d);
}

/* The SBATCH_* input variables, then the command line. */
static void batch_parse_rest (struct batch_ctx *ctx, int argc, char **argv)
{
    int eargc;
    char **eargv = optenv_argv (ctx->prog, batch_env_opts, &eargc);

    if (!eargv)
        die ("out of memory");
    if (eargc > 1)
        (void)batch_parse_into (ctx, eargc, eargv,
                                " (from an SBATCH_* variable)");
    optenv_free (eargv);
    (void)batch_parse_into (ctx, argc, argv, NULL);
    if (ctx->opt.jobid)
        die ("--jobid is not valid here");
}

/* The job's working directory, absolute. */
static void batch_cwd (struct batch_ctx *ctx)
{
    char here[PATH_MAX];
    const char *d = ctx->opt.chdir;

    if (!getcwd (here, sizeof (here)))
        snprintf (here, sizeof (here), "/");
    if (!d)
        snprintf (ctx->cwd, sizeof (ctx->cwd), "%s", here);
    else if (d[0] == '/')
        snprintf (ctx->cwd, sizeof (ctx->cwd), "%s", d);
    else if (snprintf (ctx->cwd, sizeof (ctx->cwd), "%s/%s", here, d)
             >= (int)sizeof (ctx->cwd))
        die ("--chdir %s: path too long", d);
}

/* A file pattern the job will use must be usable by us: its directory
 * writable (output) or the file readable (input), when no field of the
 * pattern changes them. Relative paths are from the job's directory. */
static void batch_check_file (const struct batch_ctx *ctx, const char *pat,
                              const char *what, bool input)
{
    char *path, *slash;

    if (!pat || strchr (pat, '\\'))
        return;
    if (asprintf (&path, "%s%s%s", pat[0] == '/' ? "" : ctx->cwd,
                  pat[0] == '/' ? "" : "/", pat)
        < 0)
        die ("out of memory");
    if (input) {
        if (!strchr (path, '%') && access (path, R_OK) < 0)
            die ("cannot read the %s file %s: %s", what, path,
                 strerror (errno));
        free (path);
        return;
    }
    if (!strchr (path, '%') && access (path, W_OK) == 0) {
        free (path); /* there, and ours to write (/dev/null...) */
        return;
    }
    slash = strrchr (path, '/');
    *slash = '\0';
    if (!strchr (path, '%') && access (*path ? path : "/", W_OK | X_OK) < 0)
        die ("cannot write the %s file '%s': directory %s: %s", what, pat,
             *path ? path : "/", strerror (errno));
    free (path);
}

/* The script's output variables that sbatch itself sets in the
 * environment it submits (the controller adds the job's, the stepd the
 * node's: docs/environment.md): SLURM_PRIO_PROCESS, and what the steps
 * inside take over from the options (-m, -O, --export, --open-mode).
 * 0, or -1 with errno ENOMEM. */
static int batch_env (const struct batch_ctx *ctx, char ***env)
{
    const struct batch_opts *b = &ctx->b;

    if (export_prio_process (env) < 0
        || (b->distribution && export_distribution (env, b->distribution) < 0)
        || (ctx->opt.overcommit
            && export_set (env, "SLURM_OVERCOMMIT", "1") < 0)
        || (b->export_spec
            && export_set (env, "SLURM_EXPORT_ENV", b->export_spec) < 0)
        || (b->append >= 0
            && export_set (env, "SLURM_OPEN_MODE", b->append ? "a" : "t") < 0))
        return -1;
    return 0;
}

static void batch_submit (struct batch_ctx *ctx, struct msg_job_submitted *r)
{
    const struct batch_opts *b = &ctx->b;
    char host[256] = "", here[PATH_MAX];
    const char *name = ctx->opt.job_name ? ctx->opt.job_name
                       : b->wrap         ? "wrap"
                       : ctx->script_name && strcmp (ctx->script_name, "stdin")
                           ? basename (ctx->script_name)
                           : "sbatch";
    struct msg_job_alloc req = opt_job_alloc (&ctx->opt, name, ctx->cwd);
    arbor_error_t err;
    char **env, script_path[PATH_MAX] = "";

    /* squeue's %o: the script's absolute path, or the --wrap command */
    if (b->wrap)
        req.command = b->wrap;
    else if (ctx->script_name && strcmp (ctx->script_name, "stdin")
             && realpath (ctx->script_name, script_path))
        req.command = script_path;

    if (!(env = export_env (b->export_spec, environ, &err)))
        die ("%s", err.text);
    if (export_umask (&env) < 0
        || (getcwd (here, sizeof (here))
            && export_set (&env, "SLURM_SUBMIT_DIR", here) < 0)
        || batch_env (ctx, &env) < 0)
        die ("out of memory");
    /* the limits at submission go with the job (rlimits.h) */
    if (export_propagate (&env, ctx->opt.propagate,
                          ctx->cl.conf->propagate_rlimits,
                          ctx->cl.conf->propagate_rlimits_except, NULL, &err)
        < 0)
        die ("%s", err.text);
    gethostname (host, sizeof (host) - 1);
    req.script = ctx->script;
    req.script_len = (uint32_t)ctx->script_len;
    req.script_argv = ctx->args;
    req.script_argv_count = (uint32_t)ctx->nargs;
    req.env = env;
    while (env[req.env_count])
        req.env_count++;
    req.std_out = b->output ? b->output : "";
    req.std_err = b->error ? b->error : "";
    req.std_in = b->input ? b->input : "";
    req.open_append = b->append == 1;
    req.submit_host = host;
    req.slurm_names = !strchr (ctx->prog, ' '); /* sbatch, not arbor batch */
    when_opts_apply (&b->when, ctx->cl.conf, &req);
    if (req.test_only) {
        int rc = willrun_print (&ctx->cl, &req, ctx->prog);
        export_free (env);
        exit (rc);
    }
    if (client_call (&ctx->cl, MSG_JOB_ALLOC, &req, MSG_JOB_SUBMITTED, r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("Batch job submission failed: %s", err.text);
    export_free (env);
}

/* --wait: until the job is over; its exit code becomes ours. */
static int batch_wait (struct batch_ctx *ctx, uint32_t job_id)
{
    struct msg_job_wait w = { .job_id = job_id };
    struct msg_job_ended e;
    arbor_error_t err;
    int rc;

    if (client_call (&ctx->cl, MSG_JOB_WAIT, &w, MSG_JOB_ENDED, &e, 0, &err)
        < 0)
        die ("waiting for job %u: %s", job_id, err.text);
    rc = e.exit_code < 0 || e.exit_code > 255 ? 1 : e.exit_code;
    if (rc == 0 && e.state && strcmp (e.state, "COMPLETED") != 0)
        rc = 1;
    if (ctx->opt.verbose || (rc != 0 && !ctx->b.quiet))
        log_info ("job %u ended %s%s%s (exit code %d)", job_id, e.state,
                  e.reason && *e.reason ? ": " : "", e.reason ? e.reason : "",
                  e.exit_code);
    proto_clear (MSG_JOB_ENDED, &e);
    return rc;
}

int cmd_batch_main (int argc, char **argv)
{
    struct batch_ctx ctx = { .prog = argv[0] };
    struct msg_job_submitted r;
    int rc = 0;

    log_open (argv[0], LOG_LVL_INFO, NULL); /* "sbatch: error: ..." */
    ctx.cl.ch.fd = -1;
    batch_parse_cli (&ctx, argc, argv);
    batch_connect (&ctx);
    batch_read_script (&ctx);
    opt_defaults (&ctx.opt);
    ctx.opt.warn_batch_ok = true;
    batch_opts_clear (&ctx.b);
    batch_parse_directives (&ctx);
    batch_parse_rest (&ctx, argc, argv);
    batch_cwd (&ctx);
    batch_check_file (&ctx, ctx.b.output ? ctx.b.output : "slurm-%j.out",
                      "output", false);
    batch_check_file (&ctx, ctx.b.error, "error", false);
    batch_check_file (&ctx, ctx.b.input, "input", true);
    batch_submit (&ctx, &r);
    if (ctx.b.parsable)
        printf ("%u\n", r.job_id);
    else if (!ctx.b.quiet)
        printf ("Submitted batch job %u\n", r.job_id);
    fflush (stdout);
    if (ctx.b.wait)
        rc = batch_wait (&ctx, r.job_id);
    client_close (&ctx.cl);
    opt_clear (&ctx.opt);
    batch_opts_clear (&ctx.b);
    free (ctx.script);
    return rc;
}
