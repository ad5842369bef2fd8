/* cmd_cancel.c - "arbor cancel" (scancel): cancel or signal jobs and steps.
 *
 *   arbor cancel [-s SIG] [-b] [-u USER] [-n NAME] [-t STATE]
 *                [-p PARTITION] [--me] [-v] [-Q] [JOBID[.STEP]...]
 *
 * Job ids are sent as they are; filters (-u, -n, -t, -p) select among the
 * jobs JOB_INFO lists, and when both are given only jobs named AND passing
 * the filters are acted on, as scancel does. Each job or step then gets
 * one JOB_CANCEL: signal 0 cancels (termination sequence), -s delivers a
 * signal and nothing ends by itself, -b targets only the batch shell.
 * Failures are reported in scancel's words, with the controller's text:
 *     arbor cancel: error: Kill job error on job id 5: Access/permission
 *     denied for job 5
 * and make the exit status 1. -Q hides errors about jobs that have
 * already finished (and does not count them).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "cmds.h"
#include "jobsel.h"
#include "log.h"
#include "signame.h"

struct cancel_target {
    uint32_t job, step;
};

struct cancel_ctx {
    const char *prog;
    int signal; /* 0: cancel */
    bool batch, verbose, quiet;
    struct jobsel_filter filter;
    char *me;                  /* --me: our user name */
    struct cancel_target *ids; /* from the command line */
    size_t nids;
    struct client cl;
};

enum { OPT_ME = 0x100, OPT_HELP };

static const char cancel_usage[] =
    "Usage: %s [OPTIONS] [JOBID[.STEP]...]\n"
    "Cancel jobs or job steps, or send them a signal.\n\n"
    "  -s, --signal=SIG       send SIG (name or number) instead of "
    "cancelling\n"
    "  -b, --batch            signal only the batch shell\n"
    "  -u, --user=USER        jobs of USER (name or uid)\n"
    "      --me               jobs of the calling user\n"
    "  -n, --name=NAME        jobs named NAME\n"
    "  -t, --state=STATE      jobs in STATE (PENDING/PD, RUNNING/R, ...)\n"
    "  -p, --partition=NAME   jobs of partition NAME\n"
    "  -v, --verbose          say what is done\n"
    "  -Q, --quiet            no error for jobs already finished\n"
    "      --help             this help\n";

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
    default: break;
    }
}

static void cancel_parse (struct cancel_ctx *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "signal", required_argument, NULL, 's' },
        { "batch", no_argument, NULL, 'b' },
        { "user", required_argument, NULL, 'u' },
        { "me", no_argument, NULL, OPT_ME },
        { "name", required_argument, NULL, 'n' },
        { "jobname", required_argument, NULL, 'n' },
        { "state", required_argument, NULL, 't' },
        { "partition", required_argument, NULL, 'p' },
        { "verbose", no_argument, NULL, 'v' },
        { "quiet", no_argument, NULL, 'Q' },
        { "help", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
    };
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, ":s:bu:n:t:p:vQ", longopts, NULL))
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
        if (jobsel_parse_id (argv[i], &t->job, &t->step) < 0)
            cancel_bad (ctx, "Invalid job id %s", argv[i]);
    }
    if (ctx->nids == 0 && jobsel_filter_empty (&ctx->filter)) {
        fprintf (stderr, "%s: error: No job identification provided\n",
                 ctx->prog);
        exit (1);
    }
}

/* Append a target to 'out' (growing array). */
static void cancel_add (struct cancel_target **out, size_t *n, uint32_t job,
                        uint32_t step)
{
    struct cancel_target *nt = realloc (*out, (*n + 1) * sizeof (**out));

    if (!nt)
        die ("out of memory");
    *out = nt;
    nt[*n].job = job;
    nt[*n].step = step;
    (*n)++;
}

/* The jobs of 'r' passing the filters, intersected with the named ids. */
static size_t cancel_select (const struct cancel_ctx *ctx,
                             const struct msg_job_info_reply *r,
                             struct cancel_target **out)
{
    size_t n = 0;

#define COL(f, i) ((i) < r->f##_count && r->f[i] ? r->f[i] : "")
    for (uint32_t i = 0; i < r->job_ids_count; i++) {
        if (!jobsel_filter_match (&ctx->filter, COL (users, i), COL (names, i),
                                  COL (states, i), COL (partitions, i)))
            continue;
        if (ctx->nids == 0)
            cancel_add (out, &n, r->job_ids[i], STEP_ID_ALL);
        for (size_t k = 0; k < ctx->nids; k++)
            if (ctx->ids[k].job == r->job_ids[i])
                cancel_add (out, &n, ctx->ids[k].job, ctx->ids[k].step);
    }
#undef COL
    return n;
}

/* The targets: the ids as given, or what the filters select. */
static size_t cancel_targets (struct cancel_ctx *ctx,
                              struct cancel_target **out)
{
    struct msg_job_info req = { .job_id = 0 };
    struct msg_job_info_reply r;
    arbor_error_t err;
    size_t n;

    if (jobsel_filter_empty (&ctx->filter)) {
        *out = ctx->ids;
        ctx->ids = NULL;
        return ctx->nids;
    }
    if (client_call (&ctx->cl, MSG_JOB_INFO, &req, MSG_JOB_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("job information: %s", err.text);
    *out = NULL;
    n = cancel_select (ctx, &r, out);
    proto_clear (MSG_JOB_INFO_REPLY, &r);
    return n;
}

static void cancel_say (const struct cancel_ctx *ctx,
                        const struct cancel_target *t)
{
    char id[48], sig[16];

    jobsel_id_str (t->job, t->step, id, sizeof (id));
    if (ctx->signal)
        fprintf (stderr, "%s: Signal %s to %s %s\n", ctx->prog,
                 signame_name (ctx->signal, sig, sizeof (sig)),
                 t->step == STEP_ID_ALL ? "job" : "step", id);
    else
        fprintf (stderr, "%s: Terminating %s %s\n", ctx->prog,
                 t->step == STEP_ID_ALL ? "job" : "step", id);
}

/* One JOB_CANCEL; 0, or -1 after printing the error. */
static int cancel_one (struct cancel_ctx *ctx, const struct cancel_target *t)
{
    struct msg_job_cancel m = {
        .job_id = t->job,
        .step_id = t->step,
        .signal = ctx->signal,
        .batch_only = ctx->batch,
    };
    struct msg_rc ans;
    arbor_error_t err;
    char id[48];

    if (ctx->verbose)
        cancel_say (ctx, t);
    if (client_call (&ctx->cl, MSG_JOB_CANCEL, &m, MSG_RC, &ans,
                     CLIENT_TIMEOUT_MS, &err)
        == 0)
        return 0;
    if (ctx->quiet && strstr (err.text, "already"))
        return 0;
    fprintf (stderr, "%s: error: Kill job error on job %sid %s: %s\n",
             ctx->prog, t->step == STEP_ID_ALL ? "" : "step ",
             jobsel_id_str (t->job, t->step, id, sizeof (id)), err.text);
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
