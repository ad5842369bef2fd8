/* acct_json.c - the --json document of arbor acct; see acct_json.h and
 * docs/json/acct.md and docs/schema/arbor.acct.schema.json (keep the three
 * in step).
 *
 * Written member by member (json_put_*: no jansson tree, which cost more
 * than the text). A job's members come from its view: its record (v->rec,
 * v->req) and, for what only accounting knows, its accounting record
 * (v->acct: the run, the cluster, the state, exit and memory accounted,
 * the history). Times are unix seconds, null when the record says 0
 * (not yet, or never); usage numbers of a step are null until a node
 * reported them. Text that is not UTF-8 (a job name is only bytes) has
 * its other bytes replaced by '?': JSON strings must be UTF-8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct_fields.h"
#include "acct_json.h"
#include "jobattr.h"
#include "jobsel.h"
#include "jobview_acct.h"
#include "json/json_doc.h"

struct acct_json {
    struct json_stream *s; /* each job written as it is added */
};

static void acct_json_exit (struct json_stream *s, int32_t code, int32_t sig)
{
    json_put_object (s, "exit_code");
    json_put_int (s, "status", code);
    json_put_int (s, "signal", sig);
    json_put_object_end (s);
}

/* A usage figure: null until a node reported the step's. */
static void acct_json_used (struct json_stream *s, const char *key, bool used,
                            json_int_t v)
{
    if (used)
        json_put_int (s, key, v);
    else
        json_put_null (s, key);
}

static void acct_json_step (struct json_stream *s,
                            const struct msg_acct_step *st)
{
    bool used = st->nodes_reported > 0;
    char id[48];
    const char *dot;

    dot = strchr (jobsel_id_str (0, st->step_id, id, sizeof (id)), '.');
    json_put_object (s, NULL);
    json_put_text (s, "step", dot ? dot + 1 : id);
    json_put_int (s, "step_id", st->step_id);
    json_put_text (s, "name", st->name);
    json_put_text (s, "state", st->state);
    acct_json_exit (s, st->exit_code, st->signal);
    json_put_time (s, "start_time", st->start_time);
    json_put_time (s, "end_time", st->end_time);
    json_put_int (s, "nnodes", st->nnodes);
    json_put_text (s, "nodelist", st->nodelist);
    json_put_int (s, "ntasks", st->ntasks);
    json_put_int (s, "alloc_cpus", st->alloc_cpus);
    json_put_int (s, "req_mem_mb", (json_int_t)st->req_mem_mb);
    json_put_int (s, "nodes_reported", st->nodes_reported);
    acct_json_used (s, "user_cpu_usec", used, (json_int_t)st->user_usec);
    acct_json_used (s, "system_cpu_usec", used, (json_int_t)st->sys_usec);
    acct_json_used (s, "max_rss_kb", used, (json_int_t)st->max_rss_kb);
    acct_json_used (s, "max_rss_task", used, st->max_rss_task);
    if (used)
        json_put_text (s, "max_rss_node", st->max_rss_node);
    else
        json_put_null (s, "max_rss_node");
    acct_json_used (s, "ave_rss_kb", used, (json_int_t)st->ave_rss_kb);
    json_put_object_end (s);
}

static void acct_json_events (struct json_stream *s,
                              const struct msg_acct_job *j)
{
    json_put_list (s, "events");
    for (uint32_t i = 0; i < j->events_count; i++) {
        json_put_object (s, NULL);
        json_put_time (s, "time",
                       i < j->event_times_count ? j->event_times[i] : 0);
        json_put_text (s, "text", j->events[i]);
        json_put_object_end (s);
    }
    json_put_list_end (s);
}

/* Who and where. */
static void acct_json_job_ids (struct json_stream *s, const struct job_view *v)
{
    const struct msg_job_rec *j = &v->rec;
    char group[64];

    json_put_int (s, "job_id", j->id);
    json_put_int (s, "run", v->acct->run);
    if (j->array_job_id) {
        json_put_int (s, "array_job_id", j->array_job_id);
        json_put_int (s, "array_task_id", j->array_task_id);
    } else {
        json_put_null (s, "array_job_id");
        json_put_null (s, "array_task_id");
    }
    json_put_text (s, "name", j->name);
    json_put_text (s, "user", j->user);
    json_put_int (s, "uid", j->uid);
    json_put_text (s, "group", acct_group_name (j->gid, group, sizeof (group)));
    json_put_int (s, "gid", j->gid);
    json_put_text (s, "account", j->account);
    json_put_text (s, "partition", j->partition);
    json_put_text (s, "cluster", v->acct->cluster);
    json_put_text (s, "work_dir", jv_str (v->req.cwd));
}

