/* control_json.c - the records of arbor control show --json; see
 * control_json.h and docs/json/control.md (keep them in step).
 *
 * Members are set in the order of the doc's tables. A record that could
 * not be completed (out of memory) is dropped whole: NULL, never a
 * record with members missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "control_json.h"
#include "jobattr.h"
#include "json/json_doc.h"
#include "timestr.h"

#define SET JSON_SET

/* Give back o, or NULL (o freed) when a member could not be set. */
static json_t *control_json_done (json_t *o, int bad)
{
    if (!bad)
        return o;
    json_decref (o);
    errno = ENOMEM;
    return NULL;
}

/* v: an id, or MB of memory (64 bits in the job's record) */
static json_t *control_json_id_or_null (bool set, uint64_t v)
{
    return set ? json_integer ((json_int_t)v) : json_null ();
}

static json_t *control_json_minutes (uint32_t minutes)
{
    return minutes == TIME_INFINITE ? json_null () : json_integer (minutes);
}

/* Who the job is. */
static int control_json_job_ids (json_t *o, const struct control_job *j)
{
    int bad = 0;

    bad |= SET (o, "job_id", json_integer (j->job_id));
    bad |= SET (o, "array_job_id",
                control_json_id_or_null (j->array_job_id, j->array_job_id));
    bad |= SET (o, "array_task_id",
                control_json_id_or_null (j->array_job_id && !j->array_tasks,
                                         j->array_task_id));
    bad |= SET (o, "name", json_doc_text (j->name));
    bad |= SET (o, "user", json_doc_text (j->user));
    bad |= SET (o, "uid", json_integer (j->uid));
    bad |= SET (o, "group", json_doc_text (j->group));
    bad |= SET (o, "gid", json_integer (j->gid));
    bad |= SET (o, "priority", json_integer (j->priority));
    bad |= SET (o, "nice", json_integer (j->nice));
    bad |= SET (o, "account", json_doc_text (j->account));
    return bad;
}

/* Its state and times. */
static int control_json_job_life (json_t *o, const struct control_job *j)
{
    int bad = 0;

    bad |= SET (o, "state", json_doc_text (j->state));
    bad |= SET (o, "reason", json_doc_text (j->reason));
    bad |= SET (o, "dependency", json_doc_text (j->dependency));
    bad |= SET (o, "requeue", json_boolean (j->requeue));
    bad |= SET (o, "restarts", json_integer (j->restarts));
    bad |= SET (o, "batch", json_boolean (j->batch));
    bad |= SET (o, "exit_code",
                json_pack ("{s:i,s:i}", "status", (int)j->exit_status, "signal",
                           (int)j->exit_signal));
    bad |= SET (o, "run_time_seconds",
                json_integer (j->run_secs < 0 ? 0 : j->run_secs));
    bad |= SET (o, "time_limit_minutes", control_json_minutes (j->time_limit));
    bad |= SET (o, "submit_time", json_doc_time (j->submit_time));
    bad |= SET (o, "eligible_time", json_doc_time (j->eligible_time));
    bad |= SET (o, "start_time", json_doc_time (j->start_time));
    bad |= SET (o, "end_time", json_doc_time (j->end_time));
    bad |= SET (o, "expected_start_time", json_doc_time (j->expected_start));
    return bad;
}

/* Where it runs and what it holds. */
static int control_json_job_res (json_t *o, const struct control_job *j)
{
    int bad = 0;

    bad |= SET (o, "partition", json_doc_text (j->partition));
    bad |= SET (o, "submit_host", json_doc_text (j->submit_host));
    bad |= SET (o, "req_nodelist", json_doc_text (j->req_nodelist));
    bad |= SET (o, "exc_nodelist", json_doc_text (j->exc_nodelist));
    bad |= SET (o, "nodelist", json_doc_text (j->nodelist));
    bad |= SET (o, "batch_host", json_doc_text (j->batch_host));
    bad |= SET (o, "nnodes", json_integer (j->nnodes));
    bad |= SET (o, "ncpus", json_integer (j->ncpus));
    bad |= SET (o, "ntasks", json_integer (j->ntasks));
    bad |= SET (o, "cpus_per_task", json_integer (j->cpus_per_task));
    bad |= SET (o, "mem_per_node_mb",
                control_json_id_or_null (j->mem_per_node, j->mem_per_node));
    bad |= SET (o, "mem_per_cpu_mb",
                control_json_id_or_null (j->mem_per_cpu, j->mem_per_cpu));
    bad |= SET (o, "running_steps", json_integer (j->nsteps));
    return bad;
}

/* What it runs; a batch job's files (null for an allocation). */
static int control_json_job_cmd (json_t *o, const struct control_job *j)
{
    int bad = 0;

    bad |= SET (o, "command", json_doc_text (j->command));
    bad |= SET (o, "work_dir", json_doc_text (j->work_dir));
    bad |=
        SET (o, "std_in", j->batch ? json_doc_text (j->std_in) : json_null ());
    bad |= SET (o, "std_out",
                j->batch ? json_doc_text (j->std_out) : json_null ());
    bad |= SET (o, "std_err",
                j->batch ? json_doc_text (j->std_err) : json_null ());
    /* added last: the tasks of a folded pending array record ("2-7"), as
     * Slurm's JSON names them */
    bad |= SET (o, "array_task_string",
                j->array_tasks ? json_string (j->array_tasks) : json_null ());
    /* then the job attributes (jobattr.h: "comment"...), "" for none */
    for (size_t i = 0; i < job_nattrs; i++)
        bad |= SET (o, job_attrs[i].json,
                    json_doc_text (
                        j->view ? job_attr_text (&job_attrs[i], j->view) : ""));
    /* generic resources (2.13), "" for none */
    bad |= SET (o, "tres_per_node", json_doc_text (j->tres_per_node));
    bad |= SET (o, "tres_per_job", json_doc_text (j->tres_per_job));
    bad |= SET (o, "tres_per_task", json_doc_text (j->tres_per_task));
    bad |= SET (o, "gres_alloc", json_doc_text (j->gres_alloc));
    /* its QOS (2.14), "normal" when the controller names none */
    bad |= SET (o, "qos", json_doc_text (j->qos ? j->qos : "normal"));
    return bad;
}

