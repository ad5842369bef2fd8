/* cmd_cancel.c - "arbor cancel" (scancel): cancel or signal jobs and steps.
 *
 *   arbor cancel [-s SIG] [-b|-f] [-u USER] [-n NAME] [-t STATE]
 *                [-p PARTITION] [--me] [-v] [-Q] [JOBID[_TASK][.STEP]...]
 *
 * Job ids are sent as they are; an array's id names all its tasks (the
 * controller expands it). "ID_TASK" names one task of array ID: JOB_INFO
 * says which job it is. Filters (-u, -n, -t, -p) select among the jobs
 * JOB_INFO lists, and when both are given only jobs named AND passing the
 * filters are acted on, as scancel does (an array's id then stands for
 * those of its tasks that pass). Each job or step then gets one
 * JOB_CANCEL: signal 0 cancels (termination sequence), -s delivers a
 * signal and nothing ends by itself: to the job's steps (not its batch
 * shell), with -b to the batch shell alone, with -f to both.
 *
 * A task named alone (ID_TASK, or an array's task a filter picked) is
 * sent with task_only: the first task of an array has the array's id as
 * its job id, and that id alone means the whole array.
 * Failures are reported in scancel's words, with the controller's text:
 *     arbor cancel: error: Kill job error on job id 5: Access/permission
 *     denied for job 5
 * and make the exit status 1. A job that has ended, or never existed,
 * is no error for a plain "scancel ID" (Slurm takes it as cancelled
 * already; -v says why), but is "Invalid job id specified" and exit
 * status 1 with -s, -b or filters, as scancel's are (-Q hides the
 * message); see cancel_one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "cmds.h"
#include "jobinfo.h"
#include "jobsel.h"
#include "log.h"
#include "signame.h"
#include "version.h"

struct cancel_target {
    uint32_t job, step; /* what JOB_CANCEL is sent for */
    uint32_t array;     /* the job's array (from JOB_INFO), 0 none/unknown */
    uint32_t task;      /* as named "ID_TASK" (job: ID), else JOBSEL_NO_TASK */
    const char *error;  /* not sent: this error is reported instead */
};

struct cancel_ctx {
    const char *prog;
    int signal; /* 0: cancel */
    bool batch, full, verbose, quiet;
    struct jobsel_filter filter;
    char *me;                  /* --me: our user name */
    struct cancel_target *ids; /* from the command line */
    size_t nids;
    struct client cl;
};

enum { OPT_ME = 0x100, OPT_HELP };

static const char cancel_usage[] =
    "Usage: %s [OPTIONS] [JOBID[_TASK][.STEP]...]\n"
    "Cancel jobs, array tasks or job steps, or send them a signal.\n\n"
    "  -s, --signal=SIG       send SIG (name or number) instead of "
    "cancelling\n"
    "  -b, --batch            signal only the batch shell\n"
    "  -f, --full             signal the batch shell too (by default a "
    "signal\n"
    "                         reaches the job's steps, not its shell)\n"
    "  -u, --user=USER        jobs of USER (name or uid)\n"
    "      --me               jobs of the calling user\n"
    "  -n, --name=NAME        jobs named NAME\n"
    "  -t, --state=STATE      jobs in STATE (PENDING/PD, RUNNING/R, ...)\n"
    "  -p, --partition=NAME   jobs of partition NAME\n"
    "  -v, --verbose          say what is done\n"
    "  -Q, --quiet            no error for jobs already finished\n"
    "      --help             this help\n"
    "      --usage            the options in short\n"
    "  -V, --version          the version (\"slurm X.Y.Z\" as scancel)\n";

/* --usage: scancel's options in short. */
static const char *const cancel_synopsis[] = {
    "[-bfQv] [-s signal] [-u user] [--me] [-n name]",
    "[-t state] [-p partition] [--help] [--usage] [-V]",
    "[job_id[_array_id][.step_id]]...",
    NULL,
};

static void cancel_bad (const struct cancel_ctx *ctx, const char *fmt,
                        const char *arg)
{
    fprintf (stderr, "%s: error: ", ctx->prog);
    fprintf (stderr, fmt, arg);
    fprintf (stderr, "\nTry '%s --help' for more information.\n", ctx->prog);
    exit (1);
}

