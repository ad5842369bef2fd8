/* cmd_acct.c - "arbor acct" (sacct): the accounting records of jobs and
 * their steps.
 *
 * JobID           JobName  Partition    Account  AllocCPUS      State ExitCode
 * ------------ ---------- ---------- ---------- ---------- ---------- --------
 * 7                   sim      debug       phys          8  COMPLETED      0:0
 * 7.batch           batch                  phys          4  COMPLETED      0:0
 * 7.0                 sim                  phys          8     FAILED      1:0
 *
 * The options are sacct's (see usage below and arbor-acct(1)). The
 * filters go to the controller in one ACCT_QUERY (ended jobs come from
 * its accounting database, the others from its memory); the answer may
 * come in several frames (client_acct_query). What the filters cannot
 * say (a single array task or step, the last run of a requeued job) is
 * chosen here (acct_select.h); fields and layouts are acct_fields.h's.
 * Each job run is read as one view, decoded once (jobview_acct.h): its
 * job record, and its accounting record for what only accounting knows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acct/acct.h"
#include "client.h"
#include "cmds.h"
#include "jobview_acct.h"
#include "log.h"
#include "opt.h"
#include "version.h"

struct acct_opts {
    const char *prog;
    struct acct_sels sels;  /* -j */
    const char *users;      /* -u */
    const char *states;     /* -s */
    const char *start_text; /* -S */
    const char *end_text;   /* -E */
    char *fields;           /* -o, -b, -l as given; NULL: the default */
    bool all_users;         /* -a */
    bool no_steps;          /* -X */
    bool duplicates;        /* -D */
    bool noheader;          /* -n */
    bool json;              /* --json */
    char units;             /* --units: K, M, G, T or P; 0: scaled */
    enum acct_layout layout;
    struct acct_format fmt;
};

enum { ACCT_OPT_JSON = 0x100, ACCT_OPT_HELP, ACCT_OPT_UNITS };

/* --usage: sacct's options in short. */
static const char *const acct_synopsis[] = {
    "[-abDelnPpX] [-j jobs] [-u users] [-s states]",
    "[-S time] [-E time] [-o fields] [--units=[KMGTP]] [--json]",
    "[--help] [--usage] [-V]",
    NULL,
};

static const char acct_usage[] =
    "Usage: %s [OPTIONS]\n"
    "  -j, --jobs=LIST        these jobs: N, N_T (array task), N.STEP\n"
    "                         (batch, extern, interactive or a number)\n"
    "  -u, --user=LIST        these users' jobs (names or uids)\n"
    "  -a, --allusers         every user's jobs (root: the default)\n"
    "  -S, --starttime=TIME   jobs not ended before TIME (default: "
    "midnight,\n"
    "                         or any time with -j or -s)\n"
    "  -E, --endtime=TIME     jobs submitted before TIME (default: now)\n"
    "  -s, --state=LIST       jobs in these states (names or codes: PD R "
    "CD F\n"
    "                         CA TO OOM NF RQ ...)\n"
    "  -X, --allocations      jobs only, not their steps\n"
    "  -D, --duplicates       every run of a requeued job, not only the "
    "last\n"
    "  -o, --format=LIST      fields, each NAME[%%WIDTH] (see -e)\n"
    "  -b, --brief            JobID,State,ExitCode\n"
    "  -l, --long             the long list of fields\n"
    "  -e, --helpformat       list the field names\n"
    "  -n, --noheader         no header lines\n"
    "  -p, --parsable         '|' after every value\n"
    "  -P, --parsable2        '|' between values\n"
    "      --units=[KMGTP]    sizes (MaxRSS, AveRSS, ReqMem) in this unit\n"
    "      --json             everything, as JSON (docs/json-schema.md)\n"
    "  -h, --help             this help\n"
    "      --usage            the options in short\n"
    "  -V, --version          the version (\"slurm X.Y.Z\" as sacct)\n"
    "TIME: YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], HH:MM[:SS], "
    "now[{+|-}N[units]],\n"
    "      today, midnight, noon. SACCT_FORMAT sets the default fields.\n";

/* -o, -b and -l add up, as in sacct. */
static void acct_add_fields (struct acct_opts *o, const char *list)
{
    char *joined;

    if (asprintf (&joined, "%s%s%s", o->fields ? o->fields : "",
                  o->fields ? "," : "", list)
        < 0)
        die ("out of memory");
    free (o->fields);
    o->fields = joined;
}

