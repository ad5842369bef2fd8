/* cmd_alloc.c - "arbor alloc" (salloc): hold an allocation while a command
 * runs.
 *
 * Allocates a job with the shared options, prints "Granted job allocation
 * N", runs COMMAND (default $SHELL, else /bin/sh) as a child with the
 * job's environment (ARBOR_JOB_ID, SLURM_JOB_ID, SLURM_JOB_NODELIST, ...),
 * and keeps the controller connection open meanwhile: the job lives as
 * long as that connection. SIGINT/SIGTERM/SIGHUP sent to us by another
 * process are passed on to the child; a Ctrl-C typed at the terminal
 * already reaches the child (same process group) and is not doubled. If
 * the controller drops the connection (job cancelled, time limit) the
 * child gets SIGHUP, as salloc does; the controller's notice saying why
 * ("Job 5 cancelled", "Job 5 time limit reached") is printed first. When
 * the child ends: JOB_COMPLETE,
 * "Relinquishing job allocation N", and the child's status is ours.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "cmds.h"
#include "conf.h"
#include "distrib.h"
#include "export.h"
#include "hostlist.h"
#include "layout.h"
#include "log.h"
#include "opt.h"
#include "willrun.h"
#include "opt_when.h"
#include "optenv.h"
#include "proto.h"
#include "version.h"

extern char **environ;

struct alloc_ctx {
    const char *prog;
    struct alloc_opts opt;
    struct when_opts when; /* -d, -b, -H */
    bool interactive;      /* --interactive */
    char *distribution;    /* -m: SLURM_DISTRIBUTION for the steps */
    arbor_error_t when_err;
    char **argv;        /* command, or NULL for the shell */
    const char *name;   /* the job's name (-J or the command's) */
    char cwd[PATH_MAX]; /* its working directory (-D or ours) */
    char **env;         /* the child's environment (alloc_env) */
    struct client cl;
    struct msg_job_allocated job;
    pid_t child;
    int sigfd;
    sigset_t sigs;
};

static const char alloc_usage[] =
    "Usage: %s [OPTIONS] [COMMAND [ARGS...]]\n"
    "Allocate resources and run COMMAND (default: your shell) while they\n"
    "are held.\n\n%s\n"
    "When the allocation may start:\n"
    "  -d, --dependency=after|afterany|afterok|afternotok:ID[:ID...][,...]\n"
    "      --kill-on-invalid-dep=yes|no\n"
    "  -b, --begin=TIME          not before TIME (now+1hour, 16:00...)\n"
    "  -H, --hold                wait held until arbor release\n"
    "  -m, --distribution=block|cyclic|plane=N|arbitrary  for the steps\n"
    "                            (SLURM_DISTRIBUTION)\n"
    "\nThe shell:\n"
    "      --interactive         without COMMAND, run the shell as the job's\n"
    "                            interactive step, on its first node, on a\n"
    "                            terminal (also LaunchParameters=\n"
    "                            use_interactive_step)\n";

/* salloc's input variables (before the command line). */
static const struct optenv alloc_env_opts[] = {
    { "SALLOC_PARTITION", "partition", false },
    { "SALLOC_ACCOUNT", "account", false },
    { "SALLOC_TIMELIMIT", "time", false },
    { "SALLOC_EXCLUSIVE", "exclusive", true },
    { "SALLOC_MEM_PER_NODE", "mem", false },
    { "SALLOC_MEM_PER_CPU", "mem-per-cpu", false },
    { "SALLOC_SIGNAL", "signal", false },
    { "SALLOC_OVERCOMMIT", "overcommit", true },
    { "SALLOC_CONSTRAINT", "constraint", false },
    { "SALLOC_GRES", "gres", false },
    { "SALLOC_GPUS", "gpus", false },
    { "SALLOC_GPUS_PER_NODE", "gpus-per-node", false },
    { "SALLOC_GPUS_PER_TASK", "gpus-per-task", false },
    { "SALLOC_CPUS_PER_GPU", "cpus-per-gpu", false },
    { "SALLOC_MEM_PER_GPU", "mem-per-gpu", false },
    { "SALLOC_GPU_BIND", "gpu-bind", false },
    { "SALLOC_GRES_FLAGS", "gres-flags", false },
    { "SALLOC_QOS", "qos", false },
    { NULL, NULL, false },
};