/* -u takes a name or a uid; filters compare names. */
static char *cancel_user_name (const struct cancel_ctx *ctx, const char *u)
{
    struct passwd *pw = getpwnam (u);
    char *end;
    unsigned long uid;

    if (!pw && *u >= '0' && *u <= '9') {
        uid = strtoul (u, &end, 10);
        if (!*end)
            pw = getpwuid ((uid_t)uid);
    }
    if (!pw)
        cancel_bad (ctx, "Invalid user name: %s", u);
    return strdup (pw->pw_name);
}

static void cancel_check_states (const struct cancel_ctx *ctx, const char *list)
{
    char *copy = strdup (list), *save = NULL;

    if (!copy)
        die ("out of memory");
    for (char *s = strtok_r (copy, ",", &save); s;
         s = strtok_r (NULL, ",", &save))
        if (!jobsel_state_valid (s))
            cancel_bad (ctx, "Invalid job state specified: %s", s);
    free (copy);
}

static void cancel_option (struct cancel_ctx *ctx, int c, const char *arg)
{
    switch (c) {
    case 's':
        if (signame_parse (arg, &ctx->signal) < 0)
            cancel_bad (ctx, "Invalid job signal: %s", arg);
        break;
    case 'b': ctx->batch = true; break;
    case 'f': ctx->full = true; break;
    case 'u':
        free (ctx->me);
        ctx->filter.user = ctx->me = cancel_user_name (ctx, arg);
        break;
    case OPT_ME: {
        char uid[32];
        snprintf (uid, sizeof (uid), "%lu", (unsigned long)getuid ());
        free (ctx->me);
        ctx->filter.user = ctx->me = cancel_user_name (ctx, uid);
        break;
    }
    case 'n': ctx->filter.name = arg; break;
    case 't':
        cancel_check_states (ctx, arg);
        ctx->filter.states = arg;
        break;
    case 'p': ctx->filter.partition = arg; break;
    case 'v': ctx->verbose = true; break;
    case 'Q': ctx->quiet = true; break;
    case OPT_HELP: printf (cancel_usage, ctx->prog); exit (0);
    case 'V':
    case VERSION_OPT_USAGE: version_option (c, ctx->prog, cancel_synopsis);
    default: break;
    }
}

static void cancel_parse (struct cancel_ctx *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "signal", required_argument, NULL, 's' },
        { "batch", no_argument, NULL, 'b' },
        { "full", no_argument, NULL, 'f' },
        { "user", required_argument, NULL, 'u' },
        { "me", no_argument, NULL, OPT_ME },
        { "name", required_argument, NULL, 'n' },
        { "jobname", required_argument, NULL, 'n' },
        { "state", required_argument, NULL, 't' },
        { "partition", required_argument, NULL, 'p' },
        { "verbose", no_argument, NULL, 'v' },
        { "quiet", no_argument, NULL, 'Q' },
        { "help", no_argument, NULL, OPT_HELP },
        VERSION_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, ":s:bfu:n:t:p:vQV", longopts, NULL))
           != -1) {
        if (c == ':')
            cancel_bad (ctx, "option '%s' requires an argument",
                        argv[optind - 1]);
        if (c == '?')
            cancel_bad (ctx, "unrecognized option '%s'", argv[optind - 1]);
        cancel_option (ctx, c, optarg);
    }
    if (optind < argc
        && !(ctx->ids = calloc ((size_t)(argc - optind), sizeof (*ctx->ids))))
        die ("out of memory");
    for (int i = optind; i < argc; i++, ctx->nids++) {
        struct cancel_target *t = &ctx->ids[ctx->nids];
        if (jobsel_parse_id (argv[i], &t->job, &t->task, &t->step) < 0)
            cancel_bad (ctx, "Invalid job id %s", argv[i]);
    }
    if (ctx->nids == 0 && jobsel_filter_empty (&ctx->filter)) {
        fprintf (stderr, "%s: error: No job identification provided\n",
                 ctx->prog);
        exit (1);
    }
}

/* Append a copy of 't' to 'out' (growing array). */
static void cancel_add (struct cancel_target **out, size_t *n,
                        struct cancel_target t)
{
    struct cancel_target *nt = realloc (*out, (*n + 1) * sizeof (**out));

    if (!nt)
        die ("out of memory");
    *out = nt;
    nt[(*n)++] = t;
}

