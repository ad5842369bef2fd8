/* naming.c - step names and the termination banner. See naming.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
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

int term_banner (char *buf, size_t size, uint32_t job, uint32_t step,
                 const char *node, const char *reason, time_t when)
{
    char id[32], stamp[32];
    struct tm tm;
    int n;

    if (!buf || size == 0 || !node || !localtime_r (&when, &tm)) {
        errno = EINVAL;
        return -1;
    }
    strftime (stamp, sizeof (stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    n = snprintf (buf, size,
                  "arbor-stepd: error: *** STEP %s ON %s %s AT "
                  "%s ***\n",
                  step_name (id, sizeof (id), job, step), node,
                  reason && *reason ? reason : "CANCELLED", stamp);
    if (n < 0) {
        errno = EINVAL;
        return -1;
    }
    return (size_t)n < size ? n : (int)size - 1;
}
