/* events.c - a job's history. See events.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"
#include "job/events.h"
#include "job/job.h"
#include "state/persist.h"

static int job_event_add (struct job *j, time_t when, char *text)
{
    struct job_event *e;

    if (j->nevents >= JOB_EVENTS_MAX) {
        j->events_dropped++;
        free (text);
        return 0;
    }
    if (!(e = realloc (j->events, (j->nevents + 1) * sizeof (*e)))) {
        j->events_dropped++;
        free (text);
        errno = ENOMEM;
        return -1;
    }
    j->events = e;
    e[j->nevents].time = when;
    e[j->nevents].text = text;
    j->nevents++;
    return 0;
}

/* Add to j's history (counted as dropped when it cannot be). */
static void job_event_vadd (const struct ctld *ctx, struct job *j,
                            const char *fmt, va_list ap)
{
    char *text;

    if (vasprintf (&text, fmt, ap) < 0) {
        j->events_dropped++;
        return;
    }
    (void)job_event_add (j, ctld_now (ctx), text);
}

void job_event (const struct ctld *ctx, struct job *j, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    job_event_vadd (ctx, j, fmt, ap);
    va_end (ap);
    persist_job (ctx, j);
}

void job_event_note (const struct ctld *ctx, struct job *j, const char *fmt,
                     ...)
{
    va_list ap;

    va_start (ap, fmt);
    job_event_vadd (ctx, j, fmt, ap);
    va_end (ap);
}

int job_event_restore (struct job *j, time_t when, const char *text)
{
    char *copy = strdup (text ? text : "");

    if (!copy) {
        errno = ENOMEM;
        return -1;
    }
    return job_event_add (j, when, copy);
}

void job_events_free (struct job *j)
{
    for (uint32_t i = 0; i < j->nevents; i++)
        free (j->events[i].text);
    free (j->events);
    j->events = NULL;
    j->nevents = 0;
}

char *event_who (uid_t uid)
{
    char *name = user_name (uid), *s = NULL;

    if (name && asprintf (&s, "%s (uid %lu)", name, (unsigned long)uid) < 0)
        s = NULL;
    free (name);
    return s;
}
