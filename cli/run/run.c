/* run.c - "arbor run" (srun) from parsed options to exit status.
 *
 * run_step() drives the launcher's stages (run_base.h): allocate or
 * join a job, create a step, listen for the stepds, send LAUNCH to node
 * zero, run the event loop until every task has ended and every stepd
 * connection closed, then complete the step (and the job if we made it)
 * and return srun's status: 128 + the largest signal that killed a task,
 * else the highest exit code; 1 if the launch failed. The stages that talk
 * to the controller before and after the loop live here too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "export.h"
#include "log.h"
#include "authpool.h"
#include "net.h"
#include "run_base.h"
#include "run_io.h"
#include "run_launch.h"
#include "run_place.h"
#include "run_pty.h"
#include "run_signal.h"
#include "run_stdin.h"
#include "run_term.h"
#include "run_verbose.h"
#include "willrun.h"

extern char **environ;

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
    if (!ctx->cwd)
        return -1;
    /* -i FILE is relative to the tasks' directory, as srun's */
    if (ctx->opt.input_file && ctx->opt.input_file[0] != '/'
        && asprintf (&ctx->input_path, "%s/%s", ctx->cwd, ctx->opt.input_file)
               < 0)
        return -1;
    return 0;
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

/* -m arbitrary: the job must hold the hostfile's hosts with room for
 * their share of the tasks; JOB_ALLOC knows no per-node counts, so each
 * host is asked for as many tasks as the busiest one has (the step then
 * takes node_tasks of them). */
static void run_allocate_arbitrary (const struct run_ctx *ctx,
                                    struct msg_job_alloc *req)
{
    uint32_t most = 0;

    for (uint32_t i = 0; i < ctx->arb_nnodes; i++)
        if (ctx->arb_counts[i] > most)
            most = ctx->arb_counts[i];
    if (!ctx->opt.alloc.nodelist)
        req->nodelist = ctx->arb_nodelist;
    if (!ctx->opt.alloc.ntasks_per_node) {
        req->ntasks_per_node = most;
        req->ntasks = most * ctx->arb_nnodes;
    }
}

/* The job's output variables for the tasks (docs/environment.md; the
 * stepd adds the step's and the node's). A job we allocated (a != NULL)
 * is described by us. A job we joined from inside it (arbor alloc, a
 * batch script) keeps what that environment says and only gains what it
 * lacks; one joined from outside (--jobid) gets what we know of it. */
static int run_env_job (struct run_ctx *ctx, const struct msg_job_allocated *a)
{
    const char *id = getenv ("SLURM_JOB_ID");
    bool inside = !a && id && strtoul (id, NULL, 10) == ctx->job_id;
    char host[256] = "";
    struct export_job j = { .submit_dir = ctx->cwd, .submit_host = host };
    arbor_error_t err;
    int rc;

    gethostname (host, sizeof (host) - 1);
    if (a) { /* all it needs, from a 2.8 controller */
        j.cpus = a->cpus;
        j.nnodes = a->cpus_count;
        j.start = a->start_time;
        j.time_limit = a->time_limit;
        j.partition = a->partition;
        j.account = a->account ? a->account : ctx->opt.alloc.account;
        j.qos = a->qos;
    }
    if (export_job (&ctx->env, &j, !inside) < 0)
        return -1;
    if ((a && a->start_time) || (inside && getenv ("SLURM_JOB_START_TIME")))
        return 0; /* the allocation's own, or arbor alloc's / the script's */
    rc = client_job_env (&ctx->cl, ctx->job_id, &ctx->env, !inside, &err);
    if (rc > 0) /* without them the step runs anyway */
        run_verbose (ctx, "job %u: %s", ctx->job_id, err.text);
    return rc < 0 ? -1 : 0;
}

/* srun's own: SLURM_PRIO_PROCESS, SRUN_DEBUG (its log level, 3 for info,
 * one up for each -v, down for -Q) and SLURM_OVERCOMMIT with -O. */
static int run_env_launcher (struct run_ctx *ctx)
{
    int level = 3 + ctx->opt.alloc.verbose - (ctx->opt.quiet ? 1 : 0);
    char buf[16];

    snprintf (buf, sizeof (buf), "%d", level < 0 ? 0 : level);
    if (export_prio_process (&ctx->env) < 0
        || export_set (&ctx->env, "SRUN_DEBUG", buf) < 0
        || (ctx->opt.alloc.overcommit
            && export_set (&ctx->env, "SLURM_OVERCOMMIT", "1") < 0))
        return -1;
    return 0;
}

