/* cmd_queue.c - "arbor queue" (squeue): the jobs the controller knows.
 *
 * squeue's default columns and widths:
 *   JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
 * Values are right-aligned and cut to the column width; TIME is how long
 * the job has run ("M:SS", "H:MM:SS", "D-HH:MM:SS"); pending jobs show
 * "(Reason)" instead of nodes. By default only pending, running and
 * completing jobs are listed; -t STATE[,STATE] (names or codes, or "all")
 * picks others. -j ID[,ID] and -u USER[,USER] filter, -h drops the header.
 * Ended jobs show how long they ran (end - start). -l adds the full state
 * name (in place of the code), the time limit and the exit code.
 *
 * The filters go to the controller (JOB_INFO users, states, job_ids),
 * which sends only the jobs asked for: the answer stays small however
 * many jobs others have.
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

#include "client.h"
#include "cmds.h"
#include "jobsel.h"
#include "opt.h"
#include "states.h"
#include "log.h"
#include "timestr.h"

struct queue_opts {
    bool noheader;
    bool longfmt;     /* -l */
    bool steps;       /* -s */
    bool start;       /* --start: pending jobs' planned starts */
    const char *jobs; /* comma-separated ids */
    const char *users;
    const char *states; /* NULL: PD,R,CG */
};

static const char queue_usage[] =
    "Usage: %s [-h] [-l] [-j ID[,ID]] [-u USER[,USER]] [-t STATE[,STATE]]\n"
    "  -j, --jobs=LIST      only these job ids\n"
    "  -u, --user=LIST      only jobs of these users\n"
    "  -t, --states=LIST    states (PENDING/PD, RUNNING/R, COMPLETING/CG,\n"
    "                       COMPLETED/CD, FAILED/F, CANCELLED/CA, TIMEOUT/TO,\n"
    "                       NODE_FAIL/NF, OUT_OF_MEMORY/OOM, or all)\n"
    "  -l, --long           also the full state, time limit and exit code\n"
    "  -s, --steps          the running steps (N.batch, N.extern, N.0...)\n"
    "      --start          pending jobs and when sched/backfill plans to\n"
    "                       start them\n"
    "  -h, --noheader       no header line\n"
    "      --help           this help\n";

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
 * (common/states.h), which JOB_INFO filters on; none at all for "all". */
static void queue_req_states (const struct queue_opts *o,
                              struct msg_job_info *req)
{
    const char *list = o->states ? o->states : o->start ? "PD" : "PD,R,CG";

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

/* -j: job ids, each a number. */
static void queue_req_ids (const char *prog, const char *list,
                           struct msg_job_info *req)
{
    uint32_t n;
    char **v = queue_split (list, &n);