/* -d, -b and -H (the others of when_longopts are sbatch's). */
static const struct option alloc_longopts[] = {
    { "dependency", required_argument, NULL, WOPT_DEPENDENCY },
    { "begin", required_argument, NULL, WOPT_BEGIN },
    { "hold", no_argument, NULL, WOPT_HOLD },
    { "kill-on-invalid-dep", required_argument, NULL, WOPT_KILL_INVALID },
    { "interactive", no_argument, NULL, 0x500 },
    { "distribution", required_argument, NULL, 'm' },
    { NULL, 0, NULL, 0 },
};

static int alloc_opt_cb (int c, const char *a, void *arg)
{
    struct alloc_ctx *ctx = arg;

    if (c == 0x500) {
        ctx->interactive = true;
        return 0;
    }
    if (c == 'm')
        return opt_distribution (&ctx->distribution, a);
    return when_opt_one (&ctx->when, c, a, &ctx->when_err) == 0 ? 0 : -1;
}

static int alloc_parse_argv (struct alloc_ctx *ctx, int argc, char **argv)
{
    struct opt_extra extra = { alloc_longopts, "d:b:Hm:", alloc_opt_cb, ctx,
                               SLURM_CMD_ALLOC };
    arbor_error_t err;
    int ind;

    ctx->when_err.text[0] = '\0';
    if ((ind = opt_parse (&ctx->opt, argc, argv, &extra, &err)) < 0) {
        if (ctx->when_err.text[0]) /* "salloc: error: invalid --begin" */
            die ("%s", ctx->when_err.text);
        else
            fprintf (stderr, "%s\nTry '%s --help' for more information.\n",
                     err.text, ctx->prog);
        exit (1);
    }
    return ind;
}

static void alloc_parse (struct alloc_ctx *ctx, int argc, char **argv)
{
    int ind, eargc;
    char **eargv;

    opt_defaults (&ctx->opt);
    when_opts_init (&ctx->when);
    if (!(eargv = optenv_argv (ctx->prog, alloc_env_opts, &eargc)))
        die ("out of memory");
    if (eargc > 1)
        (void)alloc_parse_argv (ctx, eargc, eargv);
    optenv_free (eargv);
    ind = alloc_parse_argv (ctx, argc, argv);
    if (ctx->opt.help) {
        printf (alloc_usage, ctx->prog, opt_alloc_help);
        exit (0);
    }
    version_alloc (ctx->opt.version, ctx->opt.usage, ctx->prog, "alloc");
    if (ctx->opt.jobid) {
        fprintf (stderr, "%s: --jobid is not valid here\n", ctx->prog);
        exit (1);
    }
    ctx->argv = ind < argc ? argv + ind : NULL;
}

static void alloc_request (struct alloc_ctx *ctx)
{
    const struct alloc_opts *o = &ctx->opt;
    char *cwd = ctx->cwd;
    const char *name = o->job_name ? o->job_name
                       : ctx->argv ? basename (ctx->argv[0])
                                   : "interactive";
    struct msg_job_alloc req = opt_job_alloc (o, name, cwd);
    arbor_error_t err;

    ctx->name = name;

    req.command = ctx->argv ? ctx->argv[0] : "";
    when_opts_apply (&ctx->when, NULL, &req);
    req.requeue = false;
    if (o->chdir)
        snprintf (cwd, sizeof (ctx->cwd), "%s", o->chdir);
    else if (!getcwd (cwd, sizeof (ctx->cwd)))
        snprintf (cwd, sizeof (ctx->cwd), "/");
    if (client_open (&ctx->cl, &err) < 0)
        die ("%s", err.text);
    if (req.test_only)
        exit (willrun_print (&ctx->cl, &req, ctx->prog));
    ctx->cl.say_pending = true;
    if (client_alloc (&ctx->cl, &req, &ctx->job, &err) < 0)
        die ("Job allocation failed: %s", err.text);
    log_info ("Granted job allocation %u", ctx->job.job_id);
    if (o->verbose)
        log_info ("job %u allocated %s", ctx->job.job_id, ctx->job.nodelist);
}

