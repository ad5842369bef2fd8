/* queue_fields.c - squeue's job fields. See queue_fields.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct_text.h"
#include "jobattr.h"
#include "jobsel.h"
#include "queue_fields.h"
#include "states.h"
#include "timestr.h"

enum queue_field {
    QF_ACCOUNT,
    QF_JOBID_RAW, /* %A: the job's own id */
    QF_CPUS,
    QF_NODES,
    QF_END,
    QF_DEPENDENCY,
    QF_ARRAY_JOB,
    QF_JOBID, /* %i: 4_2 for a task of array 4 */
    QF_NAME,
    QF_ARRAY_TASK,
    QF_LIMIT,
    QF_LEFT,
    QF_USED,
    QF_NODELIST,
    QF_COMMAND,
    QF_PRIO_NORM,
    QF_PARTITION,
    QF_QOS,
    QF_PRIORITY,
    QF_REASON,
    QF_REASON_LIST,
    QF_START,
    QF_STATE_CODE,
    QF_STATE,
    QF_USER,
    QF_SUBMIT,
    QF_SCHEDNODES,
    QF_WORKDIR,
    QF_STDOUT,
    QF_STDERR,
    QF_EXIT,
    QF_LICENSES,
    QF_TRES_NODE,
    QF_TRES_JOB,
    QF_TRES_TASK,
    QF_TRES_ALLOC,
    QF_ATTR, /* + the index of a job attribute (jobattr.h) */
};

/* clang-format off */
static const struct fmt_def queue_fixed[] = {
    { QF_ACCOUNT, 'a', "Account", "ACCOUNT" },
    { QF_JOBID_RAW, 'A', "JobID", "JOBID" },
    { QF_CPUS, 'C', "NumCPUs", "CPUS" },
    { QF_NODES, 'D', "NumNodes", "NODES" },
    { QF_END, 'e', "EndTime", "END_TIME" },
    { QF_DEPENDENCY, 'E', "Dependency", "DEPENDENCY" },
    { QF_ARRAY_JOB, 'F', "ArrayJobID", "ARRAY_JOB_ID" },
    { QF_JOBID, 'i', "JobArrayID", "JOBID" },
    { QF_NAME, 'j', "Name", "NAME" },
    { QF_ARRAY_TASK, 'K', "ArrayTaskID", "ARRAY_TASK_ID" },
    { QF_LIMIT, 'l', "TimeLimit", "TIME_LIMIT" },
    { QF_LEFT, 'L', "TimeLeft", "TIME_LEFT" },
    { QF_USED, 'M', "TimeUsed", "TIME" },
    { QF_NODELIST, 'N', "NodeList", "NODELIST" },
    { QF_COMMAND, 'o', "Command", "COMMAND" },
    { QF_PRIO_NORM, 'p', "Priority", "PRIORITY" },
    { QF_PARTITION, 'P', "Partition", "PARTITION" },
    { QF_QOS, 'q', "QOS", "QOS" },
    { QF_PRIORITY, 'Q', "PriorityLong", "PRIORITY" },
    { QF_REASON, 'r', "Reason", "REASON" },
    { QF_REASON_LIST, 'R', "ReasonList", "NODELIST(REASON)" },
    { QF_START, 'S', "StartTime", "START_TIME" },
    { QF_STATE_CODE, 't', "StateCompact", "ST" },
    { QF_STATE, 'T', "State", "STATE" },
    { QF_USER, 'u', "UserName", "USER" },
    { QF_SUBMIT, 'V', "SubmitTime", "SUBMIT_TIME" },
    { QF_LICENSES, 'W', "Licenses", "LICENSES" },
    { QF_SCHEDNODES, 'Y', "SchedNodes", "SCHEDNODES" },
    { QF_WORKDIR, 'Z', "WorkDir", "WORK_DIR" },
    { QF_STDOUT, 0, "STDOUT", "STDOUT" },
    { QF_STDERR, 0, "STDERR", "STDERR" },
    { QF_EXIT, 0, "ExitCode", "EXIT_CODE" },
    { QF_TRES_NODE, 'b', "tres-per-node", "TRES_PER_NODE" },
    { QF_TRES_JOB, 0, "tres-per-job", "TRES_PER_JOB" },
    { QF_TRES_TASK, 0, "tres-per-task", "TRES_PER_TASK" },
    { QF_TRES_ALLOC, 0, "tres-alloc", "TRES_ALLOC" },
};
/* clang-format on */
#define QUEUE_NFIXED (sizeof (queue_fixed) / sizeof (queue_fixed[0]))

