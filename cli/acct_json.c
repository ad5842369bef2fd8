/* acct_json.c - the --json document of arbor acct; see acct_json.h and
 * docs/json/acct.md and docs/schema/arbor.acct.schema.json (keep the three
 * in step).
 *
 * Built with jansson. Times are unix seconds, null when the record says 0
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
#include "jobsel.h"
#include "json_doc.h"

struct acct_json {
    struct json_stream *s; /* each job written as it is added */
};

static json_t *json_exit (int32_t code, int32_t sig)
{
    return json_pack ("{s:i,s:i}", "status", (int)code, "signal", (int)sig);
}

#define SET JSON_SET

static json_t *acct_json_step (const struct msg_acct_step *s)
{
    json_t *o = json_object ();
    bool used = s->nodes_reported > 0;
    char id[48];
    const char *dot;
    int bad = 0;

    if (!o)
        return NULL;
    dot = strchr (jobsel_id_str (0, s->step_id, id, sizeof (id)), '.');
    bad |= SET (o, "step", json_doc_text (dot ? dot + 1 : id));
    bad |= SET (o, "step_id", json_integer (s->step_id));
    bad |= SET (o, "name", json_doc_text (s->name));
    bad |= SET (o, "state", json_doc_text (s->state));
    bad |= SET (o, "exit_code", json_exit (s->exit_code, s->signal));
    bad |= SET (o, "start_time", json_doc_time (s->start_time));
    bad |= SET (o, "end_time", json_doc_time (s->end_time));
    bad |= SET (o, "nnodes", json_integer (s->nnodes));
    bad |= SET (o, "nodelist", json_doc_text (s->nodelist));
    bad |= SET (o, "ntasks", json_integer (s->ntasks));
    bad |= SET (o, "alloc_cpus", json_integer (s->alloc_cpus));
    bad |= SET (o, "req_mem_mb", json_integer ((json_int_t)s->req_mem_mb));
    bad |= SET (o, "nodes_reported", json_integer (s->nodes_reported));
    bad |= SET (o, "user_cpu_usec",
                used ? json_integer ((json_int_t)s->user_usec) : json_null ());
    bad |= SET (o, "system_cpu_usec",
                used ? json_integer ((json_int_t)s->sys_usec) : json_null ());
    bad |= SET (o, "max_rss_kb",
                used ? json_integer ((json_int_t)s->max_rss_kb) : json_null ());
    bad |= SET (o, "max_rss_task",
                used ? json_integer (s->max_rss_task) : json_null ());
    bad |= SET (o, "max_rss_node",
                used ? json_doc_text (s->max_rss_node) : json_null ());
    bad |= SET (o, "ave_rss_kb",
                used ? json_integer ((json_int_t)s->ave_rss_kb) : json_null ());
    if (bad) {
        json_decref (o);
        return NULL;
    }
    return o;
}

static json_t *acct_json_events (const struct msg_acct_job *j)
{
    json_t *a = json_array ();

    for (uint32_t i = 0; a && i < j->events_count; i++) {
        uint64_t t = i < j->event_times_count ? j->event_times[i] : 0;
        json_t *e = json_pack ("{s:o,s:o}", "time", json_doc_time (t), "text",
                               json_doc_text (j->events[i]));
        if (json_array_append_new (a, e) < 0) {
            json_decref (a);
            return NULL;
        }
    }
    return a;
}

/* Who and where. */
static int acct_json_job_ids (json_t *o, const struct msg_acct_job *j)
{
    char group[64];
    int bad = 0;

    bad |= SET (o, "job_id", json_integer (j->job_id));
    bad |= SET (o, "run", json_integer (j->run));
    bad |=
        SET (o, "array_job_id",
             j->array_job_id ? json_integer (j->array_job_id) : json_null ());
    bad |=
        SET (o, "array_task_id",
             j->array_job_id ? json_integer (j->array_task_id) : json_null ());
    bad |= SET (o, "name", json_doc_text (j->name));
    bad |= SET (o, "user", json_doc_text (j->user));
    bad |= SET (o, "uid", json_integer (j->uid));
    bad |=
        SET (o, "group",
             json_doc_text (acct_group_name (j->gid, group, sizeof (group))));
    bad |= SET (o, "gid", json_integer (j->gid));
    bad |= SET (o, "account", json_doc_text (j->account));
    bad |= SET (o, "partition", json_doc_text (j->partition));
    bad |= SET (o, "cluster", json_doc_text (j->cluster));
    bad |= SET (o, "work_dir", json_doc_text (j->work_dir));
    return bad ? -1 : 0;
}

/* When, how it ended, and what it had. */
static int acct_json_job_life (json_t *o, const struct msg_acct_job *j)
{
    int bad = 0;

    bad |= SET (o, "submit_time", json_doc_time (j->submit_time));
    bad |= SET (o, "eligible_time", json_doc_time (j->eligible_time));
    bad |= SET (o, "start_time", json_doc_time (j->start_time));
    bad |= SET (o, "end_time", json_doc_time (j->end_time));
    bad |= SET (o, "state", json_doc_text (j->state));
    bad |= SET (o, "exit_code", json_exit (j->exit_code, j->signal));
    bad |= SET (o, "reason", json_doc_text (j->reason));
    bad |= SET (o, "nnodes", json_integer (j->nnodes));
    bad |= SET (o, "nodelist", json_doc_text (j->nodelist));
    bad |= SET (o, "alloc_cpus", json_integer (j->alloc_cpus));
    bad |= SET (o, "req_cpus", json_integer (j->req_cpus));
    bad |= SET (o, "ntasks", json_integer (j->ntasks));
    bad |= SET (o, "req_mem_mb", json_integer ((json_int_t)j->req_mem_mb));
    bad |= SET (o, "mem_per_cpu", json_boolean (j->mem_per_cpu));
    bad |= SET (o, "alloc_mem_mb", json_integer ((json_int_t)j->alloc_mem_mb));
    bad |= SET (o, "time_limit_minutes",
                j->time_limit == UINT32_MAX ? json_null ()
                                            : json_integer (j->time_limit));
    bad |= SET (o, "events", acct_json_events (j));
    bad |= SET (o, "events_dropped", json_integer (j->events_dropped));
    return bad ? -1 : 0;
}

int acct_json_add_job (struct acct_json *d, const struct msg_acct_job *job,
                       const struct msg_acct_step *const *steps, size_t nsteps)
{
    json_t *o = json_object (), *a = json_array ();

    if (!o || !a || acct_json_job_ids (o, job) < 0
        || acct_json_job_life (o, job) < 0)
        goto nomem;
    for (size_t i = 0; i < nsteps; i++)
        if (json_array_append_new (a, acct_json_step (steps[i])) < 0)
            goto nomem;
    if (SET (o, "steps", a) < 0) {
        a = NULL; /* consumed even so */
        goto nomem;
    }
    return json_stream_add (d->s, o); /* o consumed */
nomem:
    json_decref (a);
    json_decref (o);
    errno = ENOMEM;
    return -1;
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
