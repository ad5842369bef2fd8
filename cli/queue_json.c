/* queue_json.c - the --json documents of arbor queue; see queue_json.h
 * and docs/json/queue.md (keep the two in step).
 *
 * Built with jansson through json_doc.h, as arbor acct's. Each list of
 * the reply is read only within its own count (an older controller may
 * send shorter lists): what is missing reads as 0 or "".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "jobsel.h"
#include "json_doc.h"
#include "queue_json.h"
#include "states.h"
#include "timestr.h"

#define SET JSON_SET

/* Text, or null when there is none. */
static json_t *queue_json_text_or_null (const char *s)
{
    return *s ? json_doc_text (s) : json_null ();
}

static json_t *queue_json_array_id (uint32_t array, uint32_t id)
{
    return array ? json_integer (id) : json_null ();
}

/* Who, what and where. */
static int queue_json_job_ids (json_t *o, const struct msg_job_info_reply *r,
                               uint32_t i)
{
    uint32_t array = PROTO_NUM (r, array_job_ids, i);
    const char *state = PROTO_STR (r, states, i);
    int bad = 0;

    bad |= SET (o, "job_id", json_integer (r->job_ids[i]));
    bad |= SET (o, "array_job_id", queue_json_array_id (array, array));
    bad |= SET (o, "array_task_id",
                queue_json_array_id (array, PROTO_NUM (r, array_task_ids, i)));
    bad |= SET (o, "name", json_doc_text (PROTO_STR (r, names, i)));
    bad |= SET (o, "user", json_doc_text (PROTO_STR (r, users, i)));
    bad |= SET (o, "account", json_doc_text (PROTO_STR (r, accounts, i)));
    bad |= SET (o, "partition", json_doc_text (PROTO_STR (r, partitions, i)));
    bad |= SET (o, "state", json_doc_text (state));
    bad |= SET (o, "state_code", json_doc_text (jobsel_state_code (state)));
    bad |= SET (o, "reason", json_doc_text (PROTO_STR (r, reasons, i)));
    /* the controller computes a priority for pending jobs only */
    bad |= SET (o, "priority",
                job_state_parse (state, false) == JOB_PENDING
                    ? json_integer (PROTO_NUM (r, priorities, i))
                    : json_null ());
    bad |= SET (o, "nodelist", json_doc_text (PROTO_STR (r, nodelists, i)));
    bad |= SET (o, "nnodes", json_integer (PROTO_NUM (r, nnodes, i)));
    bad |= SET (o, "ncpus", json_integer (PROTO_NUM (r, ncpus, i)));
    return bad ? -1 : 0;
}

/* When, how it ends or ended, and what it runs. */
static int queue_json_job_life (json_t *o, const struct msg_job_info_reply *r,
                                uint32_t i)
{
    uint32_t limit = PROTO_NUM (r, time_limits, i);
    bool pending =
        job_state_parse (PROTO_STR (r, states, i), false) == JOB_PENDING;
    int bad = 0;

    bad |= SET (o, "time_limit_minutes",
                !limit || limit == TIME_INFINITE ? json_null ()
                                                 : json_integer (limit));
    bad |=
        SET (o, "submit_time", json_doc_time (PROTO_NUM (r, submit_times, i)));
    /* a requeued job keeps its last start: not a start of this wait */
    bad |= SET (o, "start_time",
                json_doc_time (pending ? 0 : PROTO_NUM (r, start_times, i)));
    bad |= SET (o, "expected_start_time",
                json_doc_time (PROTO_NUM (r, expected_starts, i)));
    bad |= SET (o, "end_time", json_doc_time (PROTO_NUM (r, end_times, i)));
    bad |= SET (o, "exit_code",
                json_pack ("{s:i,s:i}", "status",
                           (int)PROTO_NUM (r, exit_codes, i), "signal", 0));
    bad |= SET (o, "work_dir", json_doc_text (PROTO_STR (r, work_dirs, i)));
    bad |= SET (o, "std_out",
                queue_json_text_or_null (PROTO_STR (r, std_outs, i)));
    bad |= SET (o, "std_err",
                queue_json_text_or_null (PROTO_STR (r, std_errs, i)));
    bad |= SET (o, "dependency",
                queue_json_text_or_null (PROTO_STR (r, dependencies, i)));
    bad |= SET (o, "batch", json_boolean (PROTO_NUM (r, batch_flags, i)));
    bad |= SET (o, "restarts", json_integer (PROTO_NUM (r, restarts, i)));
    bad |= SET (o, "command", json_doc_text (PROTO_STR (r, commands, i)));
    bad |= SET (o, "running_steps", json_integer (PROTO_NUM (r, nsteps, i)));
    return bad ? -1 : 0;
}