/* Named id 'id' against job 'v' (which passed the filters): add the
 * target it makes, if any. */
static void cancel_match (const struct cancel_target *id,
                          const struct job_view *v, struct cancel_target **out,
                          size_t *n)
{
    uint32_t job = v->rec.id, array = v->rec.array_job_id;
    struct cancel_target t = { job, id->step, array, id->task, NULL };

    if (id->task != JOBSEL_NO_TASK) {
        if (array == id->job && v->rec.array_task_id == id->task)
            cancel_add (out, n, t);
    } else if (job == id->job
               || (array == id->job && id->step == STEP_ID_ALL)) {
        t.task = JOBSEL_NO_TASK; /* the array's id: each task passing */
        cancel_add (out, n, t);
    }
}

/* The jobs of 'jobs' passing the filters, intersected with the named
 * ids. */
static size_t cancel_select (const struct cancel_ctx *ctx,
                             const struct job_list *jobs,
                             struct cancel_target **out)
{
    size_t n = 0;

    for (size_t i = 0; i < jobs->n; i++) {
        const struct job_view *v = &jobs->jobs[i];
        struct cancel_target t = { v->rec.id, STEP_ID_ALL, v->rec.array_job_id,
                                   JOBSEL_NO_TASK, NULL };
        if (!jobsel_filter_match (
                &ctx->filter, jv_str (v->rec.user), jv_str (v->rec.name),
                jv_str (v->rec.state_shown), jv_str (v->rec.partition)))
            continue;
        if (ctx->nids == 0)
            cancel_add (out, &n, t);
        for (size_t k = 0; k < ctx->nids; k++)
            cancel_match (&ctx->ids[k], v, out, &n);
    }
    return n;
}

/* Without filters: the ids as named, "ID_TASK" resolved to its job. */
static size_t cancel_resolve (const struct cancel_ctx *ctx,
                              const struct job_list *jobs,
                              struct cancel_target **out)
{
    size_t n = 0;

    for (size_t k = 0; k < ctx->nids; k++) {
        struct cancel_target t = ctx->ids[k];
        int i;
        if (t.task != JOBSEL_NO_TASK) {
            if ((i = jobsel_list_task (jobs, t.job, t.task)) < 0)
                t.error = "Invalid job id specified";
            else {
                t.array = t.job;
                t.job = jobs->jobs[i].rec.id;
            }
        }
        cancel_add (out, &n, t);
    }
    return n;
}

/* The JOB_INFO request: every job with filters, else the arrays of the
 * "ID_TASK" ids (their tasks). 'ids' holds nids entries. */
static void cancel_request (const struct cancel_ctx *ctx, uint32_t *ids,
                            struct msg_job_info *req)
{
    memset (req, 0, sizeof (*req));
    if (!jobsel_filter_empty (&ctx->filter))
        return;
    for (size_t k = 0; k < ctx->nids; k++)
        if (ctx->ids[k].task != JOBSEL_NO_TASK)
            ids[req->job_ids_count++] = ctx->ids[k].job;
    req->job_ids = ids;
}

/* The targets: the ids as given, or what the filters select. */
static size_t cancel_targets (struct cancel_ctx *ctx,
                              struct cancel_target **out)
{
    struct msg_job_info req;
    struct job_list jobs;
    uint32_t *ids = calloc (ctx->nids + 1, sizeof (*ids));
    arbor_error_t err;
    size_t n;

    if (!ids)
        die ("out of memory");
    cancel_request (ctx, ids, &req);
    if (jobsel_filter_empty (&ctx->filter) && req.job_ids_count == 0) {
        free (ids);
        *out = ctx->ids;
        ctx->ids = NULL;
        return ctx->nids;
    }
    if (jobinfo_fetch (&ctx->cl, &req, &jobs, &err) < 0)
        die ("job information: %s", err.text);
    free (ids);
    *out = NULL;
    if (jobsel_filter_empty (&ctx->filter))
        n = cancel_resolve (ctx, &jobs, out);
    else
        n = cancel_select (ctx, &jobs, out);
    job_list_clear (&jobs);
    return n;
}

/* The target as named: "5", "5.2", "5_3", "5_3.2". */
static const char *cancel_id (const struct cancel_target *t, char *buf,
                              size_t len)
{
    if (t->task != JOBSEL_NO_TASK)
        return jobsel_task_str (t->array ? t->array : t->job, t->task, t->step,
                                buf, len);
    return jobsel_id_str (t->job, t->step, buf, len);
}