/* How many of the job's tasks each node runs, as salloc computes
 * SLURM_TASKS_PER_NODE: -n tasks (or --ntasks-per-node on every node, or
 * else as many as the CPUs hold, -c each) dealt out like Slurm's step
 * layout, round-robin over the nodes that still have room (plane=N: N at
 * a time), then over all of them when -O asked for more than fit. Caller
 * frees; NULL with errno ENOMEM. */
static uint32_t *alloc_layout (const struct alloc_ctx *ctx, size_t n,
                               uint32_t *total)
{
    const struct alloc_opts *o = &ctx->opt;
    const uint32_t *cpus = ctx->job.cpus;
    uint32_t cpt = o->cpus_per_task ? o->cpus_per_task : 1;
    uint32_t *t = calloc (n + 1, sizeof (*t));
    uint32_t *cap = calloc (n + 1, sizeof (*cap));
    uint32_t want = o->ntasks, left, chunk = 1, plane = 0;
    enum distrib d = DISTRIB_BLOCK;

    if (!t || !cap) {
        free (t);
        free (cap);
        return NULL;
    }
    if (ctx->distribution
        && distrib_parse (ctx->distribution, &d, &plane, NULL) == 0
        && d == DISTRIB_PLANE)
        chunk = plane;
    for (size_t i = 0; i < n; i++) {
        cap[i] = i < ctx->job.cpus_count ? cpus[i] / cpt : 1;
        if (o->ntasks_per_node && (!o->ntasks || cap[i] > o->ntasks_per_node))
            cap[i] = o->ntasks_per_node;
        if (!o->ntasks)
            want += cap[i];
    }
    for (left = n ? want : 0; left > 0;) {
        uint32_t before = left;
        for (size_t i = 0; i < n && left > 0; i++)
            for (uint32_t k = 0; k < chunk && left > 0 && t[i] < cap[i]; k++)
                t[i]++, left--;
        for (size_t i = 0; before == left && i < n && left > 0; i++)
            t[i]++, left--; /* -O: past the CPUs */
    }
    free (cap);
    *total = want;
    return t;
}

/* SLURM_JOB_START_TIME, _END_TIME, _PARTITION and _ACCOUNT, as
 * slurmctld gives salloc its start and end: from JOB_ALLOCATED (2.8),
 * else the controller's record of the job (JOB_INFO); left unset if it
 * cannot be had. */
static void alloc_env_record (struct alloc_ctx *ctx)
{
    struct export_job j = { .start = ctx->job.start_time,
                            .time_limit = ctx->job.time_limit,
                            .partition = ctx->job.partition,
                            .account = ctx->job.account,
                            .qos = ctx->job.qos };
    arbor_error_t err;
    int rc;

    if (j.start)
        rc = export_job (&ctx->env, &j, true);
    else if ((rc = client_job_env (&ctx->cl, ctx->job.job_id, &ctx->env, true,
                                   &err))
                 > 0
             && ctx->opt.verbose)
        log_info ("job %u: %s", ctx->job.job_id, err.text);
    if (rc < 0)
        die ("out of memory");
}

static void alloc_set (struct alloc_ctx *ctx, const char *key,
                       const char *value)
{
    if (export_set (&ctx->env, key, value) < 0)
        die ("out of memory");
}