/* When and how it ended. */
static void acct_json_job_life (struct json_stream *s, const struct job_view *v)
{
    const struct msg_job_rec *j = &v->rec;

    json_put_time (s, "submit_time", j->submit_time);
    json_put_time (s, "eligible_time", j->eligible_time);
    json_put_time (s, "start_time", j->start_time);
    json_put_time (s, "end_time", j->end_time);
    json_put_text (s, "state", v->acct->state);
    acct_json_exit (s, v->acct->exit_code, v->acct->signal);
    json_put_text (s, "reason", j->reason);
}

/* What it asked for and had, and its history. */
static void acct_json_job_res (struct json_stream *s, const struct job_view *v)
{
    const struct msg_job_rec *j = &v->rec;
    const struct msg_acct_job *a = v->acct;

    json_put_int (s, "nnodes", j->nnodes);
    json_put_text (s, "nodelist", j->nodelist);
    json_put_int (s, "alloc_cpus", jobview_acct_alloc_cpus (v));
    json_put_int (s, "req_cpus", a->req_cpus);
    json_put_int (s, "ntasks", j->ntasks);
    json_put_int (s, "req_mem_mb", (json_int_t)a->req_mem_mb);
    json_put_bool (s, "mem_per_cpu", a->mem_per_cpu);
    json_put_int (s, "alloc_mem_mb", (json_int_t)a->alloc_mem_mb);
    if (j->time_limit == UINT32_MAX)
        json_put_null (s, "time_limit_minutes");
    else
        json_put_int (s, "time_limit_minutes", j->time_limit);
    /* the history is the accounting record's: job records as JOB_INFO
     * answers them leave it out */
    acct_json_events (s, a);
    json_put_int (s, "events_dropped", a->events_dropped);
}

/* What only the job record it carries tells (2.12): the job attributes,
 * null in a record an older controller wrote, and the QOS. */
static void acct_json_job_rec (struct json_stream *s, const struct job_view *v)
{
    bool has = jobview_acct_has_rec (v);

    for (size_t i = 0; i < job_nattrs; i++) {
        if (has)
            json_put_text (s, job_attrs[i].json,
                           job_attr_text (&job_attrs[i], v));
        else
            json_put_null (s, job_attrs[i].json);
    }
    /* its QOS (2.14): never null, a job of before having run in
     * "normal" */
    json_put_text (s, "qos", jv_qos (v));
}

int acct_json_add_job (struct acct_json *d, const struct job_view *v,
                       const struct msg_acct_step *const *steps, size_t nsteps)
{
    json_put_object (d->s, NULL);
    acct_json_job_ids (d->s, v);
    acct_json_job_life (d->s, v);
    acct_json_job_res (d->s, v);
    acct_json_job_rec (d->s, v);
    json_put_list (d->s, "steps");
    for (size_t i = 0; i < nsteps; i++)
        acct_json_step (d->s, steps[i]);
    json_put_list_end (d->s);
    json_put_object_end (d->s);
    return 0; /* an error shows in acct_json_write */
}

struct acct_json *acct_json_create (void)
{
    struct acct_json *d = calloc (1, sizeof (*d));

    if (!d)
        return NULL;
    d->s = json_stream_create (ACCT_JSON_SCHEMA, ACCT_JSON_VERSION, "jobs");
    if (!d->s) {
        free (d);
        return NULL;
    }
    return d;
}

void acct_json_destroy (struct acct_json *d)
{
    int e = errno;

    if (!d)
        return;
    json_stream_destroy (d->s);
    free (d);
    errno = e;
}

int acct_json_write (const struct acct_json *d, FILE *f)
{
    return json_stream_write (d->s, f);
}
