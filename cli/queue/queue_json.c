/* queue_json.c - the --json documents of arbor queue; see queue_json.h
 * and docs/json/queue.md (keep the two in step).
 *
 * Written member by member (json_put_*, json_doc.h), as arbor acct's.
 * The jobs are read from their views (jobview.h), whose absent text is
 * NULL (read as ""); each list of a STEP_INFO_REPLY is read only within
 * its own count (an older controller may send shorter lists): what is
 * missing reads as 0 or "".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "jobsel.h"
#include "json/json_doc.h"
#include "jobattr.h"
#include "queue_json.h"
#include "states.h"
#include "timestr.h"

/* Text, or null when there is none. */
static void queue_json_text_or_null (struct json_stream *s, const char *key,
                                     const char *text)
{
    if (*text)
        json_put_text (s, key, text);
    else
        json_put_null (s, key);
}

/* An array's id or task, null for a job not of an array. */
static void queue_json_array_id (struct json_stream *s, const char *key,
                                 uint32_t array, uint32_t id)
{
    if (array)
        json_put_int (s, key, id);
    else
        json_put_null (s, key);
}

/* Who, what and where. */
static void queue_json_job_ids (struct json_stream *s, const struct job_view *v)
{
    const struct msg_job_rec *r = &v->rec;
    const char *state = jv_str (r->state_shown);

    json_put_int (s, "job_id", r->id);
    queue_json_array_id (s, "array_job_id", r->array_job_id, r->array_job_id);
    queue_json_array_id (s, "array_task_id", r->array_job_id, r->array_task_id);
    json_put_text (s, "name", jv_str (r->name));
    json_put_text (s, "user", jv_str (r->user));
    json_put_text (s, "account", jv_str (r->account));
    json_put_text (s, "partition", jv_str (r->partition));
    json_put_text (s, "state", state);
    json_put_text (s, "state_code", jobsel_state_code (state));
    json_put_text (s, "reason", jv_str (r->reason));
    /* the controller computes a priority for pending jobs only */
    if (job_state_parse (state, false) == JOB_PENDING)
        json_put_int (s, "priority", r->priority);
    else
        json_put_null (s, "priority");
    json_put_text (s, "nodelist", jv_str (r->nodelist));
    json_put_int (s, "nnodes", r->nnodes);
    json_put_int (s, "ncpus", r->ncpus);
}

/* When, how it ends or ended, and what it runs. */
static void queue_json_job_life (struct json_stream *s,
                                 const struct job_view *v)
{
    const struct msg_job_rec *r = &v->rec;
    bool pending =
        job_state_parse (jv_str (r->state_shown), false) == JOB_PENDING;

    if (!r->time_limit || r->time_limit == TIME_INFINITE)
        json_put_null (s, "time_limit_minutes");
    else
        json_put_int (s, "time_limit_minutes", r->time_limit);
    json_put_time (s, "submit_time", r->submit_time);
    /* a requeued job keeps its last start: not a start of this wait */
    json_put_time (s, "start_time", pending ? 0 : r->start_time);
    json_put_time (s, "expected_start_time", r->expected_start);
    json_put_time (s, "end_time", r->end_time);
    json_put_object (s, "exit_code");
    json_put_int (s, "status", r->exit_rc);
    json_put_int (s, "signal", 0);
    json_put_object_end (s);
    json_put_text (s, "work_dir", jv_str (v->req.cwd));
    queue_json_text_or_null (s, "std_out", jv_str (r->std_out));
    queue_json_text_or_null (s, "std_err", jv_str (r->std_err));
    queue_json_text_or_null (s, "dependency", jv_str (r->dependency));
    json_put_bool (s, "batch", jv_batch (v));
    json_put_int (s, "restarts", r->restarts);
    json_put_text (s, "command", jv_str (v->req.command));
    json_put_int (s, "running_steps", r->nsteps);
    /* The job attributes (jobattr.h: "comment"...), added in 2.12, so
     * last; strings as in Slurm's job object ("" for none). */
    for (size_t i = 0; i < job_nattrs; i++)
        json_put_text (s, job_attrs[i].json, job_attr_text (&job_attrs[i], v));
    /* generic resources (2.13), "" for none, as Slurm's job object */
    json_put_text (s, "tres_per_node", jv_str (v->rec.tres_per_node));
    json_put_text (s, "tres_per_job", jv_str (v->rec.tres_per_job));
    json_put_text (s, "tres_per_task", jv_str (v->rec.tres_per_task));
    json_put_text (s, "gres_alloc", jv_str (v->rec.gres_alloc));
    /* its QOS (2.14; "normal" from an older controller), as Slurm's */
    json_put_text (s, "qos", jv_qos (v));
}

int queue_json_write_jobs (const struct queue_row *v, size_t n, FILE *f)
{
    struct json_stream *s =
        json_stream_create (QUEUE_JSON_SCHEMA, QUEUE_JSON_VERSION, "jobs");
    int rc;

    if (!s)
        return -1;
    for (size_t k = 0; k < n; k++) {
        json_put_object (s, NULL);
        queue_json_job_ids (s, v[k].job);
        queue_json_job_life (s, v[k].job);
        json_put_object_end (s);
    }
    rc = json_stream_write (s, f);
    json_stream_destroy (s);
    return rc;
}

static void queue_json_step (struct json_stream *s,
                             const struct msg_step_info_reply *r, uint32_t i)
{
    uint32_t array = PROTO_NUM (r, array_job_ids, i);
    uint32_t step = i < r->step_ids_count ? r->step_ids[i] : STEP_ID_ALL;
    const char *dot;
    char id[64];

    /* as squeue -s shows it, "8_2.0" for an array task */
    if (array)
        jobsel_task_str (array, PROTO_NUM (r, array_task_ids, i), step, id,
                         sizeof (id));
    else
        jobsel_id_str (r->job_ids[i], step, id, sizeof (id));
    dot = strchr (id, '.');
    json_put_object (s, NULL);
    json_put_text (s, "id", id);
    json_put_int (s, "job_id", r->job_ids[i]);
    json_put_text (s, "step", dot ? dot + 1 : "");
    json_put_int (s, "step_id", step);
    queue_json_array_id (s, "array_job_id", array, array);
    queue_json_array_id (s, "array_task_id", array,
                         PROTO_NUM (r, array_task_ids, i));
    json_put_text (s, "name", PROTO_STR (r, names, i));
    json_put_text (s, "user", PROTO_STR (r, users, i));
    json_put_text (s, "partition", PROTO_STR (r, partitions, i));
    json_put_time (s, "start_time", PROTO_NUM (r, start_times, i));
    json_put_text (s, "nodelist", PROTO_STR (r, nodelists, i));
    json_put_int (s, "ntasks", PROTO_NUM (r, ntasks, i));
    json_put_object_end (s);
}

int queue_json_write_steps (const struct msg_step_info_reply *r,
                            const bool *keep, FILE *f)
{
    struct json_stream *s = json_stream_create (QUEUE_JSON_STEPS_SCHEMA,
                                                QUEUE_JSON_VERSION, "steps");
    int rc;

    if (!s)
        return -1;
    for (uint32_t i = 0; i < r->job_ids_count; i++)
        if (!keep || keep[i])
            queue_json_step (s, r, i);
    rc = json_stream_write (s, f);
    json_stream_destroy (s);
    return rc;
}
