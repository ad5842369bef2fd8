/* cmd_run.c - "arbor run" (srun): run a parallel command on the cluster.
 *
 * Parses the options, then drives the launcher's stages (run.h): allocate
 * or join a job, create a step, listen for the stepds, send LAUNCH to node
 * zero, run the event loop until every task has ended and every stepd
 * connection closed, then complete the step (and the job if we made it)
 * and exit with srun's status: 128 + the largest signal that killed a
 * task, else the highest exit code; 1 if the launch failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmds.h"
#include "conf.h"
#include "export.h"
#include "hostlist.h"
#include "log.h"
#include "run.h"

extern char **environ;

enum {
    OPT_LABEL = 'l',
    OPT_UNBUFFERED = 'u',
    OPT_OUTPUT = 'o',
    OPT_ERROR = 'e',
    OPT_INPUT = 'i',
    OPT_KILL_BAD_EXIT = 'K',
    OPT_EXPORT = 0x200,
};

static const struct option run_longopts[] = {
    { "label", no_argument, NULL, OPT_LABEL },
    { "unbuffered", no_argument, NULL, OPT_UNBUFFERED },
    { "output", required_argument, NULL, OPT_OUTPUT },
    { "error", required_argument, NULL, OPT_ERROR },
    { "input", required_argument, NULL, OPT_INPUT },
    { "kill-on-bad-exit", optional_argument, NULL, OPT_KILL_BAD_EXIT },
    { "export", required_argument, NULL, OPT_EXPORT },
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
    "                            comes first)\n";

void run_verbose (const struct run_ctx *ctx, const char *fmt, ...)
{
    va_list ap;

    if (ctx->opt.alloc.verbose <= 0)
        return;
    va_start (ap, fmt);
    log_vmsg (LOG_LVL_INFO, fmt, ap);
    va_end (ap);
}

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
}

static void run_parse (struct run_ctx *ctx, int argc, char **argv)
{
    struct opt_extra extra = {
        .longopts = run_longopts, .shortopts = "luo:e:i:K::",
        .cb = run_opt_cb, .arg = &ctx->opt,
    };
    arbor_error_t err;
    int ind;

    opt_init (&ctx->opt.alloc);
    ctx->opt.stdin_task = STDIN_ALL;
    ctx->opt.kill_bad_exit = -1;
    run_opts_env (&ctx->opt);
    if ((ind = opt_parse (&ctx->opt.alloc, argc, argv, &extra, &err)) < 0) {
        fprintf (stderr, "%s\nTry '%s --help' for more information.\n",
                 err.text, ctx->prog);
        exit (1);
    }
    if (ctx->opt.alloc.help) {
        printf (run_usage, ctx->prog, opt_alloc_help);
        exit (0);
    }
    if (ctx->opt.alloc.version) {
        printf ("arbor %s\n", ARBOR_VERSION);
        exit (0);
    }
    if (ind >= argc) {
        fprintf (stderr, "%s: no command to run\n"
                 "Try '%s --help' for more information.\n", ctx->prog,
                 ctx->prog);
        exit (1);
    }
    ctx->argv = argv + ind;
    ctx->argc = argc - ind;
    ctx->opt.stdin_task = run_stdin_mode (ctx->opt.stdin_task);
}

/* Closed standard descriptors would be reused by our sockets (and stdin
 * read from the controller's); point them at /dev/null instead. */
static void run_std_fds (void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl (fd, F_GETFD) < 0) {
            int n = open ("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd) {
                dup2 (n, fd);
                close (n);
            }
        }
    }
}

/* The tasks' working directory, absolute. */
static int run_cwd (struct run_ctx *ctx)
{
    char here[PATH_MAX];
    const char *d = ctx->opt.alloc.chdir;

    if (!getcwd (here, sizeof (here)))
        snprintf (here, sizeof (here), "/");
    if (d && d[0] == '/')
        ctx->cwd = strdup (d);
    else if (d && asprintf (&ctx->cwd, "%s/%s", here, d) < 0)
        ctx->cwd = NULL;
    else if (!d)
        ctx->cwd = strdup (here);
    return ctx->cwd ? 0 : -1;
}

