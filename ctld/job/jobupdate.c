/* jobupdate.c - JOB_UPDATE (scontrol update JobId=...); see jobupdate.h.
 *
 * The keys are parsed once for the whole request. Each job named is
 * then tried on its own: every key is checked before that job changes,
 * so a job takes all of them or none, and the answer names the jobs that
 * did not (as JOB_ACTION does).
 *
 * A pending job's partition, node count, nice and time limit live in
 * its recorded request (the JOB_ALLOC it was submitted with, which a
 * restarted controller rebuilds it from): the update decodes that
 * request, changes it and checks it again as at submission (job_refill),
 * so what a submission may not ask, an update may not either. A running
 * job may only change its name and its time limit, the ctld's own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "ctld.h"
#include "job/events.h"
#include "job/job.h"
#include "job/jobupdate.h"
#include "log.h"
#include "nodes/part.h"
#include "state/persist.h"
#include "sched/sched.h"
#include "timestr.h"
#include "sched/sched_wake.h"

/* What the keys ask, parsed. */
struct upd {
    const char *name;      /* JobName=/Name=; NULL: unchanged */
    const char *partition; /* NULL: unchanged */
    bool set_time;
    char time_op;     /* '+' add, '-' take off, 0 set */
    uint32_t minutes; /* TimeLimit's value */
    bool set_nodes;
    uint32_t nnodes;
    bool set_nice;
    int32_t nice;
    char *who; /* the sender's name (event_who) */
};

static bool upd_priv (const struct ctld *ctx, uid_t uid)
{
    return uid == 0 || uid == ctx->priv_uid;
}

/* TimeLimit=[+|-]TIME. */
static int upd_parse_time (struct upd *u, const char *v, arbor_error_t *err)
{
    u->set_time = true;
    u->time_op = (v[0] == '+' || v[0] == '-') ? v[0] : 0;
    if (timestr_parse (v + (u->time_op != 0), &u->minutes, err) < 0)
        return errprintf (err, "Invalid TimeLimit value: %s", v);
    if (u->time_op && u->minutes == TIME_INFINITE)
        return errprintf (err, "Invalid TimeLimit value: %s", v);
    return 0;
}

/* NumNodes=N or N-N (one count: the request has no range). */
static int upd_parse_nodes (struct upd *u, const char *v, arbor_error_t *err)
{
    char *end;
    unsigned long n = strtoul (v, &end, 10), m = n;

    if (*end == '-')
        m = strtoul (end + 1, &end, 10);
    if (v[0] < '0' || v[0] > '9' || *end || n == 0 || n > UINT32_MAX)
        return errprintf (err, "Invalid NumNodes value: %s", v);
    if (m != n)
        return errprintf (err,
                          "NumNodes=%s: a range is not supported, give "
                          "one count",
                          v);
    u->set_nodes = true;
    u->nnodes = (uint32_t)n;
    return 0;
}

static int upd_parse_nice (struct upd *u, const char *v, arbor_error_t *err)
{
    char *end;
    long n = strtol (v, &end, 10);

    if (!*v || *end || n < -2147483645L || n > 2147483645L)
        return errprintf (err, "Invalid Nice value: %s", v);
    u->set_nice = true;
    u->nice = (int32_t)n;
    return 0;
}

static int upd_parse_one (struct upd *u, const char *k, const char *v,
                          arbor_error_t *err)
{
    if (!strcasecmp (k, "TimeLimit"))
        return upd_parse_time (u, v, err);
    if (!strcasecmp (k, "NumNodes"))
        return upd_parse_nodes (u, v, err);
    if (!strcasecmp (k, "Nice"))
        return upd_parse_nice (u, v, err);
    if (!strcasecmp (k, "JobName") || !strcasecmp (k, "Name")) {
        u->name = v;
        return 0;
    }
    if (!strcasecmp (k, "Partition")) {
        if (!*v)
            return errprintf (err, "Invalid Partition value: (empty)");
        u->partition = v;
        return 0;
    }
    return errprintf (err,
                      "Update of this parameter is not supported: %s "
                      "(TimeLimit, JobName, Partition, NumNodes, Nice)",
                      k);
}

static int upd_parse (const struct msg_job_update *m, struct upd *u,
                      arbor_error_t *err)
{
    errno = EINVAL;
    if (m->keys_count == 0 || m->keys_count != m->values_count)
        return errprintf (err, "No changes specified");
    for (uint32_t i = 0; i < m->keys_count; i++)
        if (upd_parse_one (u, m->keys[i] ? m->keys[i] : "",
                           m->values[i] ? m->values[i] : "", err)
            < 0)
            return -1;
    return 0;
}

/* The new time limit of j; 0, or an errno with 'why' filled. */
static int upd_new_limit (const struct ctld *ctx, const struct job *j,
                          const struct upd *u, uid_t uid, uint32_t *out,
                          char *why, size_t len)
{
    uint32_t cur = j->time_limit, v = u->minutes;

    if (u->time_op && cur == TIME_INFINITE)
        return snprintf (why, len, "its TimeLimit is UNLIMITED"), EINVAL;
    if (u->time_op == '+')
        v = cur + v > CTLD_MAX_TIME_LIMIT ? CTLD_MAX_TIME_LIMIT + 1 : cur + v;
    else if (u->time_op == '-')
        v = v >= cur ? 1 : cur - v;
    if (v != TIME_INFINITE && v > CTLD_MAX_TIME_LIMIT)
        return snprintf (why, len, "TimeLimit exceeds 100 years"), EINVAL;
    if (v > cur && !upd_priv (ctx, uid)) {
        char who[JOB_ADMINS_LEN];
        return snprintf (why, len,
                         "Access/permission denied: only %s may extend a "
                         "time limit",
                         job_admins (ctx, who, sizeof (who))),
               EPERM;
    }
    *out = v;
    return 0;
}

