/* queue_fields.c - squeue's job fields. See queue_fields.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct_text.h"
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
};

/* clang-format off */
const struct fmt_def queue_fields[] = {
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
};
/* clang-format on */
const size_t queue_nfields = sizeof (queue_fields) / sizeof (queue_fields[0]);

static bool queue_pending (const struct queue_row *q)
{
    return job_state_parse (PROTO_STR (q->r, states, q->i), false)
           == JOB_PENDING;
}

/* Seconds the job has run: start to end, or to now. */
static long queue_used_s (const struct queue_row *q)
{
    uint32_t start =
        queue_pending (q) ? 0 : PROTO_NUM (q->r, start_times, q->i);
    uint32_t end = PROTO_NUM (q->r, end_times, q->i);
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

static const char *queue_date (const struct queue_row *q, uint32_t t, char *buf,
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

static const char *queue_num (uint64_t v, char *buf, size_t len)
{
    snprintf (buf, len, "%llu", (unsigned long long)v);
    return buf;
}

/* %e: when it ended, or when its limit ends it. */
static const char *queue_end (const struct queue_row *q, char *buf, size_t len)
{
    uint32_t end = PROTO_NUM (q->r, end_times, q->i);
    uint32_t start = PROTO_NUM (q->r, start_times, q->i);
    uint32_t limit = PROTO_NUM (q->r, time_limits, q->i);

    if (!end && start && !queue_pending (q) && limit && limit != TIME_INFINITE)
        end = start + limit * 60;
    return queue_date (q, end, buf, len);
}

/* %L: a running job's limit less its time used; a pending job's limit. */
static const char *queue_left (const struct queue_row *q, char *buf, size_t len)
{
    uint32_t limit = PROTO_NUM (q->r, time_limits, q->i);
    long left;

    if (!limit || limit == TIME_INFINITE)
        return "UNLIMITED";
    left = (long)limit * 60 - queue_used_s (q);
    return queue_duration (left < 0 ? 0 : left, buf, len);
}

static const char *queue_limit (const struct queue_row *q, char *buf,
                                size_t len)
{
    uint32_t limit = PROTO_NUM (q->r, time_limits, q->i);

    if (!limit || limit == TIME_INFINITE)
        return "UNLIMITED";
    return queue_duration ((long)limit * 60, buf, len);
}

static const char *queue_jobid (const struct queue_row *q, char *buf,
                                size_t len)
{
    uint32_t array = PROTO_NUM (q->r, array_job_ids, q->i);

    if (q->folded)
        return q->folded;
    if (array)
        snprintf (buf, len, "%u_%u", array,
                  PROTO_NUM (q->r, array_task_ids, q->i));
    else
        snprintf (buf, len, "%u", q->r->job_ids[q->i]);
    return buf;
}

static const char *queue_reason (const struct queue_row *q)
{
    const char *why = PROTO_STR (q->r, reasons, q->i);

    return *why ? why : "None";
}

/* %R: a pending (or never placed) job's "(Reason)", else its nodes. */
static const char *queue_reason_list (const struct queue_row *q, char *buf,
                                      size_t len)
{
    const char *nodes = PROTO_STR (q->r, nodelists, q->i);

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
        return queue_date (q, PROTO_NUM (q->r, expected_starts, q->i), buf,
                           len);
    return queue_date (q, PROTO_NUM (q->r, start_times, q->i), buf, len);
}

/* The fields that are one of the reply's strings or numbers. */
static const char *queue_plain (int id, const struct queue_row *q, char *buf,
                                size_t len)
{
    const struct msg_job_info_reply *r = q->r;
    uint32_t i = q->i;

    switch (id) {
    case QF_ACCOUNT: return queue_or_null (PROTO_STR (r, accounts, i));
    case QF_JOBID_RAW: return queue_num (r->job_ids[i], buf, len);
    case QF_CPUS: return queue_num (PROTO_NUM (r, ncpus, i), buf, len);
    case QF_NODES: return queue_num (PROTO_NUM (r, nnodes, i), buf, len);
    case QF_DEPENDENCY: return queue_or_null (PROTO_STR (r, dependencies, i));
    case QF_NAME: return PROTO_STR (r, names, i);
    case QF_NODELIST: return PROTO_STR (r, nodelists, i);
    case QF_COMMAND: return queue_or_null (PROTO_STR (r, commands, i));
    case QF_LICENSES: return queue_or_null (PROTO_STR (r, licenses, i));
    case QF_PARTITION: return PROTO_STR (r, partitions, i);
    case QF_QOS: return "normal";
    case QF_PRIORITY: return queue_num (PROTO_NUM (r, priorities, i), buf, len);
    case QF_STATE: return PROTO_STR (r, states, i);
    case QF_STATE_CODE: return jobsel_state_code (PROTO_STR (r, states, i));
    case QF_USER: return PROTO_STR (r, users, i);
    case QF_SCHEDNODES: return "(null)";
    case QF_WORKDIR: return PROTO_STR (r, work_dirs, i);
    case QF_STDOUT: return queue_or_null (PROTO_STR (r, std_outs, i));
    case QF_STDERR: return queue_or_null (PROTO_STR (r, std_errs, i));
    default: return NULL;
    }
}

const char *queue_field_value (int id, const void *row, char *buf, size_t len)
{
    const struct queue_row *q = row;
    const char *plain = queue_plain (id, q, buf, len);
    uint32_t array = PROTO_NUM (q->r, array_job_ids, q->i);

    if (plain)
        return plain;
    switch (id) {
    case QF_END: return queue_end (q, buf, len);
    case QF_ARRAY_JOB:
        return queue_num (array ? array : q->r->job_ids[q->i], buf, len);
    case QF_JOBID: return queue_jobid (q, buf, len);
    case QF_ARRAY_TASK:
        if (q->tasks)
            return q->tasks;
        return array ? queue_num (PROTO_NUM (q->r, array_task_ids, q->i), buf,
                                  len)
                     : "N/A";
    case QF_LIMIT: return queue_limit (q, buf, len);
    case QF_LEFT: return queue_left (q, buf, len);
    case QF_USED: return queue_duration (queue_used_s (q), buf, len);
    case QF_PRIO_NORM:
        snprintf (buf, len, "%.14f",
                  PROTO_NUM (q->r, priorities, q->i) / 4294967295.0);
        return buf;
    case QF_REASON: return queue_reason (q);
    case QF_EXIT:
        if (!PROTO_NUM (q->r, end_times, q->i))
            return "0:0";
        snprintf (buf, len, "%d:0", (int)PROTO_NUM (q->r, exit_codes, q->i));
        return buf;
    case QF_REASON_LIST: return queue_reason_list (q, buf, len);
    case QF_START: return queue_start (q, buf, len);
    case QF_SUBMIT:
        return queue_date (q, PROTO_NUM (q->r, submit_times, q->i), buf, len);
    default: return "";
    }
}

bool queue_field_number (int id, const struct queue_row *q, double *v)
{
    const struct msg_job_info_reply *r = q->r;
    uint32_t i = q->i;

    switch (id) {
    case QF_JOBID_RAW: *v = r->job_ids[i]; return true;
    case QF_JOBID:
    case QF_ARRAY_JOB:
        *v = PROTO_NUM (r, array_job_ids, i) ? PROTO_NUM (r, array_job_ids, i)
                                             : r->job_ids[i];
        *v = *v * 4294967296.0 + PROTO_NUM (r, array_task_ids, i);
        return true;
    case QF_ARRAY_TASK: *v = PROTO_NUM (r, array_task_ids, i); return true;
    case QF_CPUS: *v = PROTO_NUM (r, ncpus, i); return true;
    case QF_NODES: *v = PROTO_NUM (r, nnodes, i); return true;
    case QF_PRIO_NORM:
    case QF_PRIORITY: *v = PROTO_NUM (r, priorities, i); return true;
    case QF_LIMIT:
    case QF_LEFT: *v = PROTO_NUM (r, time_limits, i); return true;
    case QF_USED: *v = (double)queue_used_s (q); return true;
    case QF_START: *v = PROTO_NUM (r, start_times, i); return true;
    case QF_END: *v = PROTO_NUM (r, end_times, i); return true;
    case QF_SUBMIT: *v = PROTO_NUM (r, submit_times, i); return true;
    case QF_STATE:
    case QF_STATE_CODE:
        *v = job_state_parse (PROTO_STR (r, states, i), false);
        return true;
    default: return false;
    }
}