static void cancel_say (const struct cancel_ctx *ctx,
                        const struct cancel_target *t)
{
    char id[48], sig[16];

    cancel_id (t, id, sizeof (id));
    if (ctx->signal)
        fprintf (stderr, "%s: Signal %s to %s %s\n", ctx->prog,
                 signame_name (ctx->signal, sig, sizeof (sig)),
                 t->step == STEP_ID_ALL ? "job" : "step", id);
    else
        fprintf (stderr, "%s: Terminating %s %s\n", ctx->prog,
                 t->step == STEP_ID_ALL ? "job" : "step", id);
}

/* Plain "scancel ID..." (no filter, no signal, no -b): Slurm sends the
 * ids straight to the controller and takes a job that has ended, or is
 * not known, as cancelled already. */
static bool cancel_plain (const struct cancel_ctx *ctx)
{
    return ctx->nids > 0 && jobsel_filter_empty (&ctx->filter)
           && ctx->signal == 0 && !ctx->batch;
}

/* Did the answer (errno, err) say that t has ended, or that no such job
 * exists? Then *why is scancel's wording of it. */
static bool cancel_gone (const struct cancel_target *t, int e,
                         const arbor_error_t *err, const char **why)
{
    if (strstr (err->text, "already")) {
        *why = "Job/step already completing or completed";
        return true;
    }
    if (t->error || (e == ENOENT && t->step == STEP_ID_ALL)) {
        *why = "Invalid job id specified";
        return true;
    }
    return false;
}

static void cancel_error (const struct cancel_ctx *ctx,
                          const struct cancel_target *t, const char *text)
{
    char id[48];

    fprintf (stderr, "%s: error: Kill job error on job %sid %s: %s\n",
             ctx->prog, t->step == STEP_ID_ALL ? "" : "step ",
             cancel_id (t, id, sizeof (id)), text);
}

/* One JOB_CANCEL; 0, or -1 after printing the error. A job that ended
 * or never existed is, as in scancel: with a plain cancel, no error (the
 * reason is printed under -v only); with a signal, -b or filters,
 * "Invalid job id specified" and exit status 1 (-Q hides the message,
 * not the status). */
static int cancel_one (struct cancel_ctx *ctx, const struct cancel_target *t)
{
    struct msg_job_cancel m = {
        .job_id = t->job,
        .step_id = t->step,
        .signal = ctx->signal,
        .batch_only = ctx->batch,
        .full = ctx->full,
        .task_only = t->array != 0, /* a task, not its whole array */
    };
    struct msg_rc ans;
    arbor_error_t err;
    const char *why;
    int e = ENOENT;

    if (t->error)
        snprintf (err.text, sizeof (err.text), "%s", t->error);
    else {
        if (ctx->verbose)
            cancel_say (ctx, t);
        if (client_call (&ctx->cl, MSG_JOB_CANCEL, &m, MSG_RC, &ans,
                         CLIENT_TIMEOUT_MS, &err)
            == 0)
            return 0;
        e = errno;
    }
    if (!cancel_gone (t, e, &err, &why)) {
        cancel_error (ctx, t, err.text);
        return -1;
    }
    if (cancel_plain (ctx)) {
        if (ctx->verbose)
            cancel_error (ctx, t, why);
        return 0;
    }
    if (!ctx->quiet)
        cancel_error (ctx, t, "Invalid job id specified");
    return -1;
}

int cmd_cancel_main (int argc, char **argv)
{
    struct cancel_ctx ctx = { .prog = argv[0] };
    struct cancel_target *t = NULL;
    arbor_error_t err;
    size_t n;
    int rc = 0;

    log_open ("arbor", LOG_LVL_INFO, NULL);
    ctx.cl.ch.fd = -1;
    cancel_parse (&ctx, argc, argv);
    if (client_open (&ctx.cl, &err) < 0)
        die ("%s", err.text);
    n = cancel_targets (&ctx, &t);
    for (size_t i = 0; i < n; i++)
        if (cancel_one (&ctx, &t[i]) < 0)
            rc = 1;
    free (t);
    free (ctx.ids);
    free (ctx.me);
    client_close (&ctx.cl);
    return rc;
}
