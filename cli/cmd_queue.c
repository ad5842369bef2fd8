/* cmd_queue.c - "arbor queue" (squeue): the jobs the controller knows.
 *
 * The layout is a squeue format (fmt.h, queue_fields.h): -o/--format
 * "%.18i %9P ...", -O/--Format "JobID:10,Name", or $SQUEUE_FORMAT /
 * $SQUEUE_FORMAT2, else squeue's default (-l and --start have their
 * own). Rows are sorted by --sort (or $SQUEUE_SORT), squeue's "P,t,-p"
 * by default. By default only pending, running, suspended and completing
 * jobs are listed; -t STATE[,STATE] (names or codes, or "all") picks
 * others. -j, -u and -t go to the controller (JOB_INFO users, states,
 * job_ids), which sends only the jobs asked for; -j's array tasks, -p,
 * -n, -q and -w filter the answer (queue_select.h). Without -r an array's
 * pending tasks fold into one line, as squeue's do (queue_fold.h). --json
 * writes the jobs as a JSON document instead (queue_json.h). -i N
 * repeats every N seconds, each listing under a timestamp line (as is
 * -l's one listing, as squeue's is).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "acct/acct.h"
#include "client.h"
#include "cmds.h"
#include "fmt.h"
#include "jobinfo.h"
#include "jobsel.h"
#include "opt.h"
#include "queue/queue.h"
#include "states.h"
#include "log.h"
#include "timestr.h"
#include "version.h"

struct queue_opts {
    bool noheader;
    bool longfmt;     /* -l */
    bool steps;       /* -s */
    bool start;       /* --start: pending jobs' planned starts */
    bool array;       /* -r: every array task its own line */
    bool json;        /* --json */
    const char *jobs; /* comma-separated ids */
    const char *users;
    const char *states;      /* NULL: PD,R,S,CG */
    const char *format;      /* -o */
    const char *format_long; /* -O */
    const char *sort;        /* --sort */
    const char *partitions;  /* -p */
    const char *names;       /* -n */
    const char *qos;         /* -q */
    const char *nodes;       /* -w */
    unsigned iterate;        /* -i: seconds; 0 once */
    char *me;                /* --me: our user name, as -u */
};

/* --usage: squeue's options in short. */
static const char *const queue_synopsis[] = {
    "[-h] [-l] [-s] [-r] [--start] [--me] [--json]",
    "[-j jobs] [-u users] [-t states] [-p partitions]",
    "[-n names] [-q qos] [-w nodes] [-o format | -O fields]",
    "[-S fields] [-i seconds] [--help] [--usage] [-V]",
    NULL,
};

static const char queue_usage[] =
    "Usage: %s [-h] [-l] [-s] [-j ID[,ID]] [-u USER[,USER]]\n"
    "          [-t STATE[,STATE]] [-p PART] [-n NAME] [-q QOS]\n"
    "          [-w NODES] [-o FORMAT | -O FIELDS] [-S KEYS] [-i SECONDS]\n"
    "          [-r] [--start] [--json]\n"
    "  -j, --jobs=LIST      only these jobs (ID, or ARRAY_TASK)\n"
    "  -u, --user=LIST      only jobs of these users\n"
    "      --me             only my jobs (-u $USER)\n"
    "  -p, --partition=LIST only jobs of these partitions\n"
    "  -n, --name=LIST      only jobs of these names\n"
    "  -q, --qos=LIST       only jobs of these QOS\n"
    "  -w, --nodelist=HOSTS only jobs on these nodes\n"
    "  -o, --format=FORMAT  squeue's %%-fields (\"%%.18i %%.9P %%j\")\n"
    "  -O, --Format=FIELDS  squeue's field names (\"JobID:10,Name\")\n"
    "  -S, --sort=KEYS      sort by these -o letters (\"P,t,-p\")\n"
    "  -i, --iterate=SECS   list again every SECS seconds\n"
    "  -r, --array          one array task a line (else an array's pending\n"
    "                       tasks share one line, 5_[2-9,12])\n"
    "      --json           the jobs (or steps) as a JSON document\n"
    "  -t, --states=LIST    states (PENDING/PD, RUNNING/R, SUSPENDED/S,\n"
    "                       COMPLETING/CG, COMPLETED/CD, FAILED/F,\n"
    "                       CANCELLED/CA, TIMEOUT/TO, NODE_FAIL/NF,\n"
    "                       OUT_OF_MEMORY/OOM, or all)\n"
    "  -l, --long           the date, then the full state and time limit too\n"
    "  -s, --steps          the running steps (N.batch, N.extern, N.0...)\n"
    "      --start          pending jobs and when sched/backfill plans to\n"
    "                       start them\n"
    "  -h, --noheader       no header line\n"
    "      --help           this help\n"
    "      --usage          the options in short\n"
    "  -V, --version        the version (\"slurm X.Y.Z\" as squeue)\n";