    if (!(req->job_ids = calloc (n + 1, sizeof (uint32_t))))
        die ("out of memory");
    for (uint32_t i = 0; i < n; i++) {
        char *end;
        unsigned long id;
        errno = 0;
        id = strtoul (v[i], &end, 10);
        if (errno || *end || end == v[i] || id == 0 || id > UINT32_MAX) {
            fprintf (stderr, "%s: invalid job id '%s'\n", prog, v[i]);
            exit (1);
        }
        req->job_ids[req->job_ids_count++] = (uint32_t)id;
        free (v[i]);
    }
    free (v);
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

/* The JOB_INFO request carrying -u, -t and -j. */
static void queue_request (const char *prog, const struct queue_opts *o,
                           struct msg_job_info *req)
{
    memset (req, 0, sizeof (*req));
    queue_req_states (o, req);
    if (o->users) {
        req->users = queue_split (o->users, &req->users_count);
        queue_check_users (prog, req->users, req->users_count);
    }
    if (o->jobs)
        queue_req_ids (prog, o->jobs, req);
}

static void queue_check_states (const char *prog, const char *list)
{
    char *copy = strdup (list), *save = NULL;

    if (!copy)
        die ("out of memory");
    for (char *s = strtok_r (copy, ",", &save); s;
         s = strtok_r (NULL, ",", &save)) {
        if (!jobsel_state_valid (s)) {
            fprintf (stderr, "%s: invalid --states '%s'\n", prog, s);
            exit (1);
        }
    }
    free (copy);
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
        { "start", no_argument, NULL, 'S' },
        { "help", no_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, ":hlsj:u:t:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': o->noheader = true; break;
        case 'l': o->longfmt = true; break;
        case 's': o->steps = true; break;
        case 'S': o->start = true; break;
        case 'j': o->jobs = optarg; break;
        case 'u': o->users = optarg; break;
        case 't':
            queue_check_states (argv[0], optarg);
            o->states = optarg;
            break;
        case 'H': printf (queue_usage, argv[0]); exit (0);
        default: opt_getopt_die (c, argv, argv[0], longopts);
        }
    }
    if (optind < argc) {
        fprintf (stderr, "%s: unexpected argument '%s'\n", argv[0],
                 argv[optind]);
        exit (1);
    }
}

/* squeue's TIME column: from start to end (or now, if not ended). */
static void queue_elapsed (uint32_t start, uint32_t end, char *buf, size_t len)
{
    time_t to = end ? (time_t)end : time (NULL);
    long s = start ? (long)(to - (time_t)start) : 0;

    if (s < 0)
        s = 0;
    if (s >= 86400)
        snprintf (buf, len, "%ld-%02ld:%02ld:%02ld", s / 86400,
                  s % 86400 / 3600, s % 3600 / 60, s % 60);
    else if (s >= 3600)
        snprintf (buf, len, "%ld:%02ld:%02ld", s / 3600, s % 3600 / 60, s % 60);
    else
        snprintf (buf, len, "%ld:%02ld", s / 60, s % 60);
}

#define QCOL(r, field, i) \
    ((i) < (r)->field##_count && (r)->field[i] ? (r)->field[i] : "")

static void queue_header (const struct queue_opts *o)
{
    if (o->noheader)
        return;
    if (o->start)
        printf ("%18s %9s %8s %8s %2s %19s %6s %-20s %s\n", "JOBID",
                "PARTITION", "NAME", "USER", "ST", "START_TIME", "NODES",
                "SCHEDNODES", "NODELIST(REASON)");
    else if (o->longfmt)
        printf ("%18s %9s %8s %8s %13s %10s %10s %6s %4s %s\n", "JOBID",
                "PARTITION", "NAME", "USER", "STATE", "TIME", "TIME_LIMIT",
                "NODES", "EXIT", "NODELIST(REASON)");
    else
        printf ("%18s %9s %8s %8s %2s %10s %6s %s\n", "JOBID", "PARTITION",
                "NAME", "USER", "ST", "TIME", "NODES", "NODELIST(REASON)");
}

/* The job's id as squeue shows it: "5", or "4_2" for task 2 of array 4. */
static const char *queue_jobid (const struct msg_job_info_reply *r, uint32_t i,
                                char *buf, size_t len)
{
    if (i < r->array_job_ids_count && r->array_job_ids[i]
        && i < r->array_task_ids_count)
        snprintf (buf, len, "%u_%u", r->array_job_ids[i], r->array_task_ids[i]);
    else
        snprintf (buf, len, "%u", r->job_ids[i]);
    return buf;
}

/* One row; long format adds the full state, limit and exit code. */
static void queue_row (const struct queue_opts *o,
                       const struct msg_job_info_reply *r, uint32_t i)
{
    const char *st = QCOL (r, states, i);
    bool pending = job_state_parse (st, false) == JOB_PENDING;
    uint32_t start =
        pending || i >= r->start_times_count ? 0 : r->start_times[i];
    uint32_t end = i < r->end_times_count ? r->end_times[i] : 0;
    uint32_t limit = i < r->time_limits_count ? r->time_limits[i] : 0;
    char elapsed[32], where[256], lim[32] = "UNLIMITED", exitc[16] = "-";
    char id[32];

    queue_elapsed (start, end, elapsed, sizeof (elapsed));
    if (pending || !*QCOL (r, nodelists, i))
        snprintf (where, sizeof (where), "(%s)",
                  *QCOL (r, reasons, i) ? QCOL (r, reasons, i) : "None");
    else
        snprintf (where, sizeof (where), "%s", QCOL (r, nodelists, i));
    uint32_t nn = i < r->nnodes_count ? r->nnodes[i] : 0;

    if (!o->longfmt) {
        printf ("%18s %9.9s %8.8s %8.8s %2.2s %10s %6u %s\n",
                queue_jobid (r, i, id, sizeof (id)), QCOL (r, partitions, i),
                QCOL (r, names, i), QCOL (r, users, i), jobsel_state_code (st),
                elapsed, nn, where);
        return;
    }
    if (limit && limit != TIME_INFINITE)
        timestr_format (limit, lim, sizeof (lim));
    if (end && i < r->exit_codes_count)
        snprintf (exitc, sizeof (exitc), "%d", r->exit_codes[i]);
    printf ("%18s %9.9s %8.8s %8.8s %13.13s %10s %10s %6u %4s %s\n",
            queue_jobid (r, i, id, sizeof (id)), QCOL (r, partitions, i),
            QCOL (r, names, i), QCOL (r, users, i), st, elapsed, lim, nn, exitc,
            where);
}

/* --start: squeue's planned start column ("N/A" when none is planned:
 * sched/builtin, or nothing within bf_window). */
static void queue_start_row (const struct msg_job_info_reply *r, uint32_t i)
{
    uint32_t at = i < r->expected_starts_count ? r->expected_starts[i] : 0;
    uint32_t nn = i < r->nnodes_count ? r->nnodes[i] : 0;
    char when[32] = "N/A", id[32], why[256];
    time_t t = (time_t)at;
    struct tm tm;

    if (at && localtime_r (&t, &tm))
        strftime (when, sizeof (when), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf (why, sizeof (why), "(%s)",
              *QCOL (r, reasons, i) ? QCOL (r, reasons, i) : "None");
    printf ("%18s %9.9s %8.8s %8.8s %2.2s %19s %6u %-20s %s\n",
            queue_jobid (r, i, id, sizeof (id)), QCOL (r, partitions, i),
            QCOL (r, names, i), QCOL (r, users, i),
            jobsel_state_code (QCOL (r, states, i)), when, nn, "(null)", why);
}

static void queue_print (const struct queue_opts *o,
                         const struct msg_job_info_reply *r)
{
    queue_header (o);
    for (uint32_t i = 0; i < r->job_ids_count; i++) {
        if (o->start)
            queue_start_row (r, i);
        else
            queue_row (o, r, i);
    }
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

/* -s: squeue's step listing, STEPID NAME PARTITION USER TIME NODELIST. */
static void queue_steps (struct client *cl, const struct queue_opts *o,
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
    if (!o->noheader)
        printf ("%15s %8s %9s %8s %9s %s\n", "STEPID", "NAME", "PARTITION",
                "USER", "TIME", "NODELIST");
    for (uint32_t i = 0; i < r.job_ids_count; i++)
        queue_step_row (stdout, &r, i);
    proto_clear (MSG_STEP_INFO_REPLY, &r);
}

int cmd_queue_main (int argc, char **argv)
{
    struct queue_opts o = { 0 };
    struct msg_job_info req;
    struct msg_job_info_reply r;
    struct client cl;
    arbor_error_t err;

    log_open ("arbor", LOG_LVL_INFO, NULL);
    queue_parse (&o, argc, argv);
    queue_request (argv[0], &o, &req);
    if (client_open (&cl, &err) < 0)
        die ("%s", err.text);
    if (o.steps) {
        queue_steps (&cl, &o, &req);
        proto_clear (MSG_JOB_INFO, &req);
        client_close (&cl);
        return 0;
    }
    if (client_call (&cl, MSG_JOB_INFO, &req, MSG_JOB_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("job information: %s", err.text);
    proto_clear (MSG_JOB_INFO, &req);
    queue_print (&o, &r);
    proto_clear (MSG_JOB_INFO_REPLY, &r);
    client_close (&cl);
    return 0;
}