static int run_allocate (struct run_ctx *ctx)
{
    const struct alloc_opts *o = &ctx->opt.alloc;
    const char *name = o->job_name ? o->job_name : basename (ctx->argv[0]);
    struct msg_job_alloc req = opt_job_alloc (o, name, ctx->cwd);
    struct msg_job_allocated a;
    arbor_error_t err;
    int rc;

    req.command = ctx->argv[0];
    if (req.test_only) /* a new job's start, as srun asks it */
        exit (willrun_print (&ctx->cl, &req, ctx->prog));
    if ((ctx->job_id = run_existing_job (ctx))) {
        run_verbose (ctx, "using job %u", ctx->job_id);
        if (run_env_job (ctx, NULL) < 0) {
            log_err ("out of memory");
            return -1;
        }
        return 0;
    }
    if (ctx->arb_nodelist)
        run_allocate_arbitrary (ctx, &req);
    if (client_alloc (&ctx->cl, &req, &a, &err) < 0) {
        log_err ("Unable to allocate resources: %s", err.text);
        return -1;
    }
    ctx->allocated = true;
    ctx->job_id = a.job_id;
    ctx->job_nnodes = a.cpus_count;
    run_verbose_job (ctx, &a);
    rc = run_env_job (ctx, &a);
    proto_clear (MSG_JOB_ALLOCATED, &a);
    if (rc < 0)
        log_err ("out of memory");
    return rc;
}

static int run_step_create (struct run_ctx *ctx)
{
    const struct alloc_opts *o = &ctx->opt.alloc;
    bool joined = !ctx->allocated;
    struct msg_step_create req = {
        .job_id = ctx->job_id,
        .name = o->job_name ? o->job_name : basename (ctx->argv[0]),
        .nnodes = o->nnodes_max && ctx->allocated ? ctx->job_nnodes : o->nnodes,
        .ntasks = o->ntasks,
        .cpus_per_task = o->cpus_per_task,
        .ntasks_per_node = o->ntasks_per_node,
        .nodelist = joined && o->nodelist ? o->nodelist : "",
        .exclude = joined && o->exclude ? o->exclude : "",
        .mem_mb = o->mem_mb,
        .overlap = ctx->opt.overlap,
        .exact = ctx->opt.exact,
        .exclusive = o->exclusive,
        .overcommit = o->overcommit,
        .interactive = ctx->opt.interactive,
        .gres = (char *)slurm_carried (&o->slurm, "gres"),
        .gpus = (char *)slurm_carried (&o->slurm, "gpus"),
        .gpus_per_node = (char *)slurm_carried (&o->slurm, "gpus-per-node"),
        .gpus_per_task = (char *)slurm_carried (&o->slurm, "gpus-per-task"),
        .gpu_bind = (char *)slurm_carried (&o->slurm, "gpu-bind"),
    };
    uint32_t n = 0;
    arbor_error_t err;

    if (ctx->arb_nodelist) { /* -m arbitrary: the hostfile's layout */
        req.nodelist = ctx->arb_nodelist;
        req.node_tasks = ctx->arb_counts;
        req.node_tasks_count = ctx->arb_nnodes;
        run_verbose (ctx, "-m arbitrary: %u tasks on %s", o->ntasks,
                     ctx->arb_nodelist);
    }
    if (client_step_create_within (&ctx->cl, &req, &ctx->step,
                                   ctx->opt.immediate, &err)
        < 0) {
        log_err ("Unable to create step for job %u: %s", ctx->job_id, err.text);
        return -1;
    }
    ctx->have_step = true;
    for (uint32_t i = 0; i < ctx->step.tasks_count; i++)
        n += ctx->step.tasks[i];
    if (tasks_init (&ctx->tasks, n) < 0)
        return -1;
    run_verbose_step (ctx);
    return run_place_step (ctx);
}

/* Output routing, now that job, step and task count are known. */
static int run_output_create (struct run_ctx *ctx)
{
    const struct passwd *pw = getpwuid (getuid ());
    struct output_cfg cfg = {
        .job_id = ctx->job_id,
        .step_id = ctx->step.step_id,
        .ntasks = ctx->tasks.n,
        .label = ctx->opt.label,
        .unbuffered = ctx->opt.unbuffered,
        .out_pattern = ctx->opt.output,
        .err_pattern = ctx->opt.error,
        .user = pw ? pw->pw_name : "",
        .job_name = ctx->opt.alloc.job_name ? ctx->opt.alloc.job_name
                                            : basename (ctx->argv[0]),
    };

    if (!(ctx->out = output_create (&cfg))) {
        log_err ("out of memory");
        return -1;
    }
    return 0;
}

/* How the step ended, for the controller and accounting: srun's exit
 * status and the exit code and signal behind it. */
struct run_end {
    int rc;
    int exit_code;
    int signal;
};

/* A failed launch is exit status 1 and an MPI abort its code, with no
 * signal; otherwise the tasks decide (srun's rule, tasks.h). */
static struct run_end run_end_status (const struct run_ctx *ctx)
{
    struct run_end e = { 0 };

    if (ctx->launch_failed)
        e.rc = e.exit_code = 1;
    else if (ctx->mpi_aborted)
        e.rc = e.exit_code = ctx->abort_code;
    else {
        tasks_exit_status (&ctx->tasks, &e.exit_code, &e.signal);
        e.rc = e.signal ? 128 + e.signal : e.exit_code;
    }
    return e;
}

/* The step's end for the controller; through a new connection when the
 * controller restarted meanwhile. */
