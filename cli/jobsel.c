/* jobsel.c - job ids, state names and filters for the commands; see
 * jobsel.h. The state names, codes and flags are common/util/states.h's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobsel.h"
#include "jobview.h"
#include "proto.h"
#include "states.h"

static const struct {
    const char *name;
    uint32_t id;
} jobsel_steps[] = {
    { "batch", STEP_ID_BATCH },
    { "extern", STEP_ID_EXTERN },
    { "interactive", STEP_ID_INTERACTIVE },
};
#define JOBSEL_NSTEPS (sizeof (jobsel_steps) / sizeof (jobsel_steps[0]))

/* A decimal id in [lo, STEP_ID_INTERACTIVE): 0 or -1. */
static int jobsel_number (const char *s, size_t len, uint32_t lo, uint32_t *out)
{
    char buf[16], *end;
    unsigned long v;

    if (len == 0 || len >= sizeof (buf) || *s < '0' || *s > '9')
        return -1;
    memcpy (buf, s, len);
    buf[len] = '\0';
    errno = 0;
    v = strtoul (buf, &end, 10);
    if (errno || *end || v < lo || v >= STEP_ID_INTERACTIVE)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* ".STEP" at 'dot' (NULL: none, STEP_ID_ALL) into *step. 0 or -1. */
static int jobsel_step (const char *dot, uint32_t *step)
{
    *step = STEP_ID_ALL;
    if (!dot)
        return 0;
    for (size_t i = 0; i < JOBSEL_NSTEPS; i++) {
        if (!strcasecmp (dot + 1, jobsel_steps[i].name)) {
            *step = jobsel_steps[i].id;
            return 0;
        }
    }
    return jobsel_number (dot + 1, strlen (dot + 1), 0, step);
}

int jobsel_parse_id (const char *s, uint32_t *job, uint32_t *task,
                     uint32_t *step)
{
    const char *dot = s ? strchr (s, '.') : NULL;
    size_t len = !s ? 0 : dot ? (size_t)(dot - s) : strlen (s);
    const char *us = s ? memchr (s, '_', len) : NULL;
    size_t jlen = us ? (size_t)(us - s) : len;
    uint32_t j, t = JOBSEL_NO_TASK, st;

    if (!s || jobsel_number (s, jlen, 1, &j) < 0
        || (us && jobsel_number (us + 1, len - jlen - 1, 0, &t) < 0)
        || jobsel_step (dot, &st) < 0) {
        errno = EINVAL;
        return -1;
    }
    *job = j;
    *task = t;
    *step = st;
    return 0;
}

const char *jobsel_id_str (uint32_t job, uint32_t step, char *buf, size_t len)
{
    if (step == STEP_ID_ALL) {
        snprintf (buf, len, "%u", job);
        return buf;
    }
    for (size_t i = 0; i < JOBSEL_NSTEPS; i++) {
        if (jobsel_steps[i].id == step) {
            snprintf (buf, len, "%u.%s", job, jobsel_steps[i].name);
            return buf;
        }
    }
    snprintf (buf, len, "%u.%u", job, step);
    return buf;
}

const char *jobsel_task_str (uint32_t job, uint32_t task, uint32_t step,
                             char *buf, size_t len)
{
    char id[48];
    const char *dot;

    if (task == JOBSEL_NO_TASK)
        return jobsel_id_str (job, step, buf, len);
    dot = strchr (jobsel_id_str (job, step, id, sizeof (id)), '.');
    snprintf (buf, len, "%u_%u%s", job, task, dot ? dot : "");
    return buf;
}

const char *jobsel_state_code (const char *state)
{
    int s = job_state_parse (state, false);

    return s < 0 ? "??" : job_state_info (s)->code;
}

bool jobsel_state_valid (const char *word)
{
    return !strcasecmp (word, "all") || job_state_parse (word, true) >= 0;
}

bool jobsel_in_list (const char *list, const char *item, bool nocase)
{
    size_t n = strlen (item);

    for (const char *p = list; p && *p;) {
        const char *e = strchrnul (p, ',');
        if ((size_t)(e - p) == n
            && !(nocase ? strncasecmp (p, item, n) : strncmp (p, item, n)))
            return true;
        p = *e ? e + 1 : e;
    }
    return false;
}

bool jobsel_state_in (const char *list, const char *state)
{
    return jobsel_in_list (list, "all", true)
           || jobsel_in_list (list, state, true)
           || jobsel_in_list (list, jobsel_state_code (state), true);
}

bool jobsel_state_active (const char *state)
{
    int s = job_state_parse (state, true);

    return s >= 0 && (job_state_info (s)->flags & STATE_ACTIVE);
}

int jobsel_list_task (const struct job_list *l, uint32_t array, uint32_t task)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->jobs[i].rec.array_job_id == array
            && l->jobs[i].rec.array_task_id == task)
            return (int)i;
    return -1;
}

bool jobsel_view_active (const struct job_view *v)
{
    return v->rec.state_shown && jobsel_state_active (v->rec.state_shown);
}

bool jobsel_filter_empty (const struct jobsel_filter *f)
{
    return !f->user && !f->name && !f->states && !f->partition;
}

bool jobsel_filter_match (const struct jobsel_filter *f, const char *user,
                          const char *name, const char *state,
                          const char *partition)
{
    if (f->user && !jobsel_in_list (f->user, user, false))
        return false;
    if (f->name && !jobsel_in_list (f->name, name, false))
        return false;
    if (f->partition && !jobsel_in_list (f->partition, partition, false))
        return false;
    if (f->states)
        return jobsel_state_in (f->states, state);
    return jobsel_state_active (state);
}