/* The job to run in without allocating: --jobid, $ARBOR_JOB_ID or
 * $SLURM_JOB_ID; 0 if none. */
static uint32_t run_existing_job (const struct run_ctx *ctx)
{
    const char *vars[] = { "ARBOR_JOB_ID", "SLURM_JOB_ID" };
    uint32_t id;

    if (ctx->opt.alloc.jobid)
        return ctx->opt.alloc.jobid;
    for (size_t i = 0; i < sizeof (vars) / sizeof (vars[0]); i++) {
        const char *s = getenv (vars[i]);
        if (s && opt_parse_count (s, false, &id) == 0)
            return id;
    }
    return 0;
}

int run_allocate (struct run_ctx *ctx)
{
    const struct alloc_opts *o = &ctx->opt.alloc;
    char *name = o->job_name ? o->job_name : basename (ctx->argv[0]);
    struct msg_job_alloc req = {
        .name = name, .partition = o->partition ? o->partition : "",
        .nnodes = o->nnodes, .ntasks = o->ntasks,
        .cpus_per_task = o->cpus_per_task,
        .ntasks_per_node = o->ntasks_per_node,
        .nodelist = o->nodelist ? o->nodelist : "",
        .exclude = o->exclude ? o->exclude : "",
        .time_limit = o->time_limit, .mem_mb = o->mem_mb,
        .exclusive = o->exclusive, .cwd = ctx->cwd,
        .mem_per_cpu_mb = o->mem_per_cpu_mb,
        .warn_signal = o->warn_signal, .warn_time = o->warn_time,
    };
    struct msg_job_allocated a;
    arbor_error_t err;

    if ((ctx->job_id = run_existing_job (ctx))) {
        run_verbose (ctx, "using job %u", ctx->job_id);
        return 0;
    }
    if (client_alloc (&ctx->cl, &req, &a, &err) < 0) {
        log_err ("Unable to allocate resources: %s", err.text);
        return -1;
    }
    ctx->allocated = true;
    ctx->job_id = a.job_id;
    run_verbose (ctx, "job %u allocated %s", a.job_id, a.nodelist);
    proto_clear (MSG_JOB_ALLOCATED, &a);
    return 0;
}

int run_step_create (struct run_ctx *ctx)
{
    const struct alloc_opts *o = &ctx->opt.alloc;
    bool joined = !ctx->allocated;
    struct msg_step_create req = {
        .job_id = ctx->job_id,
        .name = o->job_name ? o->job_name : basename (ctx->argv[0]),
        .nnodes = o->nnodes, .ntasks = o->ntasks,
        .cpus_per_task = o->cpus_per_task,
        .ntasks_per_node = o->ntasks_per_node,
        .nodelist = joined && o->nodelist ? o->nodelist : "",
        .exclude = joined && o->exclude ? o->exclude : "",
        .mem_mb = o->mem_mb,
    };
    uint32_t n = 0;
    arbor_error_t err;

    if (client_step_create (&ctx->cl, &req, &ctx->step, &err) < 0) {
        log_err ("Unable to create step for job %u: %s", ctx->job_id,
                 err.text);
        return -1;
    }
    ctx->have_step = true;
    for (uint32_t i = 0; i < ctx->step.tasks_count; i++)
        n += ctx->step.tasks[i];
    run_verbose (ctx, "step %u.%u: %u tasks on %s", ctx->job_id,
                 ctx->step.step_id, n, ctx->step.nodelist);
    if (tasks_init (&ctx->tasks, n) < 0)
        return -1;
    return 0;
}

