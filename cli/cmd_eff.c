/* cmd_eff.c - "arbor eff JOBID" (seff): how efficiently one job used the
 * CPUs and memory it was given.
 *
 *   Job ID: 7
 *   Cluster: arbor
 *   User/Group: alice/alice
 *   State: COMPLETED (exit code 0)
 *   Nodes: 2
 *   Cores per node: 4
 *   CPU Utilized: 00:10:02
 *   CPU Efficiency: 62.71% of 00:16:00 core-walltime
 *   Job Wall-clock time: 00:02:00
 *   Memory Utilized: 1.20 GB
 *   Memory Efficiency: 15.00% of 8.00 GB (4.00 GB/node)
 *
 * One ACCT_QUERY for the job and its steps (the last run of a requeued
 * job), each run read as one view (jobview_acct.h); the figures are
 * eff.h's.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct/acct.h"
#include "client.h"
#include "cmds.h"
#include "jobsel.h"
#include "jobview_acct.h"
#include "log.h"
#include "opt.h"
#include "version.h"

static const char eff_usage[] =
    "Usage: %s [-h] JOBID\n"
    "  JOBID          N, or N_T for task T of array N\n"
    "  -h, --help     this help\n"
    "      --usage    the options in short\n"
    "  -V, --version  the version (\"slurm X.Y.Z\"; -v too, as seff's)\n";

/* --usage: seff's options in short. */
static const char *const eff_synopsis[] = {
    "[-h] [-V] [--usage] jobid",
    NULL,
};

static void eff_parse (int argc, char **argv, struct acct_sel *sel)
{
    static const struct option longopts[] = {
        { "help", no_argument, NULL, 'h' },
        VERSION_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, ":hvV", longopts, NULL)) != -1) {
        /* seff's own -v prints its version */
        version_option (c == 'v' ? 'V' : c, argv[0], eff_synopsis);
        if (c != 'h')
            opt_getopt_die (c, argv, argv[0], longopts);
        printf (eff_usage, argv[0]);
        exit (0);
    }
    if (optind + 1 != argc) {
        fprintf (stderr, eff_usage, argv[0]);
        exit (1);
    }
    if (jobsel_parse_id (argv[optind], &sel->job, &sel->task, &sel->step) < 0
        || sel->step != STEP_ID_ALL) {
        fprintf (stderr, "%s: error: invalid job id '%s'\n", argv[0],
                 argv[optind]);
        exit (1);
    }
}

/* The last run of the job 'sel' names: its own id (an array's id is
 * also that of one of its tasks), or task T of array N. */
static const struct job_view *eff_find (const struct job_list *runs,
                                        const struct acct_sel *sel)
{
    const struct job_view *found = NULL;

    for (size_t i = 0; i < runs->n; i++) {
        const struct msg_job_rec *j = &runs->jobs[i].rec;
        bool match =
            sel->task == JOBSEL_NO_TASK
                ? j->id == sel->job
                : j->array_job_id == sel->job && j->array_task_id == sel->task;
        if (match && acct_last_run (runs->jobs, runs->n, i))
            found = &runs->jobs[i];
    }
    return found;
}

/* Print the report on the job 'sel' names. 0, or 1 (said why). */
static int eff_report (const char *prog, const char *id,
                       const struct acct_result *res,
                       const struct acct_sel *sel)
{
    struct job_list runs = { 0 };
    const struct job_view *job;
    const struct msg_acct_step *steps;
    struct eff_report rep;
    arbor_error_t err;
    char group[64];
    size_t n;

    if (jobview_acct_list (&runs, res->jobs, res->njobs, &err) < 0)
        die ("%s", err.text);
    acct_sort_jobs (runs.jobs, runs.n);
    if (!(job = eff_find (&runs, sel))) {
        fprintf (stderr, "%s: job %s not found\n", prog, id);
        job_list_clear (&runs);
        return 1;
    }
    steps = acct_steps_of (res->steps, res->nsteps, job, &n);
    eff_compute (job, steps, n, time (NULL), &rep);
    eff_print (stdout, &rep,
               acct_group_name (job->rec.gid, group, sizeof (group)));
    job_list_clear (&runs);
    return 0;
}

int cmd_eff_main (int argc, char **argv)
{
    struct acct_sel sel;
    struct msg_acct_query q = { .job_ids = &sel.job, .job_ids_count = 1 };
    struct acct_result res;
    struct client cl;
    arbor_error_t err;
    int rc;

    log_open (argv[0], LOG_LVL_INFO, NULL);
    eff_parse (argc, argv, &sel);
    if (client_open (&cl, &err) < 0
        || client_acct_query (&cl, &q, &res, &err) < 0) {
        fprintf (stderr, "%s: %s\n", argv[0], err.text);
        return 1;
    }
    client_close (&cl);
    acct_sort_steps (res.steps, res.nsteps);
    rc = eff_report (argv[0], argv[argc - 1], &res, &sel);
    client_acct_clear (&res);
    return rc;
}
