/* cmd_jobaction.c - "arbor hold|release|requeue ID..." and scontrol's
 * hold, uhold, release, requeue, suspend, resume and update JobId=.
 *
 * Each argument is a job id, a comma-separated list of them, or an
 * array task as ID_TASK (looked up with JOB_INFO); an array job's id
 * names all its tasks. One JOB_ACTION carries them all; the controller
 * answers which could not be changed ("job 7: Job is no longer
 * pending"), printed as the error, exit 1. "update JobId=ID KEY=VALUE..."
 * names jobs the same way and sends JOB_UPDATE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client.h"
#include "cmd_jobaction.h"
#include "cmds.h"
#include "jobinfo.h"
#include "jobsel.h"
#include "log.h"
#include "opt.h"
#include "proto.h"
#include "version.h"

struct ids {
    uint32_t *v;
    uint32_t n;
};

static void ids_add (struct ids *ids, uint32_t id)
{
    if (!(ids->v = realloc (ids->v, (ids->n + 1) * sizeof (*ids->v))))
        die ("out of memory");
    ids->v[ids->n++] = id;
}

/* Job ids in one request: the controller takes at most this many
 * (ctld/job/job.h, JOB_MAX_IDS); longer lists go in parts. */
#define JOBACTION_MAX_IDS 4096u

/* Part 'at' (counted over ids, then tasks) of the lists: at most
 * JOBACTION_MAX_IDS ids in all, into jv, jn, tv and tn. */
static void ids_part (const struct ids *ids, const struct ids *tasks,
                      uint32_t at, uint32_t **jv, uint32_t *jn, uint32_t **tv,
                      uint32_t *tn)
{
    uint32_t left = JOBACTION_MAX_IDS;
    uint32_t jat = at < ids->n ? at : ids->n;
    uint32_t tat = at > ids->n ? at - ids->n : 0;

    *jn = ids->n - jat < left ? ids->n - jat : left;
    *jv = ids->v ? ids->v + jat : NULL;
    left -= *jn;
    tat = tat < tasks->n ? tat : tasks->n;
    *tn = tasks->n - tat < left ? tasks->n - tat : left;
    *tv = tasks->v ? tasks->v + tat : NULL;
}

/* The job id of array task 'task' of array 'array'. */
static uint32_t ids_task (struct client *cl, uint32_t array, uint32_t task)
{
    struct msg_job_info q = { .job_ids = &array, .job_ids_count = 1 };
    struct job_list jobs;
    arbor_error_t err;
    uint32_t id = 0;
    int i;

    if (jobinfo_fetch (cl, &q, &jobs, &err) < 0)
        die ("%s", err.text);
    if ((i = jobsel_list_task (&jobs, array, task)) >= 0)
        id = jobs.jobs[i].rec.id;
    job_list_clear (&jobs);
    if (!id)
        die ("Invalid job id %u_%u", array, task);
    return id;
}

/* One word: "5", "5,6" (into ids), "5_3" (a task: into tasks). */
static void ids_word (struct client *cl, struct ids *ids, struct ids *tasks,
                      const char *w)
{
    char *copy = strdup (w), *save = NULL;

    if (!copy)
        die ("out of memory");
    for (char *t = strtok_r (copy, ",", &save); t;
         t = strtok_r (NULL, ",", &save)) {
        char *us = strchr (t, '_');
        uint32_t id, task;
        if (us)
            *us = '\0';
        if (opt_parse_count (t, false, &id) < 0
            || (us && opt_parse_count (us + 1, true, &task) < 0))
            die ("Invalid job id %s", w);
        if (us)
            ids_add (tasks, ids_task (cl, id, task));
        else
            ids_add (ids, id);
    }
    free (copy);
}

/* update's words: "JobId=LIST" into ids and tasks, the other KEY=VALUE
 * pairs into m's keys and values (pointing into argv). */