static void alloc_set_u (struct alloc_ctx *ctx, const char *key, uint64_t v)
{
    char buf[24];

    snprintf (buf, sizeof (buf), "%llu", (unsigned long long)v);
    alloc_set (ctx, key, buf);
}

/* The counts asked for and derived: SLURM_NTASKS (with -n or
 * --ntasks-per-node), SLURM_TASKS_PER_NODE, SLURM_NTASKS_PER_NODE,
 * SLURM_CPUS_PER_TASK, SLURM_MEM_PER_*, SLURM_OVERCOMMIT. */
static void alloc_env_counts (struct alloc_ctx *ctx, size_t nnodes)
{
    const struct alloc_opts *o = &ctx->opt;
    uint32_t total = 0, *t = alloc_layout (ctx, nnodes, &total);
    char *tpn = t ? layout_tasks_per_node (t, nnodes) : NULL;

    if (!tpn)
        die ("out of memory");
    alloc_set (ctx, "SLURM_TASKS_PER_NODE", tpn);
    free (tpn);
    free (t);
    if (o->ntasks || o->ntasks_per_node) {
        alloc_set_u (ctx, "SLURM_NTASKS", total);
        alloc_set_u (ctx, "SLURM_NPROCS", total);
    }
    if (o->ntasks_per_node)
        alloc_set_u (ctx, "SLURM_NTASKS_PER_NODE", o->ntasks_per_node);
    if (o->cpus_per_task_set) /* also -c 1, as salloc */
        alloc_set_u (ctx, "SLURM_CPUS_PER_TASK", o->cpus_per_task);
    if (o->mem_mb)
        alloc_set_u (ctx, "SLURM_MEM_PER_NODE", o->mem_mb);
    if (o->mem_per_cpu_mb)
        alloc_set_u (ctx, "SLURM_MEM_PER_CPU", o->mem_per_cpu_mb);
    if (o->overcommit)
        alloc_set (ctx, "SLURM_OVERCOMMIT", "1");
}

/* The job's environment for the child (salloc's output variables,
 * docs/environment.md), in ctx->env. */
static void alloc_env (struct alloc_ctx *ctx)
{
    struct hostlist *hl = hostlist_create (ctx->job.nodelist, NULL);
    size_t nnodes = hl ? hostlist_count (hl) : 0;
    char host[256] = "";
    struct export_job j = {
        .cpus = ctx->job.cpus,
        .nnodes = ctx->job.cpus_count < nnodes ? ctx->job.cpus_count : nnodes,
        .account = ctx->opt.account,
        .submit_dir = ctx->cwd,
        .submit_host = host,
    };
    arbor_error_t err;

    hostlist_destroy (hl);
    gethostname (host, sizeof (host) - 1);
    if (!(ctx->env = export_env (NULL, environ, &err)))
        die ("%s", err.text);
    alloc_set_u (ctx, "ARBOR_JOB_ID", ctx->job.job_id);
    alloc_set_u (ctx, "SLURM_JOB_ID", ctx->job.job_id);
    alloc_set_u (ctx, "SLURM_JOBID", ctx->job.job_id);
    alloc_set (ctx, "SLURM_JOB_NAME", ctx->name);
    alloc_set (ctx, "ARBOR_JOB_NODELIST", ctx->job.nodelist);
    alloc_set (ctx, "SLURM_JOB_NODELIST", ctx->job.nodelist);
    alloc_set (ctx, "SLURM_NODELIST", ctx->job.nodelist);
    alloc_set_u (ctx, "SLURM_JOB_NUM_NODES", nnodes);
    alloc_set_u (ctx, "SLURM_NNODES", nnodes);
    alloc_env_counts (ctx, nnodes);
    alloc_set (ctx, "SLURM_CLUSTER_NAME", ctx->cl.conf->cluster_name);
    alloc_set (ctx, "ARBOR_CLUSTER_NAME", ctx->cl.conf->cluster_name);
    if ((ctx->distribution
         && export_distribution (&ctx->env, ctx->distribution) < 0)
        || export_job (&ctx->env, &j, true) < 0)
        die ("out of memory");
    alloc_env_record (ctx);
}

