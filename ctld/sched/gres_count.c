/* gres_count.c - requests against counts of units. See gres_count.h. */
#include <errno.h>
#include <string.h>

#include "sched/gres_count.h"
#include "sched/gres_sched.h"

static bool matches (const struct gres_count *c, const char *name,
                     const char *type)
{
    return !strcmp (c->name, name)
           && (!type || !*type || (c->type && !strcmp (c->type, type)));
}

uint64_t gres_count_avail (const struct gres_count *c, size_t n,
                           const char *name, const char *type)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < n; i++)
        if (matches (&c[i], name, type))
            sum += c[i].free;
    return sum;
}

uint32_t gres_count_tasks (const struct gres_count *c, size_t n,
                           const struct job_gres *g, bool exclusive)
{
    uint64_t cap = UINT32_MAX;

    for (size_t i = 0; i < g->per_node.n; i++) {
        const struct gres_req *r = &g->per_node.v[i];
        if (gres_count_avail (c, n, r->name, r->type) < r->count)
            return 0;
    }
    if (g->per_task.count) {
        uint64_t t = gres_count_avail (c, n, "gpu", g->per_task.type)
                     / g->per_task.count;
        if (t < cap)
            cap = t;
    }
    if (exclusive)
        for (size_t i = 0; i < n; i++)
            if (c[i].free < c[i].total)
                return 0;
    return (uint32_t)cap;
}

uint32_t gres_count_units (const struct gres_count *c, size_t n,
                           const struct job_gres *g)
{
    uint64_t units =
        g->per_job.count ? gres_count_avail (c, n, "gpu", g->per_job.type) : 0;

    return units > UINT32_MAX ? UINT32_MAX : (uint32_t)units;
}

/* Take 'count' units of name (and type), items in order. */
static int take (struct gres_count *c, size_t n, const char *name,
                 const char *type, uint64_t count, uint32_t *taken)
{
    for (size_t i = 0; i < n && count; i++) {
        if (!matches (&c[i], name, type))
            continue;
        uint32_t t = c[i].free < count ? c[i].free : (uint32_t)count;
        c[i].free -= t;
        taken[i] += t;
        count -= t;
    }
    if (count) {
        errno = ENOSPC;
        return -1;
    }
    return 0;
}

int gres_count_take (struct gres_count *c, size_t n, const struct job_gres *g,
                     bool exclusive, uint32_t tasks, uint32_t share,
                     uint32_t *taken)
{
    int rc = 0;

    if (exclusive) {
        for (size_t i = 0; i < n; i++) {
            taken[i] += c[i].free;
            c[i].free = 0;
        }
        return 0;
    }
    for (size_t i = 0; i < g->per_node.n && rc == 0; i++)
        rc = take (c, n, g->per_node.v[i].name, g->per_node.v[i].type,
                   g->per_node.v[i].count, taken);
    if (rc == 0 && g->per_task.count)
        rc = take (c, n, "gpu", g->per_task.type,
                   (uint64_t)g->per_task.count * tasks, taken);
    if (rc == 0 && share)
        rc = take (c, n, "gpu", g->per_job.type, share, taken);
    return rc;
}