static void update_words (struct client *cl, struct msg_job_update *m,
                          struct ids *ids, struct ids *tasks, int argc,
                          char **argv)
{
    if (!(m->keys = calloc ((size_t)argc + 1, sizeof (char *)))
        || !(m->values = calloc ((size_t)argc + 1, sizeof (char *))))
        die ("out of memory");
    for (int i = 0; i < argc; i++) {
        char *eq = strchr (argv[i], '=');
        if (!eq || eq == argv[i])
            die ("invalid input: %s (expected KEY=VALUE)", argv[i]);
        if (!strncasecmp (argv[i], "JobId=", 6)) {
            ids_word (cl, ids, tasks, eq + 1);
            continue;
        }
        *eq = '\0';
        m->keys[m->keys_count++] = argv[i];
        m->values[m->values_count++] = eq + 1;
    }
    if (ids->n + tasks->n == 0)
        die ("update: JobId=ID is required");
    if (m->keys_count == 0)
        die ("update JobId: no changes specified (TimeLimit=, JobName=, "
             "Partition=, NumNodes=, Nice=)");
}

int jobupdate_run (const char *prog, int argc, char **argv)
{
    struct msg_job_update m = { 0 };
    struct client cl = { .ch.fd = -1 };
    struct ids ids = { 0 }, tasks = { 0 };
    arbor_error_t err;
    int rc = 0;

    (void)prog;
    if (client_open (&cl, &err) < 0)
        die ("%s", err.text);
    update_words (&cl, &m, &ids, &tasks, argc, argv);
    /* More ids than one request takes: each part is checked and applied
     * on its own */
    for (uint32_t at = 0; at < ids.n + tasks.n; at += JOBACTION_MAX_IDS) {
        ids_part (&ids, &tasks, at, &m.job_ids, &m.job_ids_count, &m.task_ids,
                  &m.task_ids_count);
        if (client_call (&cl, MSG_JOB_UPDATE, &m, MSG_RC, NULL,
                         CLIENT_TIMEOUT_MS, &err)
            < 0) {
            log_err ("%s", err.text);
            rc = 1;
        }
    }
    free (m.keys);
    free (m.values);
    free (ids.v);
    free (tasks.v);
    client_close (&cl);
    return rc;
}

int jobaction_run (const char *prog, const char *action, int argc, char **argv)
{
    struct msg_job_action m = { .action = (char *)action };
    struct client cl = { .ch.fd = -1 };
    struct ids ids = { 0 }, tasks = { 0 };
    arbor_error_t err;
    uint32_t at = 0;
    int rc = 0;

    if (argc < 1) {
        fprintf (stderr, "Usage: %s JOBID[,JOBID...] [JOBID...]\n", prog);
        return 1;
    }
    if (client_open (&cl, &err) < 0)
        die ("%s", err.text);
    for (int i = 0; i < argc; i++)
        ids_word (&cl, &ids, &tasks, argv[i]);
    do { /* in parts of at most JOBACTION_MAX_IDS */
        ids_part (&ids, &tasks, at, &m.job_ids, &m.job_ids_count, &m.task_ids,
                  &m.task_ids_count);
        if (client_call (&cl, MSG_JOB_ACTION, &m, MSG_RC, NULL,
                         CLIENT_TIMEOUT_MS, &err)
            < 0) {
            log_err ("%s", err.text);
            rc = 1;
        }
        at += JOBACTION_MAX_IDS;
    } while (at < ids.n + tasks.n);
    free (ids.v);
    free (tasks.v);
    client_close (&cl);
    return rc;
}

static int jobaction_main (int argc, char **argv, const char *action)
{
    static const char *const synopsis[] = { "job_id[,job_id...] [job_id...]",
                                            NULL };

    log_open (argv[0], LOG_LVL_INFO, NULL);
    if (argc > 1 && !strcmp (argv[1], "--version"))
        version_option ('V', argv[0], synopsis);
    if (argc > 1 && !strcmp (argv[1], "--usage"))
        version_option (VERSION_OPT_USAGE, argv[0], synopsis);
    if (argc > 1 && (!strcmp (argv[1], "-h") || !strcmp (argv[1], "--help"))) {
        printf ("Usage: %s JOBID[,JOBID...] [JOBID...]\n"
                "%s the jobs (an array job's id names all its tasks; "
                "ID_TASK one task).\n",
                argv[0], action);
        return 0;
    }
    return jobaction_run (argv[0], action, argc - 1, argv + 1);
}

int cmd_hold_main (int argc, char **argv)
{
    return jobaction_main (argc, argv, "hold");
}

int cmd_release_main (int argc, char **argv)
{
    return jobaction_main (argc, argv, "release");
}

int cmd_requeue_main (int argc, char **argv)
{
    return jobaction_main (argc, argv, "requeue");
}