/* Split comma-separated 'list' into a new string vector. */
static char **queue_split (const char *list, uint32_t *n)
{
    char *copy = strdup (list), *save = NULL;
    char **v = calloc (strlen (list) / 2 + 2, sizeof (char *));

    if (!copy || !v)
        die ("out of memory");
    *n = 0;
    for (char *t = strtok_r (copy, ",", &save); t;
         t = strtok_r (NULL, ",", &save))
        if (!(v[(*n)++] = strdup (t)))
            die ("out of memory");
    free (copy);
    return v;
}

/* -t: the state names asked for, out of every state there is
 * (common/util/states.h), which JOB_INFO filters on; none at all for "all". */
static void queue_req_states (const struct queue_opts *o,
                              struct msg_job_info *req)
{
    /* -j alone lists those jobs in any state, as squeue does; without
     * it, the jobs not finished (squeue keeps suspended ones in view) */
    const char *list = o->states  ? o->states
                       : o->start ? "PD"
                       : o->jobs  ? "all"
                                  : "PD,R,S,CG";

    req->states = calloc (JOB_STATE_COUNT, sizeof (char *));
    if (!req->states)
        die ("out of memory");
    if (jobsel_in_list (list, "all", true))
        return;
    for (int i = 0; i < JOB_STATE_COUNT; i++) {
        const char *name = job_state_str (i);
        if (jobsel_state_in (list, name)
            && !(req->states[req->states_count++] = strdup (name)))
            die ("out of memory");
    }
}

/* -u: every name must be a user (or a uid), as squeue insists. */
static void queue_check_users (const char *prog, char **v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        char *end;
        errno = 0;
        (void)strtoul (v[i], &end, 10);
        if (!getpwnam (v[i]) && (errno || *end || end == v[i])) {
            fprintf (stderr, "%s: error: Invalid user: %s\n", prog, v[i]);
            exit (1);
        }
    }
}

/* The JOB_INFO request carrying -u, -t and -j (the ids 'sel' parsed). */
static void queue_request (const char *prog, const struct queue_opts *o,
                           const struct queue_select *sel,
                           struct msg_job_info *req)
{
    memset (req, 0, sizeof (*req));
    queue_req_states (o, req);
    if (o->users) {
        req->users = queue_split (o->users, &req->users_count);
        queue_check_users (prog, req->users, req->users_count);
    }
    if (sel->nids
        && !(req->job_ids = queue_select_job_ids (sel, &req->job_ids_count)))
        die ("out of memory");
}

/* -t: every word a state name or code, or "all"; else an error that
 * names the word and lists what is valid (from common/util/states.h). */
static void queue_check_states (const char *prog, const char *list)
{
    char *copy = strdup (list), *save = NULL;

    if (!copy)
        die ("out of memory");
    for (char *s = strtok_r (copy, ",", &save); s;
         s = strtok_r (NULL, ",", &save)) {
        if (jobsel_state_valid (s))
            continue;
        fprintf (stderr, "%s: error: invalid job state '%s'\n", prog, s);
        fprintf (stderr, "%s: error: valid job states:", prog);
        for (int i = 0; i < JOB_STATE_COUNT; i++)
            fprintf (stderr, " %s (%s),", job_state_str (i),
                     job_state_info (i)->code);
        fprintf (stderr, " or all\n");
        exit (1);
    }
    free (copy);
}

/* -j with one id (or task) the controller does not know: squeue's
 * message and exit status. */
static void queue_unknown_job (const struct queue_select *sel,
                               const struct msg_job_info *req,
                               const struct job_list *jobs)
{
    if (sel->nids != 1 || req->states_count != 0)
        return;
    for (size_t i = 0; i < jobs->n; i++) {
        const struct msg_job_rec *r = &jobs->jobs[i].rec;
        if (queue_select_id (sel, r->id, r->array_job_id, r->array_task_id))
            return;
    }
    fprintf (stderr, "slurm_load_jobs error: Invalid job id specified\n");
    exit (1);
}

/* -i's seconds: a whole number from 1. */
static unsigned queue_seconds (const char *prog, const char *s)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul (s, &end, 10);
    if (errno || *end || end == s || v < 1 || v > 86400) {
        fprintf (stderr,
                 "%s: error: invalid --iterate '%s': seconds from 1 "
                 "to 86400 expected\n",
                 prog, s);
        exit (1);
    }
    return (unsigned)v;
}

