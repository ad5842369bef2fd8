/* job_base.c - what may be asked of a job record without changing its
 * life: the state users see, whether it is active or over, who may act
 * on it, the administrators' names for messages, its reason, and what a
 * requester is told of its allocation. Every room calls these; they call
 * nothing above the record, so that queries never tie a room to the job
 * life.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctld.h"
#include "job/job.h"
#include "job/job_base.h"
#include "nodes/part.h"
#include "proto.h"
#include "states.h"

const char *job_state_shown (const struct job *j)
{
    if (j->completing)
        return job_state_str (JOB_COMPLETING);
    if (j->state == JOB_RUNNING && j->suspended)
        return job_state_str (JOB_SUSPENDED);
    return job_state_str (j->state);
}

bool job_is_active (const struct job *j)
{
    return (job_state_info (j->state)->flags & STATE_ACTIVE) != 0;
}

bool job_access (const struct ctld *ctx, const struct job *j, uid_t uid)
{
    return uid == j->uid || uid == 0 || uid == ctx->priv_uid;
}

char *user_name (uid_t uid)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    char num[32];

    if (getpwuid_r (uid, &pw, buf, sizeof (buf), &res) == 0 && res)
        return strdup (pw.pw_name);
    snprintf (num, sizeof (num), "%lu", (unsigned long)uid);
    return strdup (num);
}

int job_ids_check (uint64_t n, arbor_error_t *err)
{
    if (n <= JOB_MAX_IDS)
        return 0;
    errno = EINVAL;
    return errprintf (err, "%llu job ids, at most %u in one request",
                      (unsigned long long)n, JOB_MAX_IDS);
}

const char *job_admins (const struct ctld *ctx, char *buf, size_t len)
{
    const char *au = ctx->conf->arbor_user;

    if (!au || !*au || !strcmp (au, "root"))
        snprintf (buf, len, "root");
    else
        snprintf (buf, len, "root or %s", au);
    return buf;
}

bool job_is_over (const struct job *j)
{
    return !job_is_active (j) && !j->completing;
}

int job_set_reason (struct job *j, const char *reason)
{
    char *copy = NULL;

    if (reason && !(copy = strdup (reason)))
        return -1;
    free (j->reason);
    j->reason = copy;
    return 0;
}

int job_allocated_msg (const struct ctld *ctx, const struct job *j,
                       struct msg_job_allocated *out)
{
    memset (out, 0, sizeof (*out));
    out->job_id = j->id;
    out->mem_mb = 0; /* per node: the largest when --mem-per-cpu */
    for (size_t i = 0; i < j->nnodes; i++)
        if (j->nodes[i].mem_mb > out->mem_mb)
            out->mem_mb = j->nodes[i].mem_mb;
    out->time_limit = j->time_limit;
    out->start_time = (uint64_t)j->start_time;
    out->nodelist = strdup (j->nodelist ? j->nodelist : "");
    out->partition = strdup (ctx->parts[j->part].name);
    out->account = strdup (j->account ? j->account : "");
    out->qos = strdup (j->qos ? j->qos : "");
    out->cpus = calloc (j->nnodes ? j->nnodes : 1, sizeof (uint32_t));
    if (!out->nodelist || !out->cpus || !out->partition || !out->account
        || !out->qos) {
        proto_clear (MSG_JOB_ALLOCATED, out);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < j->nnodes; i++)
        out->cpus[i] = j->nodes[i].cpus;
    out->cpus_count = (uint32_t)j->nnodes;
    return 0;
}
