/* naming.c - step names and the termination banner. See naming.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "naming.h"
#include "proto.h"

const char *step_name (char *buf, size_t size, uint32_t job, uint32_t step)
{
    const char *special = step == STEP_ID_BATCH         ? "batch"
                          : step == STEP_ID_EXTERN      ? "extern"
                          : step == STEP_ID_INTERACTIVE ? "interactive"
                                                        : NULL;

    if (special)
        snprintf (buf, size, "%u.%s", job, special);
    else
        snprintf (buf, size, "%u.%u", job, step);
    return buf;
}

/* Slurm's words for why: "CANCELLED AT ... DUE TO TIME LIMIT". */
static const char *banner_due (const char *reason)
{
    return !strcmp (reason, "TIMEOUT")     ? " DUE TO TIME LIMIT"
           : !strcmp (reason, "NODE_FAIL") ? " DUE TO NODE FAILURE"
           : !strcmp (reason, "PREEMPTED") ? " DUE TO PREEMPTION"
           : !strcmp (reason, "REQUEUED")  ? " DUE TO JOB REQUEUE"
                                           : NULL;
}

const char *stepd_who (bool slurm_names)
{
    return slurm_names ? "slurmstepd" : "arbor-stepd";
}

int term_banner (char *buf, size_t size, const char *who, uint32_t job,
                 uint32_t step, const char *node, const char *reason,
                 time_t when)
{
    char id[48], name[32], stamp[32];
    const char *due, *what;
    struct tm tm;
    int n;

    if (!buf || size == 0 || !node || !localtime_r (&when, &tm)) {
        errno = EINVAL;
        return -1;
    }
    strftime (stamp, sizeof (stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    reason = reason && *reason ? reason : "CANCELLED";
    due = banner_due (reason);
    what = due ? "CANCELLED" : reason;
    if (step == STEP_ID_BATCH) /* the batch script is the job, to Slurm */
        snprintf (id, sizeof (id), "JOB %u", job);
    else
        snprintf (id, sizeof (id), "STEP %s",
                  step_name (name, sizeof (name), job, step));
    n = snprintf (buf, size, "%s: error: *** %s ON %s %s AT %s%s ***\n", who,
                  id, node, what, stamp, due ? due : "");
    if (n < 0) {
        errno = EINVAL;
        return -1;
    }
    return (size_t)n < size ? n : (int)size - 1;
}