/* -i and -l: the time above each listing, as squeue prints it. */
static void queue_stamp (void)
{
    time_t now = time (NULL);
    struct tm tm;
    char buf[64] = "";

    if (localtime_r (&now, &tm))
        strftime (buf, sizeof (buf), "%a %b %d %H:%M:%S %Y", &tm);
    printf ("%s\n", buf);
}

/* --me: the caller's user name (squeue's --me is -u of it). */
static char *queue_me (const char *prog)
{
    struct passwd *pw = getpwuid (getuid ());
    char *name;

    if (!pw) {
        fprintf (stderr, "%s: error: Invalid user id: %lu\n", prog,
                 (unsigned long)getuid ());
        exit (1);
    }
    if (!(name = strdup (pw->pw_name)))
        die ("out of memory");
    return name;
}

static void queue_parse (struct queue_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "noheader", no_argument, NULL, 'h' },
        { "jobs", required_argument, NULL, 'j' },
        { "user", required_argument, NULL, 'u' },
        { "states", required_argument, NULL, 't' },
        { "long", no_argument, NULL, 'l' },
        { "steps", no_argument, NULL, 's' },
        { "start", no_argument, NULL, 'B' },
        { "format", required_argument, NULL, 'o' },
        { "Format", required_argument, NULL, 'O' },
        { "sort", required_argument, NULL, 'S' },
        { "partition", required_argument, NULL, 'p' },
        { "name", required_argument, NULL, 'n' },
        { "qos", required_argument, NULL, 'q' },
        { "nodelist", required_argument, NULL, 'w' },
        { "iterate", required_argument, NULL, 'i' },
        { "array", no_argument, NULL, 'r' },
        { "json", no_argument, NULL, 'J' },
        { "me", no_argument, NULL, 'M' },
        { "help", no_argument, NULL, 'H' },
        VERSION_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv,
                             ":hlsrVj:u:t:o:O:S:p:n:q:w:i:", longopts, NULL))
           != -1) {
        switch (c) {
        case 'h': o->noheader = true; break;
        case 'l': o->longfmt = true; break;
        case 's': o->steps = true; break;
        case 'B': o->start = true; break;
        case 'o': o->format = optarg; break;
        case 'O': o->format_long = optarg; break;
        case 'S': o->sort = optarg; break;
        case 'p': o->partitions = optarg; break;
        case 'n': o->names = optarg; break;
        case 'q': o->qos = optarg; break;
        case 'w': o->nodes = optarg; break;
        case 'r': o->array = true; break;
        case 'J': o->json = true; break;
        case 'i': o->iterate = queue_seconds (argv[0], optarg); break;
        case 'j': o->jobs = optarg; break;
        case 'u': o->users = optarg; break;
        case 'M':
            free (o->me);
            o->users = o->me = queue_me (argv[0]);
            break;
        case 't':
            queue_check_states (argv[0], optarg);
            o->states = optarg;
            break;
        case 'H': printf (queue_usage, argv[0]); exit (0);
        case 'V':
        case VERSION_OPT_USAGE:
            version_option (c, argv[0], queue_synopsis);
            break;
        default: opt_getopt_die (c, argv, argv[0], longopts);
        }
    }
    if (optind < argc) {
        fprintf (stderr, "%s: unexpected argument '%s'\n", argv[0],
                 argv[optind]);
        exit (1);
    }
    if (o->json && o->iterate) {
        fprintf (stderr, "%s: error: --json cannot be used with --iterate\n",
                 argv[0]);
        exit (1);
    }
}

/* squeue's TIME column: from start to end (or now, if not ended). */
static void queue_elapsed (uint32_t start, uint32_t end, char *buf, size_t len)
{
    time_t to = end ? (time_t)end : time (NULL);
    long s = start ? (long)(to - (time_t)start) : 0;

    queue_duration (s < 0 ? 0 : s, buf, len);
}

