/* cmd_job.c - "arbor job SUBCOMMAND": about one job.
 *
 *   arbor job events JOBID   its history, one event a line:
 *       2026-11-23T05:00:00  submitted by arbortest (uid 1001)
 *       2026-11-23T05:00:00  eligible
 *       2026-11-23T05:00:00  allocated node[1-2]
 *       ...
 * The job's owner, root and ArborUser may see it; kept with the job
 * (across requeues and controller restarts) for as long as it is listed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "cmds.h"
#include "log.h"
#include "proto.h"
#include "version.h"

static void job_usage (FILE *f, const char *prog)
{
    fprintf (f,
             "Usage: %s events JOBID\n"
             "  events JOBID  what happened to the job, and when\n",
             prog);
}

static uint32_t job_parse_id (const char *prog, const char *s)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul (s, &end, 10);
    if (errno || end == s || *end || v == 0 || v >= UINT32_MAX)
        die ("%s: invalid job id '%s'", prog, s);
    return (uint32_t)v;
}

static int job_events (const char *prog, uint32_t id)
{
    struct msg_job_events q = { .job_id = id };
    struct msg_job_events_reply r = { 0 };
    struct client cl = { 0 };
    arbor_error_t err;

    if (client_open (&cl, &err) < 0
        || client_call (&cl, MSG_JOB_EVENTS, &q, MSG_JOB_EVENTS_REPLY, &r,
                        CLIENT_TIMEOUT_MS, &err)
               < 0) {
        fprintf (stderr, "%s: error: %s\n", prog, err.text);
        client_close (&cl);
        return 1;
    }
    for (uint32_t i = 0; i < r.texts_count && i < r.times_count; i++) {
        time_t t = (time_t)r.times[i];
        struct tm tm;
        char when[32] = "Unknown";
        if (localtime_r (&t, &tm))
            strftime (when, sizeof (when), "%Y-%m-%dT%H:%M:%S", &tm);
        printf ("%s  %s\n", when, r.texts[i]);
    }
    if (r.dropped)
        printf ("(%u later events not kept)\n", r.dropped);
    proto_clear (MSG_JOB_EVENTS_REPLY, &r);
    client_close (&cl);
    return 0;
}

int cmd_job_main (int argc, char **argv)
{
    const char *prog = argv[0];

    static const char *const synopsis[] = { "events job_id", NULL };

    log_open (prog, LOG_LVL_INFO, NULL);
    if (argc >= 2 && !strcmp (argv[1], "--version"))
        version_option ('V', prog, synopsis);
    if (argc >= 2 && !strcmp (argv[1], "--usage"))
        version_option (VERSION_OPT_USAGE, prog, synopsis);
    if (argc >= 2 && (!strcmp (argv[1], "--help") || !strcmp (argv[1], "-h"))) {
        job_usage (stdout, prog);
        return 0;
    }
    if (argc == 3 && !strcmp (argv[1], "events"))
        return job_events (prog, job_parse_id (prog, argv[2]));
    if (argc >= 2 && strcmp (argv[1], "events") != 0)
        fprintf (stderr, "%s: error: unknown subcommand '%s'\n", prog, argv[1]);
    job_usage (stderr, prog);
    return 2;
}