json_t *control_json_job (const struct control_job *j)
{
    json_t *o = json_object ();

    if (!o)
        return NULL;
    return control_json_done (
        o, control_json_job_ids (o, j) | control_json_job_life (o, j)
               | control_json_job_res (o, j) | control_json_job_cmd (o, j));
}

json_t *control_json_step (const struct control_step *s)
{
    json_t *o = json_object ();
    const char *dot = strrchr (s->id, '.');
    int bad = 0;

    if (!o)
        return NULL;
    bad |= SET (o, "id", json_doc_text (s->id));
    bad |= SET (o, "job_id", json_integer (s->job_id));
    bad |= SET (o, "step", json_doc_text (dot ? dot + 1 : s->id));
    bad |= SET (o, "step_id", json_integer (s->step_id));
    bad |= SET (o, "array_job_id",
                control_json_id_or_null (s->array_job_id, s->array_job_id));
    bad |= SET (o, "array_task_id",
                control_json_id_or_null (s->array_job_id, s->array_task_id));
    bad |= SET (o, "name", json_doc_text (s->name));
    bad |= SET (o, "user", json_doc_text (s->user));
    bad |= SET (o, "uid", json_integer (s->uid));
    bad |= SET (o, "state", json_string ("RUNNING"));
    bad |= SET (o, "partition", json_doc_text (s->partition));
    bad |= SET (o, "start_time", json_doc_time (s->start_time));
    bad |= SET (o, "nodelist", json_doc_text (s->nodelist));
    bad |= SET (o, "nnodes", json_integer (s->nnodes));
    bad |= SET (o, "ncpus", json_integer (s->ncpus));
    bad |= SET (o, "ntasks", json_integer (s->ntasks));
    bad |= SET (o, "mem_mb", json_integer ((json_int_t)s->mem_mb));
    return control_json_done (o, bad);
}

/* "debug,batch" as ["debug", "batch"]. */
static json_t *control_json_list (const char *csv)
{
    json_t *a = json_array ();
    const char *s = csv;

    while (a && *s) {
        size_t n = strcspn (s, ",");
        if (n && json_array_append_new (a, json_stringn (s, n)) < 0) {
            json_decref (a);
            return NULL;
        }
        s += n + (s[n] == ',');
    }
    return a;
}

json_t *control_json_node (const struct control_node *n)
{
    json_t *o = json_object ();
    int bad = 0;

    if (!o)
        return NULL;
    bad |= SET (o, "name", json_doc_text (n->name));
    bad |= SET (o, "state", json_doc_text (n->state));
    bad |= SET (o, "responding", json_boolean (n->responding));
    bad |= SET (o, "reason", json_doc_text (n->reason));
    bad |= SET (o, "reason_user",
                n->reason_time ? json_doc_text (n->reason_user) : json_null ());
    bad |= SET (o, "reason_uid",
                n->reason_time ? json_integer (n->reason_uid) : json_null ());
    bad |= SET (o, "reason_time", json_doc_time (n->reason_time));
    bad |= SET (o, "addr", json_doc_text (n->addr));
    bad |= SET (o, "partitions", control_json_list (n->partitions));
    bad |= SET (o, "cpus", json_integer (n->cpus));
    bad |= SET (o, "alloc_cpus", json_integer (n->alloc_cpus));
    bad |= SET (o, "cpu_load",
                n->cpu_load == CONTROL_NA ? json_null ()
                                          : json_real (n->cpu_load / 100.0));
    bad |= SET (o, "real_memory_mb", json_integer (n->real_memory));
    bad |= SET (o, "alloc_memory_mb", json_integer (n->alloc_memory));
    bad |= SET (o, "free_memory_mb",
                n->free_mem == CONTROL_NA ? json_null ()
                                          : json_integer (n->free_mem));
    bad |= SET (o, "cpu_speed", json_integer (n->cpu_speed));
    bad |= SET (o, "features", control_json_list (n->features));
    bad |= SET (o, "active_features", control_json_list (n->features_active));
    bad |= SET (o, "gres", json_doc_text (n->gres));
    bad |= SET (o, "gres_used", json_doc_text (n->gres_used));
    return control_json_done (o, bad);
}

json_t *control_json_part (const struct control_part *p)
{
    json_t *o = json_object ();
    int bad = 0;

    if (!o)
        return NULL;
    bad |= SET (o, "name", json_doc_text (p->name));
    bad |= SET (o, "default", json_boolean (p->is_default));
    bad |= SET (o, "state", json_string ("UP"));
    bad |= SET (o, "max_time_minutes", control_json_minutes (p->max_time));
    bad |=
        SET (o, "default_time_minutes", control_json_minutes (p->default_time));
    bad |= SET (o, "nodes", json_doc_text (p->nodes));
    bad |= SET (o, "total_cpus", json_integer ((json_int_t)p->total_cpus));
    bad |= SET (o, "total_nodes", json_integer (p->total_nodes));
    bad |= SET (o, "priority_tier", json_integer (p->priority_tier));
    bad |=
        SET (o, "priority_job_factor", json_integer (p->priority_job_factor));
    return control_json_done (o, bad);
}
