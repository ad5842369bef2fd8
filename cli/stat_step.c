/* stat_step.c - see stat_step.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat_step.h"

int stat_step_init (struct stat_step *s, uint32_t job, uint32_t step,
                    const char *nodelist)
{
    memset (s, 0, sizeof (*s));
    s->job_id = job;
    s->step_id = step;
    if (!(s->nodelist = strdup (nodelist ? nodelist : ""))
        || !(s->pids = strdup (""))) {
        stat_step_clear (s);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* Value k of a list, 0 past its end (an entry the stepd left short). */
static uint64_t stat_at (const uint32_t *v, uint32_t count, uint32_t k)
{
    return k < count ? v[k] : 0;
}

static void stat_count (struct stat_measure *m, uint64_t v, bool least,
                        uint32_t task, const char *node)
{
    m->total += v;
    if (!m->ext.set || (least ? v < m->ext.value : v > m->ext.value)) {
        m->ext.set = true;
        m->ext.value = v;
        m->ext.task = task;
        snprintf (m->ext.node, sizeof (m->ext.node), "%s", node);
    }
}

/* Append the reply's pids to s->pids. */
static int stat_add_pids (struct stat_step *s,
                          const struct msg_step_stat_reply *r)
{
    /* a u32 and its comma take at most 11 bytes */
    size_t len = strlen (s->pids), cap = len + (size_t)r->pids_count * 11 + 1;
    char *p;

    if (!r->pids_count)
        return 0;
    if (!(p = realloc (s->pids, cap)))
        return -1;
    s->pids = p;
    for (uint32_t i = 0; i < r->pids_count; i++)
        len += (size_t)snprintf (p + len, cap - len, "%s%u", len ? "," : "",
                                 r->pids[i]);
    return 0;
}

int stat_step_add (struct stat_step *s, const struct msg_step_stat_reply *r)
{
    const char *node = r->node ? r->node : "";

    for (uint32_t k = 0; k < r->ranks_count; k++) {
        uint32_t t = r->ranks[k];
        s->ntasks++;
        stat_count (&s->cpu_cs, stat_at (r->cpu_cs, r->cpu_cs_count, k), true,
                    t, node);
        stat_count (&s->rss_kb, stat_at (r->rss_kb, r->rss_kb_count, k), false,
                    t, node);
        stat_count (&s->vsize_kb, stat_at (r->vsize_kb, r->vsize_kb_count, k),
                    false, t, node);
        stat_count (&s->pages, stat_at (r->pages, r->pages_count, k), false, t,
                    node);
        stat_count (&s->read_kb, stat_at (r->read_kb, r->read_kb_count, k),
                    false, t, node);
        stat_count (&s->write_kb, stat_at (r->write_kb, r->write_kb_count, k),
                    false, t, node);
    }
    if (stat_add_pids (s, r) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

uint64_t stat_step_ave (const struct stat_step *s, const struct stat_measure *m)
{
    return s->ntasks ? m->total / s->ntasks : 0;
}

void stat_step_clear (struct stat_step *s)
{
    free (s->nodelist);
    free (s->pids);
    s->nodelist = s->pids = NULL;
}