const struct fmt_def *queue_field_defs (size_t *n)
{
    static struct fmt_def all[QUEUE_NFIXED + 32];
    static size_t nall;

    if (!nall) {
        memcpy (all, queue_fixed, sizeof (queue_fixed));
        nall = QUEUE_NFIXED;
        for (size_t i = 0;
             i < job_nattrs && nall < sizeof (all) / sizeof (all[0]); i++)
            all[nall++] =
                (struct fmt_def){ QF_ATTR + (int)i, job_attrs[i].letter,
                                  job_attrs[i].name, job_attrs[i].header };
    }
    *n = nall;
    return all;
}

static bool queue_pending (const struct queue_row *q)
{
    return job_state_parse (jv_str (q->job->rec.state_shown), false)
           == JOB_PENDING;
}

/* Seconds the job has run: start to end, or to now. */
static long queue_used_s (const struct queue_row *q)
{
    uint64_t start = queue_pending (q) ? 0 : q->job->rec.start_time;
    uint64_t end = q->job->rec.end_time;
    long s = start ? (long)((end ? (time_t)end : q->now) - (time_t)start) : 0;

    return s < 0 ? 0 : s;
}

const char *queue_duration (long s, char *buf, size_t len)
{
    if (s >= 86400)
        snprintf (buf, len, "%ld-%02ld:%02ld:%02ld", s / 86400,
                  s % 86400 / 3600, s % 3600 / 60, s % 60);
    else if (s >= 3600)
        snprintf (buf, len, "%ld:%02ld:%02ld", s / 3600, s % 3600 / 60, s % 60);
    else
        snprintf (buf, len, "%ld:%02ld", s / 60, s % 60);
    return buf;
}

static const char *queue_date (const struct queue_row *q, uint64_t t, char *buf,
                               size_t len)
{
    if (t == 0)
        return "N/A";
    return acct_text_time (t, q->time_format, buf, len);
}

static const char *queue_or_null (const char *s)
{
    return s && *s ? s : "(null)";
}

/* squeue's word for an empty TRES field. */
static const char *queue_na (const char *s)
{
    return s && *s ? s : "N/A";
}

static const char *queue_num (uint64_t v, char *buf, size_t len)
{
    snprintf (buf, len, "%llu", (unsigned long long)v);
    return buf;
}

/* %e: when it ended, or when its limit ends it. */
static const char *queue_end (const struct queue_row *q, char *buf, size_t len)
{
    uint64_t end = q->job->rec.end_time;
    uint64_t start = q->job->rec.start_time;
    uint32_t limit = q->job->rec.time_limit;

    if (!end && start && !queue_pending (q) && limit && limit != TIME_INFINITE)
        end = start + (uint64_t)limit * 60;
    return queue_date (q, end, buf, len);
}

/* %L: a running job's limit less its time used; a pending job's limit. */
static const char *queue_left (const struct queue_row *q, char *buf, size_t len)
{
    uint32_t limit = q->job->rec.time_limit;
    long left;

    if (!limit || limit == TIME_INFINITE)
        return "UNLIMITED";
    left = (long)limit * 60 - queue_used_s (q);
    return queue_duration (left < 0 ? 0 : left, buf, len);
}

static const char *queue_limit (const struct queue_row *q, char *buf,
                                size_t len)
{
    uint32_t limit = q->job->rec.time_limit;

    if (!limit || limit == TIME_INFINITE)
        return "UNLIMITED";
    return queue_duration ((long)limit * 60, buf, len);
}

static const char *queue_jobid (const struct queue_row *q, char *buf,
                                size_t len)
{
    uint32_t array = q->job->rec.array_job_id;

    if (q->folded)
        return q->folded;
    if (array)
        snprintf (buf, len, "%u_%u", array, q->job->rec.array_task_id);
    else
        snprintf (buf, len, "%u", q->job->rec.id);
    return buf;
}

static const char *queue_reason (const struct queue_row *q)
{
    const char *why = jv_str (q->job->rec.reason);

    return *why ? why : "None";
}

/* %R: a pending (or never placed) job's "(Reason)", else its nodes. */
static const char *queue_reason_list (const struct queue_row *q, char *buf,
                                      size_t len)
{
    const char *nodes = jv_str (q->job->rec.nodelist);

    if (queue_pending (q) || !*nodes) {
        snprintf (buf, len, "(%s)", queue_reason (q));
        return buf;
    }
    return nodes;
}

/* %S: when it started, or when backfill plans to start it. */
static const char *queue_start (const struct queue_row *q, char *buf,
                                size_t len)
{
    if (queue_pending (q))
        return queue_date (q, q->job->rec.expected_start, buf, len);
    return queue_date (q, q->job->rec.start_time, buf, len);
}