json_t *queue_json_job (const struct queue_row *row)
{
    json_t *o = json_object ();

    if (!o || queue_json_job_ids (o, row->r, row->i) < 0
        || queue_json_job_life (o, row->r, row->i) < 0) {
        json_decref (o);
        errno = ENOMEM;
        return NULL;
    }
    return o;
}

json_t *queue_json_jobs (const struct queue_row *v, size_t n)
{
    json_t *list, *doc;

    if (!(doc = json_doc_create (QUEUE_JSON_SCHEMA, QUEUE_JSON_VERSION, "jobs",
                                 &list)))
        return NULL;
    for (size_t k = 0; k < n; k++)
        if (json_array_append_new (list, queue_json_job (&v[k])) < 0) {
            json_decref (doc);
            errno = ENOMEM;
            return NULL;
        }
    return doc;
}

static json_t *queue_json_step (const struct msg_step_info_reply *r, uint32_t i)
{
    uint32_t array = PROTO_NUM (r, array_job_ids, i);
    uint32_t step = i < r->step_ids_count ? r->step_ids[i] : STEP_ID_ALL;
    json_t *o = json_object ();
    const char *dot;
    char id[64];
    int bad = 0;

    if (!o)
        return NULL;
    /* as squeue -s shows it, "8_2.0" for an array task */
    if (array)
        jobsel_task_str (array, PROTO_NUM (r, array_task_ids, i), step, id,
                         sizeof (id));
    else
        jobsel_id_str (r->job_ids[i], step, id, sizeof (id));
    dot = strchr (id, '.');
    bad |= SET (o, "id", json_doc_text (id));
    bad |= SET (o, "job_id", json_integer (r->job_ids[i]));
    bad |= SET (o, "step", json_doc_text (dot ? dot + 1 : ""));
    bad |= SET (o, "step_id", json_integer (step));
    bad |= SET (o, "array_job_id", queue_json_array_id (array, array));
    bad |= SET (o, "array_task_id",
                queue_json_array_id (array, PROTO_NUM (r, array_task_ids, i)));
    bad |= SET (o, "name", json_doc_text (PROTO_STR (r, names, i)));
    bad |= SET (o, "user", json_doc_text (PROTO_STR (r, users, i)));
    bad |= SET (o, "partition", json_doc_text (PROTO_STR (r, partitions, i)));
    bad |= SET (o, "start_time", json_doc_time (PROTO_NUM (r, start_times, i)));
    bad |= SET (o, "nodelist", json_doc_text (PROTO_STR (r, nodelists, i)));
    bad |= SET (o, "ntasks", json_integer (PROTO_NUM (r, ntasks, i)));
    if (bad) {
        json_decref (o);
        return NULL;
    }
    return o;
}

json_t *queue_json_steps (const struct msg_step_info_reply *r, const bool *keep)
{
    json_t *list, *doc;

    if (!(doc = json_doc_create (QUEUE_JSON_STEPS_SCHEMA, QUEUE_JSON_VERSION,
                                 "steps", &list)))
        return NULL;
    for (uint32_t i = 0; i < r->job_ids_count; i++) {
        if (keep && !keep[i])
            continue;
        if (json_array_append_new (list, queue_json_step (r, i)) < 0) {
            json_decref (doc);
            errno = ENOMEM;
            return NULL;
        }
    }
    return doc;
}