/* Output routing, now that job, step and task count are known. */
static int run_output_create (struct run_ctx *ctx)
{
    struct output_cfg cfg = {
        .job_id = ctx->job_id, .step_id = ctx->step.step_id,
        .ntasks = ctx->tasks.n, .label = ctx->opt.label,
        .unbuffered = ctx->opt.unbuffered,
        .out_pattern = ctx->opt.output, .err_pattern = ctx->opt.error,
    };

    if (!(ctx->out = output_create (&cfg))) {
        log_err ("out of memory");
        return -1;
    }
    return 0;
}

int run_finish (struct run_ctx *ctx)
{
    int rc = ctx->launch_failed ? 1 : tasks_exit_code (&ctx->tasks);
    arbor_error_t err;

    if (ctx->out && output_flush (ctx->out, &err) < 0 && !ctx->out_error)
        log_err ("%s", err.text);
    run_term_summary (ctx);
    if (ctx->have_step
        && client_step_complete (&ctx->cl, ctx->job_id, ctx->step.step_id,
                                 rc, &err) < 0)
        run_verbose (ctx, "step complete: %s", err.text);
    if (ctx->allocated
        && client_job_complete (&ctx->cl, ctx->job_id, rc, &err) < 0)
        run_verbose (ctx, "job complete: %s", err.text);
    return rc;
}

void run_timer_start (struct run_ctx *ctx, ev_timer *w,
                      void (*cb) (struct ev_loop *, ev_timer *, int),
                      double after)
{
    /* The loop's cached time is from its last iteration, or from before
     * the allocation when the loop has not run yet: a job that queued for
     * longer than 'after' would otherwise time out at once. */
    ev_now_update (ctx->loop);
    ev_timer_init (w, cb, after, 0.);
    w->data = ctx;
    ev_timer_start (ctx->loop, w);
}

static void run_ctx_free (struct run_ctx *ctx)
{
    run_signals_stop (ctx);
    run_term_stop (ctx);
    run_io_stop (ctx);
    output_destroy (ctx->out);
    tasks_clear (&ctx->tasks);
    if (ctx->have_step)
        proto_clear (MSG_STEP_CREATED, &ctx->step);
    client_close (&ctx->cl);
    free (ctx->cwd);
    export_free (ctx->env);
    free (ctx->opt.export_spec);
    free (ctx->opt.output);
    free (ctx->opt.error);
    opt_clear (&ctx->opt.alloc);
}

/* Stages up to the event loop; -1 if the step never got launched. */
static int run_prepare (struct run_ctx *ctx)
{
    arbor_error_t err;

    if (run_cwd (ctx) < 0) {
        log_err ("cannot determine the working directory");
        return -1;
    }
    if (!(ctx->env = export_env (ctx->opt.export_spec, environ, &err))) {
        log_err ("%s", err.text);
        return -1;
    }
    if (client_open (&ctx->cl, &err) < 0) {
        log_err ("%s", err.text);
        return -1;
    }
    if (ctx->opt.kill_bad_exit < 0)
        ctx->opt.kill_bad_exit = ctx->cl.conf->kill_on_bad_exit ? 1 : 0;
    if (run_allocate (ctx) < 0 || run_step_create (ctx) < 0
        || run_output_create (ctx) < 0 || run_io_listen (ctx) < 0)
        return -1;
    run_signals_start (ctx);
    run_term_start (ctx);
    return run_launch_start (ctx);
}

int cmd_run_main (int argc, char **argv)
{
    struct run_ctx ctx = { .prog = argv[0] };
    int rc;

    log_open ("arbor", LOG_LVL_INFO, NULL);
    signal (SIGPIPE, SIG_IGN);
    run_std_fds ();
    ctx.cl.fd = -1;
    run_parse (&ctx, argc, argv);
    if (!(ctx.loop = ev_default_loop (EVFLAG_AUTO))) {
        log_err ("cannot create the event loop");
        return 1;
    }
    if (run_prepare (&ctx) == 0)
        ev_run (ctx.loop, 0);
    else
        ctx.launch_failed = true;
    rc = run_finish (&ctx);
    run_ctx_free (&ctx);
    return rc;
}
