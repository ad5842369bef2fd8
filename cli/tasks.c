/* tasks.c - task records, srun's exit status rule and task summaries.
 * See tasks.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks.h"

int tasks_init (struct task_table *tt, uint32_t n)
{
    memset (tt, 0, sizeof (*tt));
    if (n && !(tt->t = calloc (n, sizeof (*tt->t))))
        return -1;
    tt->n = n;
    return 0;
}

void tasks_clear (struct task_table *tt)
{
    free (tt->t);
    memset (tt, 0, sizeof (*tt));
}

static struct task_rec *tasks_get_live (struct task_table *tt, uint32_t task)
{
    if (task >= tt->n) {
        errno = EINVAL;
        return NULL;
    }
    if (tt->t[task].state >= TASK_EXITED) {
        errno = EALREADY;
        return NULL;
    }
    return &tt->t[task];
}

int tasks_set_running (struct task_table *tt, uint32_t task)
{
    struct task_rec *r = tasks_get_live (tt, task);

    if (!r)
        return -1;
    r->state = TASK_RUNNING;
    return 0;
}

int tasks_set_exit (struct task_table *tt, uint32_t task, int code, int sig)
{
    struct task_rec *r = tasks_get_live (tt, task);

    if (!r)
        return -1;
    r->state = sig ? TASK_SIGNALED : TASK_EXITED;
    r->code = code;
    r->sig = sig;
    tt->ended++;
    return 0;
}

int tasks_set_lost (struct task_table *tt, uint32_t task)
{
    struct task_rec *r = tasks_get_live (tt, task);

    if (!r)
        return -1;
    r->state = TASK_LOST;
    r->code = 1;
    tt->ended++;
    return 0;
}

bool tasks_all_ended (const struct task_table *tt)
{
    return tt->ended >= tt->n;
}

void tasks_exit_status (const struct task_table *tt, int *exit_code,
                        int *signal)
{
    int maxsig = 0, maxcode = 0;

    for (uint32_t i = 0; i < tt->n; i++) {
        const struct task_rec *r = &tt->t[i];
        if (r->state == TASK_SIGNALED && r->sig > maxsig)
            maxsig = r->sig;
        else if (r->state >= TASK_EXITED && r->code > maxcode)
            maxcode = r->code;
    }
    *signal = maxsig;
    *exit_code = maxsig ? 0 : maxcode > 255 ? 255 : maxcode;
}

int tasks_exit_code (const struct task_table *tt)
{
    int code, sig;

    tasks_exit_status (tt, &code, &sig);
    return sig ? 128 + sig : code;
}

char *tasks_ranged (const uint32_t *ids, size_t n, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n;) {
        size_t j = i;
        char part[32];
        int m;
        while (j + 1 < n && ids[j + 1] == ids[j] + 1)
            j++;
        if (j > i)
            m = snprintf (part, sizeof (part), "%s%u-%u", i ? "," : "", ids[i],
                          ids[j]);
        else
            m = snprintf (part, sizeof (part), "%s%u", i ? "," : "", ids[i]);
        if (used + (size_t)m + 4 >= len) {
            snprintf (buf + used, len - used, "%s...", i ? "," : "");
            break;
        }
        memcpy (buf + used, part, (size_t)m + 1);
        used += (size_t)m;
        i = j + 1;
    }
    return buf;
}

/* The summary word of a record. */
static const char *tasks_word (const struct task_rec *r)
{
    switch (r->state) {
    case TASK_STARTING: return "launching";
    case TASK_RUNNING: return "running";
    case TASK_EXITED: return r->code == 0 ? "exited" : "exited abnormally";
    default: return "exited abnormally";
    }
}

void tasks_summary (const struct task_table *tt,
                    void (*line) (const char *text, void *arg), void *arg)
{
    static const char *const words[] = {
        "running",
        "launching",
        "exited",
        "exited abnormally",
    };
    uint32_t *ids;
    char ranged[512], text[600];

    if (tt->n == 0 || !(ids = malloc (tt->n * sizeof (*ids))))
        return;
    for (size_t w = 0; w < sizeof (words) / sizeof (words[0]); w++) {
        size_t n = 0;
        for (uint32_t i = 0; i < tt->n; i++) {
            if (!strcmp (tasks_word (&tt->t[i]), words[w]))
                ids[n++] = i;
        }
        if (n == 0)
            continue;
        snprintf (text, sizeof (text), "tasks %s: %s",
                  tasks_ranged (ids, n, ranged, sizeof (ranged)), words[w]);
        line (text, arg);
    }
    free (ids);
}