/* Pending job j: its request with the changes, checked again. */
static int upd_pending (struct ctld *ctx, struct job *j, const struct upd *u,
                        uint32_t limit, uid_t uid, char *why, size_t len)
{
    struct msg_job_alloc req;
    arbor_error_t err = { "" };
    int rc = 0;

    if (proto_decode (MSG_JOB_ALLOC, j->request, j->request_len, &req, &err)
        < 0)
        return snprintf (why, len, "its request: %s", err.text), EIO;
    free (req.partition); /* the job's, whatever it was asked with */
    req.partition =
        strdup (u->partition ? u->partition : ctx->parts[j->part].name);
    if (u->set_nodes)
        req.nnodes = u->nnodes;
    if (u->set_nice)
        req.nice = u->nice;
    req.time_limit = limit; /* the job's now, which may be updated */
    if (!req.partition)
        rc = ENOMEM, snprintf (why, len, "out of memory");
    else if (job_refill (ctx, j, &req, upd_priv (ctx, uid), &err) < 0)
        rc = errno ? errno : EINVAL, snprintf (why, len, "%s", err.text);
    proto_clear (MSG_JOB_ALLOC, &req);
    return rc;
}

/* Update job j; 0, or an errno with 'why' filled. */
static int upd_one (struct ctld *ctx, struct job *j, const struct upd *u,
                    uid_t uid, char *why, size_t len)
{
    uint32_t limit = j->time_limit;
    char *name = NULL;
    int rc;

    if (!job_access (ctx, j, uid))
        return snprintf (why, len, "Access/permission denied"), EPERM;
    if (!job_is_active (j) || j->completing)
        return snprintf (why, len, "Job has already finished"), EINVAL;
    if (j->state != JOB_PENDING
        && (u->partition || u->set_nodes || u->set_nice))
        return snprintf (why, len,
                         "Job is no longer pending execution (Partition, "
                         "NumNodes and Nice change only before it starts)"),
               EINVAL;
    if (u->set_nice && u->nice < 0 && !upd_priv (ctx, uid)) {
        char who[JOB_ADMINS_LEN];
        return snprintf (why, len,
                         "Access/permission denied: only %s may set a "
                         "negative Nice",
                         job_admins (ctx, who, sizeof (who))),
               EPERM;
    }
    if (u->set_time
        && (rc = upd_new_limit (ctx, j, u, uid, &limit, why, len)) != 0)
        return rc;
    if (u->name && !(name = strdup (u->name)))
        return snprintf (why, len, "out of memory"), ENOMEM;
    if (j->state == JOB_PENDING
        && (rc = upd_pending (ctx, j, u, limit, uid, why, len)) != 0) {
        free (name);
        return rc;
    }
    j->time_limit = limit;
    if (name) {
        free (j->name);
        j->name = name;
    }
    return 0;
}

/* Update job 'id' (alone, or with every task of the array it names);
 * 'what' is the change as the user wrote it, for the job's history. */
static void upd_id (struct ctld *ctx, const struct upd *u, const char *what,
                    uint32_t id, bool alone, uid_t uid, arbor_error_t *err,
                    int *first)
{
    bool found = false;
    char why[128];

    for (struct job *j = ctx->jobs; j; j = j->next) {
        int e;
        if (j->id != id && (alone || j->array_job_id != id))
            continue;
        found = true;
        if ((e = upd_one (ctx, j, u, uid, why, sizeof (why))) != 0) {
            errappend (err, "job %u: %s", j->id, why);
            *first = *first ? *first : e;
            continue;
        }
        job_event (ctx, j, "updated %s by %s", what, u->who ? u->who : "?");
        persist_job (ctx, j);
        log_info ("job %u: updated %s by uid %u", j->id, what, (unsigned)uid);
    }
    if (!found) {
        errappend (err, "job %u: %s", id, "Invalid job id specified");
        *first = *first ? *first : ENOENT;
    }
}

/* "TimeLimit=30 JobName=x", cut to fit 'size'. */
static void upd_describe (const struct msg_job_update *m, char *buf,
                          size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (uint32_t i = 0; i < m->keys_count && used + 1 < size; i++)
        used +=
            (size_t)snprintf (buf + used, size - used, "%s%s=%s", i ? " " : "",
                              m->keys[i], m->values[i] ? m->values[i] : "");
}

int job_update (struct ctld *ctx, const struct msg_job_update *m, uid_t uid,
                arbor_error_t *err)
{
    struct upd u = { 0 };
    char what[256];
    int first = 0;

    err->text[0] = '\0';
    if (job_ids_check (m->job_ids_count + (uint64_t)m->task_ids_count, err) < 0)
        return -1;
    if (upd_parse (m, &u, err) < 0)
        return -1;
    upd_describe (m, what, sizeof (what));
    u.who = event_who (uid);
    for (uint32_t i = 0; i < m->job_ids_count; i++)
        upd_id (ctx, &u, what, m->job_ids[i], false, uid, err, &first);
    for (uint32_t i = 0; i < m->task_ids_count; i++)
        upd_id (ctx, &u, what, m->task_ids[i], true, uid, err, &first);
    free (u.who);
    if (m->job_ids_count + m->task_ids_count == 0) {
        first = EINVAL;
        errprintf (err, "No job id specified");
    }
    sched_request (ctx); /* a pending job may fit now, or elsewhere */
    errno = first;
    return first ? -1 : 0;
}