/* The fields that are one of the record's strings or numbers. */
static const char *queue_plain (int id, const struct queue_row *q, char *buf,
                                size_t len)
{
    const struct msg_job_rec *r = &q->job->rec;

    switch (id) {
    case QF_ACCOUNT: return queue_or_null (r->account);
    case QF_JOBID_RAW: return queue_num (r->id, buf, len);
    case QF_CPUS: return queue_num (r->ncpus, buf, len);
    case QF_NODES: return queue_num (r->nnodes, buf, len);
    case QF_DEPENDENCY: return queue_or_null (r->dependency);
    case QF_NAME: return jv_str (r->name);
    case QF_NODELIST: return jv_str (r->nodelist);
    case QF_COMMAND: return queue_or_null (q->job->req.command);
    case QF_LICENSES: return queue_or_null (r->licenses_shown);
    case QF_TRES_NODE: return queue_na (r->tres_per_node);
    case QF_TRES_JOB: return queue_na (r->tres_per_job);
    case QF_TRES_TASK: return queue_na (r->tres_per_task);
    case QF_TRES_ALLOC:
        snprintf (buf, len, "cpu=%u,node=%u%s%s", r->ncpus, r->nnodes,
                  r->gres_alloc && *r->gres_alloc ? "," : "",
                  jv_str (r->gres_alloc));
        return buf;
    case QF_PARTITION: return jv_str (r->partition);
    case QF_QOS: return jv_qos (q->job);
    case QF_PRIORITY: return queue_num (r->priority, buf, len);
    case QF_STATE: return jv_str (r->state_shown);
    case QF_STATE_CODE: return jobsel_state_code (jv_str (r->state_shown));
    case QF_USER: return jv_str (r->user);
    case QF_SCHEDNODES: return "(null)";
    case QF_WORKDIR: return jv_str (q->job->req.cwd);
    case QF_STDOUT: return queue_or_null (r->std_out);
    case QF_STDERR: return queue_or_null (r->std_err);
    default: return NULL;
    }
}

/* %K: a folded line's tasks, an array task's id, else N/A. */
static const char *queue_task (const struct queue_row *q, char *buf, size_t len)
{
    if (q->tasks)
        return q->tasks;
    if (!q->job->rec.array_job_id)
        return "N/A";
    return queue_num (q->job->rec.array_task_id, buf, len);
}

const char *queue_field_value (int id, const void *row, char *buf, size_t len)
{
    const struct queue_row *q = row;
    const struct msg_job_rec *r = &q->job->rec;
    const char *plain = queue_plain (id, q, buf, len);

    if (plain)
        return plain;
    if (id >= QF_ATTR && (size_t)(id - QF_ATTR) < job_nattrs)
        return queue_or_null (job_attr_text (&job_attrs[id - QF_ATTR], q->job));
    switch (id) {
    case QF_END: return queue_end (q, buf, len);
    case QF_ARRAY_JOB:
        return queue_num (r->array_job_id ? r->array_job_id : r->id, buf, len);
    case QF_JOBID: return queue_jobid (q, buf, len);
    case QF_ARRAY_TASK: return queue_task (q, buf, len);
    case QF_LIMIT: return queue_limit (q, buf, len);
    case QF_LEFT: return queue_left (q, buf, len);
    case QF_USED: return queue_duration (queue_used_s (q), buf, len);
    case QF_PRIO_NORM:
        snprintf (buf, len, "%.14f", r->priority / 4294967295.0);
        return buf;
    case QF_REASON: return queue_reason (q);
    case QF_EXIT:
        if (!r->end_time)
            return "0:0";
        snprintf (buf, len, "%d:0", (int)r->exit_rc);
        return buf;
    case QF_REASON_LIST: return queue_reason_list (q, buf, len);
    case QF_START: return queue_start (q, buf, len);
    case QF_SUBMIT: return queue_date (q, r->submit_time, buf, len);
    default: return "";
    }
}

bool queue_field_number (int id, const struct queue_row *q, double *v)
{
    const struct msg_job_rec *r = &q->job->rec;

    switch (id) {
    case QF_JOBID_RAW: *v = r->id; return true;
    case QF_JOBID:
    case QF_ARRAY_JOB:
        *v = r->array_job_id ? r->array_job_id : r->id;
        *v = *v * 4294967296.0 + r->array_task_id;
        return true;
    case QF_ARRAY_TASK: *v = r->array_task_id; return true;
    case QF_CPUS: *v = r->ncpus; return true;
    case QF_NODES: *v = r->nnodes; return true;
    case QF_PRIO_NORM:
    case QF_PRIORITY: *v = r->priority; return true;
    case QF_LIMIT:
    case QF_LEFT: *v = r->time_limit; return true;
    case QF_USED: *v = (double)queue_used_s (q); return true;
    case QF_START: *v = (double)r->start_time; return true;
    case QF_END: *v = (double)r->end_time; return true;
    case QF_SUBMIT: *v = (double)r->submit_time; return true;
    case QF_STATE:
    case QF_STATE_CODE:
        *v = job_state_parse (jv_str (r->state_shown), false);
        return true;
    default: return false;
    }
}