#define QCOL(r, field, i) \
    ((i) < (r)->field##_count && (r)->field[i] ? (r)->field[i] : "")

/* The layout: -O, -o, $SQUEUE_FORMAT2, $SQUEUE_FORMAT, or the default
 * of -l / --start / neither. Exits on a bad one, naming it. */
static void queue_format (const char *prog, const struct queue_opts *o,
                          struct fmt *f)
{
    const char *env2 = getenv ("SQUEUE_FORMAT2"),
               *env = getenv ("SQUEUE_FORMAT");
    arbor_error_t err;
    size_t nd;
    const struct fmt_def *defs = queue_field_defs (&nd);
    int rc;

    if (o->format_long || (!o->format && env2 && *env2))
        rc = fmt_parse_long (o->format_long ? o->format_long : env2, defs, nd,
                             f, &err);
    else
        rc = fmt_parse (o->format     ? o->format
                        : env && *env ? env
                        : o->start    ? QUEUE_FORMAT_START
                        : o->longfmt  ? QUEUE_FORMAT_LONG
                                      : QUEUE_FORMAT,
                        defs, nd, f, &err);
    if (rc < 0) {
        fprintf (stderr, "%s: error: %s\n", prog, err.text);
        exit (1);
    }
}

/* --sort, $SQUEUE_SORT or squeue's default. Exits on a bad key. */
static void queue_sort_keys (const char *prog, const struct queue_opts *o,
                             struct queue_sort *keys)
{
    const char *sort = o->sort ? o->sort : getenv ("SQUEUE_SORT");
    arbor_error_t err;

    if (queue_sort_parse (sort && *sort ? sort : QUEUE_SORT, keys, &err) < 0) {
        fprintf (stderr, "%s: error: %s\n", prog, err.text);
        exit (1);
    }
}

/* How long a folded line's task list may be: $SLURM_BITSTR_LEN, as for
 * squeue (0: no limit), else 64 bytes. */
static size_t queue_tasks_len (void)
{
    const char *env = getenv ("SLURM_BITSTR_LEN");
    char *end;
    long v;

    if (!env || !*env)
        return QUEUE_TASKS_LEN;
    v = strtol (env, &end, 10);
    return *end || v < 0 ? QUEUE_TASKS_LEN : (size_t)v;
}

/* The jobs to show, one a line (arrays folded unless -r or --json),
 * sorted. */
static void queue_lines (const struct queue_opts *o,
                         const struct queue_select *sel,
                         const struct queue_sort *keys,
                         const struct job_list *jobs, struct queue_lines *out)
{
    bool *keep = calloc (jobs->n + 1, sizeof (*keep));
    struct queue_row proto = { .now = time (NULL),
                               .time_format = acct_text_time_format () };

    if (!keep)
        die ("out of memory");
    for (size_t i = 0; i < jobs->n; i++)
        keep[i] = queue_select_job (sel, &jobs->jobs[i]);
    if (queue_lines_build (&proto, jobs, keep, !o->array && !o->json,
                           queue_tasks_len (), out)
        < 0)
        die ("out of memory");
    queue_sort_rows (out->v, out->n, keys);
    free (keep);
}

/* --json of the jobs, each record written as it is made. */
static void queue_stream_jobs (const struct queue_lines *l)
{
    if (queue_json_write_jobs (l->v, l->n, stdout) < 0)
        die ("--json: %s", strerror (errno));
}

static void queue_print (const char *prog, const struct queue_opts *o,
                         const struct queue_select *sel,
                         const struct queue_sort *keys,
                         const struct job_list *jobs)
{
    struct queue_lines l;
    struct fmt f;

    queue_lines (o, sel, keys, jobs, &l);
    if (o->json) {
        queue_stream_jobs (&l);
        queue_lines_free (&l);
        return;
    }
    queue_format (prog, o, &f);
    if (!o->noheader)
        fmt_print_header (stdout, &f);
    for (size_t k = 0; k < l.n; k++)
        fmt_print_row (stdout, &f, queue_field_value, &l.v[k]);
    fmt_free (&f);
    queue_lines_free (&l);
}

/* Entry i of a u32 list of 'r', or 'dflt' past its end: an older
 * controller may send fewer entries in some lists than in job_ids. */
#define QU32(r, field, i, dflt) \
    ((i) < (r)->field##_count ? (r)->field[i] : (dflt))

/* Step row i of 'r' to f: STEPID NAME PARTITION USER TIME NODELIST.
 * Every list is read only within its own count. */
static void queue_step_row (FILE *f, const struct msg_step_info_reply *r,
                            uint32_t i)
{
    char job[32], id[48], full[96], elapsed[32];
    uint32_t array = QU32 (r, array_job_ids, i, 0);
    uint32_t step = QU32 (r, step_ids, i, STEP_ID_ALL);
    const char *dot;

    if (array && i < r->array_task_ids_count)
        snprintf (job, sizeof (job), "%u_%u", array, r->array_task_ids[i]);
    else
        snprintf (job, sizeof (job), "%u", r->job_ids[i]);
    /* "0.5" for step 5; without a step id, the job's id alone */
    dot = strchr (jobsel_id_str (0, step, id, sizeof (id)), '.');
    snprintf (full, sizeof (full), "%s%s", job, dot ? dot : "");
    queue_elapsed (QU32 (r, start_times, i, 0), 0, elapsed, sizeof (elapsed));
    fprintf (f, "%15s %8.8s %9.9s %8.8s %9s %s\n", full, QCOL (r, names, i),
             QCOL (r, partitions, i), QCOL (r, users, i), elapsed,
             QCOL (r, nodelists, i));
}

/* The steps of 'r' that -j's tasks, -p, -n and -w let through, as
 * squeue -s lists them or as JSON. */
static void queue_step_print (const struct queue_opts *o,
                              const struct queue_select *sel,
                              const struct msg_step_info_reply *r)
{
    bool *keep = calloc (r->job_ids_count + 1, sizeof (*keep));

    if (!keep)
        die ("out of memory");
    for (uint32_t i = 0; i < r->job_ids_count; i++)
        keep[i] = queue_select_step (sel, r, i);
    if (o->json) {
        if (queue_json_write_steps (r, keep, stdout) < 0)
            die ("--json: %s", strerror (errno));
    } else {
        if (!o->noheader)
            printf ("%15s %8s %9s %8s %9s %s\n", "STEPID", "NAME", "PARTITION",
                    "USER", "TIME", "NODELIST");
        for (uint32_t i = 0; i < r->job_ids_count; i++)
            if (keep[i])
                queue_step_row (stdout, r, i);
    }
    free (keep);
}

/* -s: the running steps. */
static void queue_steps (struct client *cl, const struct queue_opts *o,
                         const struct queue_select *sel,
                         const struct msg_job_info *jreq)
{
    struct msg_step_info req = { .job_ids = jreq->job_ids,
                                 .job_ids_count = jreq->job_ids_count,
                                 .users = jreq->users,
                                 .users_count = jreq->users_count };
    struct msg_step_info_reply r;
    arbor_error_t err;

    if (client_call (cl, MSG_STEP_INFO, &req, MSG_STEP_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("step information: %s", err.text);
    queue_step_print (o, sel, &r);
    proto_clear (MSG_STEP_INFO_REPLY, &r);
}

/* One listing of the jobs (or steps). */
static void queue_once (struct client *cl, const char *prog,
                        const struct queue_opts *o,
                        const struct queue_select *sel,
                        const struct queue_sort *keys,
                        const struct msg_job_info *req)
{
    struct job_list jobs;
    arbor_error_t err;

    if (o->steps) {
        queue_steps (cl, o, sel, req);
        return;
    }
    if (jobinfo_fetch (cl, req, &jobs, &err) < 0)
        die ("job information: %s", err.text);
    queue_unknown_job (sel, req, &jobs);
    queue_print (prog, o, sel, keys, &jobs);
    job_list_clear (&jobs);
}

/* Bad input fails before the controller is asked. */
static void queue_check (const char *prog, const struct queue_opts *o,
                         struct queue_select *sel, struct queue_sort *keys)
{
    arbor_error_t err;
    struct fmt f;

    if (!o->json) { /* --json has no layout */
        queue_format (prog, o, &f);
        fmt_free (&f);
    }
    queue_sort_keys (prog, o, keys);
    if (queue_select_parse (sel, o->jobs, o->partitions, o->names, o->nodes,
                            &err)
        < 0) {
        fprintf (stderr, "%s: error: %s\n", prog, err.text);
        exit (1);
    }
    sel->qos = o->qos;
}

int cmd_queue_main (int argc, char **argv)
{
    struct queue_opts o = { 0 };
    struct queue_select sel;
    struct queue_sort keys;
    struct msg_job_info req;
    struct client cl;
    arbor_error_t err;

    log_open ("arbor", LOG_LVL_INFO, NULL);
    queue_parse (&o, argc, argv);
    queue_check (argv[0], &o, &sel, &keys);
    queue_request (argv[0], &o, &sel, &req);
    if (client_open (&cl, &err) < 0)
        die ("%s", err.text);
    for (;;) {
        /* squeue dates each listing of -i, and its -l listing */
        if ((o.iterate || o.longfmt) && !o.noheader && !o.json)
            queue_stamp ();
        queue_once (&cl, argv[0], &o, &sel, &keys, &req);
        if (!o.iterate)
            break;
        if (!o.noheader)
            putchar ('\n');
        fflush (stdout);
        sleep (o.iterate);
    }
    proto_clear (MSG_JOB_INFO, &req);
    queue_select_clear (&sel);
    client_close (&cl);
    free (o.me);
    return 0;
}