static void acct_bad_value (const struct acct_opts *o, const char *text)
{
    fprintf (stderr, "%s: error: %s\n", o->prog, text);
    exit (1);
}

/* Letters that take no value. Returns false if c is none of them. */
static bool acct_flag (struct acct_opts *o, int c)
{
    switch (c) {
    case 'a': o->all_users = true; return true;
    case 'b': acct_add_fields (o, ACCT_BRIEF_FORMAT); return true;
    case 'l': acct_add_fields (o, ACCT_LONG_FORMAT); return true;
    case 'D': o->duplicates = true; return true;
    case 'X': o->no_steps = true; return true;
    case 'n': o->noheader = true; return true;
    case 'p': o->layout = ACCT_PARSABLE; return true;
    case 'P': o->layout = ACCT_PARSABLE2; return true;
    case ACCT_OPT_JSON: o->json = true; return true;
    case 'e': acct_fields_list (stdout); exit (0);
    case 'h':
    case ACCT_OPT_HELP: printf (acct_usage, o->prog); exit (0);
    default: return false;
    }
}

/* Options with a value. Returns false if c is none of them. */
static bool acct_valued (struct acct_opts *o, int c, const char *arg)
{
    arbor_error_t err;

    switch (c) {
    case 'j':
        if (acct_sels_parse (&o->sels, arg, &err) < 0)
            acct_bad_value (o, err.text);
        return true;
    case 'u': o->users = arg; return true;
    case 's': o->states = arg; return true;
    case 'S': o->start_text = arg; return true;
    case 'E': o->end_text = arg; return true;
    case 'o': acct_add_fields (o, arg); return true;
    case ACCT_OPT_UNITS:
        if (strlen (arg) != 1 || !acct_text_unit_valid (arg[0]))
            acct_bad_value (o, "Invalid unit type for --units. Possible "
                               "options are K, M, G, T or P");
        o->units = (char)(arg[0] >= 'a' ? arg[0] - 32 : arg[0]);
        return true;
    case 'V':
    case VERSION_OPT_USAGE:
        version_option (c, o->prog, acct_synopsis);
        return true;
    default: return false;
    }
}

static void acct_parse (struct acct_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "allusers", no_argument, NULL, 'a' },
        { "brief", no_argument, NULL, 'b' },
        { "duplicates", no_argument, NULL, 'D' },
        { "helpformat", no_argument, NULL, 'e' },
        { "endtime", required_argument, NULL, 'E' },
        { "help", no_argument, NULL, ACCT_OPT_HELP },
        { "jobs", required_argument, NULL, 'j' },
        { "long", no_argument, NULL, 'l' },
        { "noheader", no_argument, NULL, 'n' },
        { "format", required_argument, NULL, 'o' },
        { "parsable", no_argument, NULL, 'p' },
        { "parsable2", no_argument, NULL, 'P' },
        { "state", required_argument, NULL, 's' },
        { "starttime", required_argument, NULL, 'S' },
        { "user", required_argument, NULL, 'u' },
        { "uid", required_argument, NULL, 'u' },
        { "allocations", no_argument, NULL, 'X' },
        { "json", no_argument, NULL, ACCT_OPT_JSON },
        { "units", required_argument, NULL, ACCT_OPT_UNITS },
        VERSION_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, ":abDeE:hj:lno:pPs:S:u:VX", longopts,
                             NULL))
           != -1)
        if (!acct_flag (o, c) && !acct_valued (o, c, optarg))
            opt_getopt_die (c, argv, o->prog, longopts);
    if (optind < argc) {
        fprintf (stderr, "%s: error: unexpected argument '%s'\n", o->prog,
                 argv[optind]);
        exit (1);
    }
}

/* The columns: -o/-b/-l, else SACCT_FORMAT, else sacct's default. */
static void acct_format (struct acct_opts *o)
{
    const char *env = getenv ("SACCT_FORMAT");
    const char *list = ACCT_DEFAULT_FORMAT;
    arbor_error_t err;

    if (o->fields)
        list = o->fields;
    else if (env && *env)
        list = env;
    if (acct_format_parse (&o->fmt, list, &err) < 0)
        acct_bad_value (o, err.text);
    if (o->fmt.ncols == 0)
        acct_bad_value (o, "no fields to show");
}

/* ---- the query ---------------------------------------------------------- */