static int run_step_complete (struct run_ctx *ctx, const struct run_end *e,
                              arbor_error_t *err)
{
    if (client_step_complete (&ctx->cl, ctx->job_id, ctx->step.step_id, e->rc,
                              ctx->noom > 0, e->exit_code, e->signal, err)
        == 0)
        return 0;
    if (!client_conn_lost (errno) || run_reconnect_wait (ctx, err) < 0)
        return -1;
    return client_step_complete (&ctx->cl, ctx->job_id, ctx->step.step_id,
                                 e->rc, ctx->noom > 0, e->exit_code, e->signal,
                                 err);
}

static int run_job_complete (struct run_ctx *ctx, const struct run_end *e,
                             arbor_error_t *err)
{
    if (client_job_complete (&ctx->cl, ctx->job_id, e->rc, e->signal, err) == 0)
        return 0;
    if (!client_conn_lost (errno) || run_reconnect_wait (ctx, err) < 0)
        return -1;
    return client_job_complete (&ctx->cl, ctx->job_id, e->rc, e->signal, err);
}

/* A job of our own: its step's and its end in one round trip. */
static int run_both_complete (struct run_ctx *ctx, const struct run_end *e,
                              arbor_error_t *err)
{
    struct msg_step_complete step = {
        .job_id = ctx->job_id,
        .step_id = ctx->step.step_id,
        .node = "",
        .rc = e->rc,
        .oom = ctx->noom > 0,
        .exit_code = e->exit_code,
        .signal = e->signal,
    };
    struct msg_job_complete job = { .job_id = ctx->job_id,
                                    .rc = e->rc,
                                    .signal = e->signal };

    if (client_step_job_complete (&ctx->cl, &step, &job, err) == 0)
        return 0;
    if (!client_conn_lost (errno) || run_reconnect_wait (ctx, err) < 0)
        return -1;
    return client_step_job_complete (&ctx->cl, &step, &job, err);
}

static int run_finish (struct run_ctx *ctx)
{
    struct run_end end = run_end_status (ctx);
    arbor_error_t err;

    run_pty_stop (ctx); /* our terminal as it was, before any message */
    if (ctx->out && output_flush (ctx->out, &err) < 0 && !ctx->out_error)
        log_err ("%s", err.text);
    run_term_summary (ctx);
    ev_timer_stop (ctx->loop, &ctx->reconnect_timer);
    if (ctx->have_step && ctx->allocated) {
        if (run_both_complete (ctx, &end, &err) < 0)
            run_verbose (ctx, "%s", err.text);
        return end.rc;
    }
    if (ctx->have_step && run_step_complete (ctx, &end, &err) < 0)
        run_verbose (ctx, "step complete: %s", err.text);
    if (ctx->allocated && run_job_complete (ctx, &end, &err) < 0)
        run_verbose (ctx, "job complete: %s", err.text);
    return end.rc;
}

static void run_ctx_free (struct run_ctx *ctx)
{
    run_pty_stop (ctx);
    run_signals_stop (ctx);
    run_term_stop (ctx);
    run_io_stop (ctx);
    auth_pool_destroy (ctx->pool);
    output_destroy (ctx->out);
    tasks_clear (&ctx->tasks);
    if (ctx->have_step)
        proto_clear (MSG_STEP_CREATED, &ctx->step);
    client_close (&ctx->cl);
    free (ctx->cwd);
    free (ctx->input_path);
    export_free (ctx->env);
    run_place_free (ctx);
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
    if (export_umask (&ctx->env) < 0 || run_env_launcher (ctx) < 0) {
        log_err ("out of memory");
        return -1;
    }
    if (run_place_prepare (ctx) < 0)
        return -1;
    if (client_open (&ctx->cl, &err) < 0) {
        log_err ("%s", err.text);
        return -1;
    }
    if (ctx->opt.kill_bad_exit < 0)
        ctx->opt.kill_bad_exit = ctx->cl.conf->kill_on_bad_exit ? 1 : 0;
    ctx->mpi =
        conf_mpi_type (ctx->opt.mpi ? ctx->opt.mpi : ctx->cl.conf->mpi_default);
    if (!ctx->mpi) {
        log_err ("invalid MPI type '%s' (try --mpi=list)", ctx->opt.mpi);
        return -1;
    }
    if (run_allocate (ctx) < 0 || run_step_create (ctx) < 0
        || run_output_create (ctx) < 0 || run_io_listen (ctx) < 0)
        return -1;
    run_signals_start (ctx);
    run_term_start (ctx);
    run_pty_start (ctx);
    return run_launch_start (ctx);
}

int run_step (const char *prog, const struct run_opts *opt, int argc,
              char **argv)
{
    struct run_ctx ctx = {
        .prog = prog, .opt = *opt, .argc = argc, .argv = argv
    };
    int rc;

    run_std_fds ();
    /* One I/O connection per node of the step (1,024 nodes: more than the
     * usual soft limit of 1,024 descriptors, well under the hard one). */
    net_raise_nofile ();
    ctx.cl.ch.fd = -1;
    ctx.opt.stdin_task = run_stdin_mode (ctx.opt.stdin_task);
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