/* The shell as the job's interactive step on its first node, on a
 * pseudo-terminal (LaunchParameters=use_interactive_step or --interactive,
 * and no command given), as Slurm's InteractiveStepOptions default:
 * "arbor run --interactive --pty $SHELL". */
static bool alloc_interactive (const struct alloc_ctx *ctx)
{
    return !ctx->argv
           && (ctx->interactive
               || conf_launch_param (ctx->cl.conf, "use_interactive_step"));
}

static void alloc_spawn (struct alloc_ctx *ctx)
{
    const char *shell = getenv ("SHELL");
    char *sh = (char *)(shell && *shell ? shell : "/bin/sh");
    char *defargv[] = { sh, NULL };
    char *stepargv[] = { "/proc/self/exe",
                         "run",
                         "--interactive",
                         "--pty",
                         "--mpi=none",
                         sh,
                         NULL };
    char **av = ctx->argv                 ? ctx->argv
                : alloc_interactive (ctx) ? stepargv
                                          : defargv;

    sigemptyset (&ctx->sigs);
    sigaddset (&ctx->sigs, SIGCHLD);
    sigaddset (&ctx->sigs, SIGINT);
    sigaddset (&ctx->sigs, SIGTERM);
    sigaddset (&ctx->sigs, SIGHUP);
    sigprocmask (SIG_BLOCK, &ctx->sigs, NULL);
    if ((ctx->sigfd = signalfd (-1, &ctx->sigs, SFD_CLOEXEC)) < 0)
        die ("signalfd: %s", strerror (errno));
    alloc_env (ctx);
    if ((ctx->child = fork ()) < 0)
        die ("fork: %s", strerror (errno));
    if (ctx->child == 0) {
        sigprocmask (SIG_UNBLOCK, &ctx->sigs, NULL);
        close (ctx->cl.ch.fd);
        environ = ctx->env;
        /* "arbor run": argv[0] must not look like srun or salloc */
        if (av == stepargv)
            execv (av[0], (char *[]){ "arbor", av[1], av[2], av[3], av[4],
                                      av[5], NULL });
        execvp (av[0], av);
        fprintf (stderr, "arbor: error: %s: %s\n", av[0], strerror (errno));
        _exit (127);
    }
}

/* One signal from the signalfd. Returns the child's wait status once it
 * has ended, -1 otherwise. */
static int alloc_on_signal (struct alloc_ctx *ctx)
{
    struct signalfd_siginfo si;
    int status;

    if (read (ctx->sigfd, &si, sizeof (si)) != sizeof (si))
        return -1;
    if (si.ssi_signo == SIGCHLD) {
        if (waitpid (ctx->child, &status, WNOHANG) == ctx->child)
            return status;
        return -1;
    }
    /* From the terminal (kernel) the child got it too; from kill(), pass it
     * on. */
    if (si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE)
        kill (ctx->child, (int)si.ssi_signo);
    return -1;
}

/* The controller connection is readable: a notice (printed by client.c)
 * means the allocation is gone; the connection closing (*lost) only that
 * the controller went away: it restarts with its state, and we attach to
 * the allocation again (alloc_reattach). */
static bool alloc_revoked (struct alloc_ctx *ctx, bool *lost)
{
    arbor_error_t err;

    if (client_read_notice (&ctx->cl, &err) < 0) {
        if (ctx->opt.verbose)
            log_info ("controller connection: %s: reconnecting", err.text);
        *lost = true;
        return false;
    }
    return ctx->cl.notice_errnum != 0;
}