static void acct_push_u32 (uint32_t **v, uint32_t *n, uint32_t x)
{
    uint32_t *grown = realloc (*v, (*n + 1) * sizeof (**v));

    if (!grown)
        die ("out of memory");
    grown[(*n)++] = x;
    *v = grown;
}

static void acct_push_str (char ***v, uint32_t *n, const char *s)
{
    char **grown = realloc (*v, (*n + 1) * sizeof (**v));

    if (!grown || !(grown[*n] = strdup (s)))
        die ("out of memory");
    (*n)++;
    *v = grown;
}

/* -u: names or uids; without it (or -a) a user other than root sees only
 * their own jobs, as with sacct. */
static void acct_query_users (const struct acct_opts *o,
                              struct msg_acct_query *q)
{
    char *copy, *save = NULL;

    if (!o->users) {
        if (!o->all_users && getuid () != 0)
            acct_push_u32 (&q->uids, &q->uids_count, (uint32_t)getuid ());
        return;
    }
    if (!(copy = strdup (o->users)))
        die ("out of memory");
    for (char *t = strtok_r (copy, ",", &save); t;
         t = strtok_r (NULL, ",", &save)) {
        struct passwd *pw = getpwnam (t);
        char *end;
        unsigned long uid;
        errno = 0;
        uid = strtoul (t, &end, 10);
        if (pw)
            uid = pw->pw_uid;
        else if (errno || *end || end == t || uid >= UINT32_MAX) {
            fprintf (stderr, "%s: error: Invalid user id: %s\n", o->prog, t);
            exit (1);
        }
        acct_push_u32 (&q->uids, &q->uids_count, (uint32_t)uid);
    }
    free (copy);
}

static void acct_query_states (const struct acct_opts *o,
                               struct msg_acct_query *q)
{
    char *copy, *save = NULL;

    if (!o->states)
        return;
    if (!(copy = strdup (o->states)))
        die ("out of memory");
    for (char *t = strtok_r (copy, ",", &save); t;
         t = strtok_r (NULL, ",", &save)) {
        const char *name = acct_text_state (t);
        if (!name) {
            fprintf (stderr, "%s: error: unrecognized job state value '%s'\n",
                     o->prog, t);
            exit (1);
        }
        acct_push_str (&q->states, &q->states_count, name);
    }
    free (copy);
}

/* -S/-E; without -S, today's jobs, or any time's when -j or -s picks. */
static void acct_query_times (const struct acct_opts *o,
                              struct msg_acct_query *q)
{
    const char *start = o->start_text;
    time_t now = time (NULL), t;
    arbor_error_t err;

    if (!start && o->sels.n == 0 && !o->states)
        start = "today";
    if (start) {
        if (acct_text_parse_time (start, now, &t, &err) < 0)
            acct_bad_value (o, err.text);
        q->start = t > 0 ? (uint64_t)t : 0;
    }
    if (o->end_text) {
        if (acct_text_parse_time (o->end_text, now, &t, &err) < 0)
            acct_bad_value (o, err.text);
        q->end = t > 0 ? (uint64_t)t : 0;
    }
}

static void acct_query (const struct acct_opts *o, struct msg_acct_query *q)
{
    memset (q, 0, sizeof (*q));
    for (size_t i = 0; i < o->sels.n; i++)
        acct_push_u32 (&q->job_ids, &q->job_ids_count, o->sels.v[i].job);
    acct_query_users (o, q);
    acct_query_states (o, q);
    acct_query_times (o, q);
    /* The job's CPU times are its steps' sums: ask for the steps even
     * under -X when a column shows them. */
    q->no_steps =
        o->no_steps && (o->json || !acct_format_needs_steps (&o->fmt));
    q->events = o->json;
    q->duplicates = o->duplicates;
}

/* ---- the answer --------------------------------------------------------- */

/* The lines of one job run: its own, then its steps'. */
static void acct_print_job (const struct acct_opts *o, const struct job_view *j,
                            const struct msg_acct_step *steps, size_t nsteps,
                            struct acct_row *row)
{
    row->view = j;
    row->step = NULL;
    row->user_usec = row->sys_usec = 0;
    for (size_t k = 0; k < nsteps; k++) {
        row->user_usec += steps[k].user_usec;
        row->sys_usec += steps[k].sys_usec;
    }
    if (acct_sels_job (&o->sels, j))
        acct_print_row (stdout, &o->fmt, o->layout, row);
    for (size_t k = 0; !o->no_steps && k < nsteps; k++) {
        if (!acct_sels_step (&o->sels, j, steps[k].step_id))
            continue;
        row->step = &steps[k];
        acct_print_row (stdout, &o->fmt, o->layout, row);
    }
}

static void acct_print_table (const struct acct_opts *o,
                              const struct job_list *runs,
                              const struct acct_result *res)
{
    struct acct_row row = { .now = time (NULL),
                            .time_format = acct_text_time_format (),
                            .units = o->units };

    if (!o->noheader)
        acct_print_header (stdout, &o->fmt, o->layout);
    for (size_t i = 0; i < runs->n; i++) {
        const struct job_view *j = &runs->jobs[i];
        const struct msg_acct_step *steps;
        size_t n;
        if (!o->duplicates && !acct_last_run (runs->jobs, runs->n, i))
            continue;
        steps = acct_steps_of (res->steps, res->nsteps, j, &n);
        acct_print_job (o, j, steps, n, &row);
    }
}

/* One job of the JSON document, with the steps -j and -X let through. */
static void acct_json_job (const struct acct_opts *o, struct acct_json *d,
                           const struct job_view *j,
                           const struct msg_acct_step *steps, size_t nsteps)
{
    const struct msg_acct_step **shown = calloc (nsteps + 1, sizeof (*shown));
    size_t n = 0;

    if (!shown)
        die ("out of memory");
    for (size_t k = 0; !o->no_steps && k < nsteps; k++)
        if (acct_sels_step (&o->sels, j, steps[k].step_id))
            shown[n++] = &steps[k];
    if ((n > 0 || acct_sels_job (&o->sels, j))
        && acct_json_add_job (d, j, shown, n) < 0)
        die ("out of memory");
    free (shown);
}

static void acct_print_json (const struct acct_opts *o,
                             const struct job_list *runs,
                             const struct acct_result *res)
{
    struct acct_json *d = acct_json_create ();

    if (!d)
        die ("out of memory");
    for (size_t i = 0; i < runs->n; i++) {
        const struct msg_acct_step *steps;
        size_t n;
        if (!o->duplicates && !acct_last_run (runs->jobs, runs->n, i))
            continue;
        steps = acct_steps_of (res->steps, res->nsteps, &runs->jobs[i], &n);
        acct_json_job (o, d, &runs->jobs[i], steps, n);
    }
    if (acct_json_write (d, stdout) < 0)
        die ("write: %s", strerror (errno));
    acct_json_destroy (d);
}

/* Ask, collecting every frame of the answer. Exits on failure. */
static void acct_fetch (const struct acct_opts *o,
                        const struct msg_acct_query *q, struct acct_result *res)
{
    struct client cl;
    arbor_error_t err;

    if (client_open (&cl, &err) < 0
        || client_acct_query (&cl, q, res, &err) < 0) {
        fprintf (stderr, "%s: %s\n", o->prog, err.text);
        exit (1);
    }
    client_close (&cl);
}

/* One view per job run of the answer, sorted. Exits on failure. */
static void acct_views (const struct acct_result *res, struct job_list *runs)
{
    arbor_error_t err;

    if (jobview_acct_list (runs, res->jobs, res->njobs, &err) < 0)
        die ("%s", err.text);
    acct_sort_jobs (runs->jobs, runs->n);
}

int cmd_acct_main (int argc, char **argv)
{
    struct acct_opts o = { .prog = argv[0], .layout = ACCT_TABLE };
    struct msg_acct_query q;
    struct acct_result res;
    struct job_list runs = { 0 };

    log_open (argv[0], LOG_LVL_INFO, NULL);
    acct_parse (&o, argc, argv);
    if (!o.json)
        acct_format (&o);
    acct_query (&o, &q);
    acct_fetch (&o, &q, &res);
    proto_clear (MSG_ACCT_QUERY, &q);
    acct_views (&res, &runs);
    acct_sort_steps (res.steps, res.nsteps);
    if (o.json)
        acct_print_json (&o, &runs, &res);
    else
        acct_print_table (&o, &runs, &res);
    job_list_clear (&runs); /* before the records they point at */
    client_acct_clear (&res);
    acct_format_clear (&o.fmt);
    acct_sels_clear (&o.sels);
    free (o.fields);
    return 0;
}