/* One try at the controller again: 1 back (attached), 0 not yet, -1 it
 * answered that the allocation is not ours any more. */
static int alloc_reattach (struct alloc_ctx *ctx)
{
    arbor_error_t err;

    if (client_reconnect (&ctx->cl, ctx->job.job_id, CLIENT_TIMEOUT_MS, &err)
        == 0)
        return 1;
    if (client_conn_lost (errno))
        return 0;
    log_err ("controller: %s", err.text);
    return -1;
}

static void alloc_revoke (struct alloc_ctx *ctx, struct pollfd *pf)
{
    log_err ("Job allocation %u has been revoked.", ctx->job.job_id);
    kill (ctx->child, SIGHUP);
    pf->fd = -1;
}

/* Wait for the child, watching the controller connection. */
static int alloc_wait (struct alloc_ctx *ctx)
{
    struct pollfd pfd[2] = {
        { .fd = ctx->sigfd, .events = POLLIN },
        { .fd = ctx->cl.ch.fd, .events = POLLIN },
    };
    bool lost = false;
    int status, n;

    for (;;) {
        if ((n = poll (pfd, 2, lost ? 1000 : -1)) < 0 && errno != EINTR)
            die ("poll: %s", strerror (errno));
        if (n > 0 && (pfd[0].revents & POLLIN)
            && (status = alloc_on_signal (ctx)) >= 0)
            return status;
        if (lost) {
            int r = alloc_reattach (ctx);
            if (r != 0) {
                lost = false;
                pfd[1].fd = ctx->cl.ch.fd;
                if (r < 0)
                    alloc_revoke (ctx, &pfd[1]);
            }
            continue;
        }
        if (n > 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))
            && alloc_revoked (ctx, &lost))
            alloc_revoke (ctx, &pfd[1]);
        if (lost)
            pfd[1].fd = -1;
    }
}

/* JOB_COMPLETE, through a new connection when the controller restarted
 * meanwhile (tried for at most ALLOC_RECONNECT_S seconds). */
#define ALLOC_RECONNECT_S 90
static int alloc_complete (struct alloc_ctx *ctx, int rc, int signal,
                           arbor_error_t *err)
{
    if (client_job_complete (&ctx->cl, ctx->job.job_id, rc, signal, err) == 0)
        return 0;
    for (int i = 0; i < ALLOC_RECONNECT_S && client_conn_lost (errno); i++) {
        int r = alloc_reattach (ctx);
        if (r > 0)
            return client_job_complete (&ctx->cl, ctx->job.job_id, rc, signal,
                                        err);
        if (r < 0)
            return -1;
        sleep (1);
    }
    return -1;
}

int cmd_alloc_main (int argc, char **argv)
{
    struct alloc_ctx ctx = { .prog = argv[0], .sigfd = -1 };
    arbor_error_t err;
    int status, rc, sig;

    log_open (argv[0], LOG_LVL_INFO, NULL); /* "salloc: Granted ..." */
    ctx.cl.ch.fd = -1;
    alloc_parse (&ctx, argc, argv);
    alloc_request (&ctx);
    alloc_spawn (&ctx);
    status = alloc_wait (&ctx);
    sig = WIFSIGNALED (status) ? WTERMSIG (status) : 0;
    rc = sig ? 128 + sig : WIFEXITED (status) ? WEXITSTATUS (status) : 1;
    log_info ("Relinquishing job allocation %u", ctx.job.job_id);
    if (alloc_complete (&ctx, rc, sig, &err) < 0 && ctx.opt.verbose)
        log_info ("job complete: %s", err.text);
    close (ctx.sigfd);
    proto_clear (MSG_JOB_ALLOCATED, &ctx.job);
    client_close (&ctx.cl);
    opt_clear (&ctx.opt);
    when_opts_clear (&ctx.when);
    free (ctx.distribution);
    export_free (ctx.env);
    return rc;
}
