/* place.c - a step's ranks per node; see place.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "distrib.h"
#include "layout.h"
#include "place.h"

/* Arbitrary: node i's ranks are those task_nodes gives it, ascending;
 * next[i] is where node i's next rank goes, end[i] where its share ends. */
static int place_arbitrary (const uint32_t *tasks, uint32_t nnodes,
                            const uint32_t *task_nodes, uint32_t total,
                            uint32_t *ranks, arbor_error_t *err)
{
    uint32_t *next = calloc (nnodes ? 2 * (size_t)nnodes : 1, sizeof (*next));
    uint32_t *end = next + nnodes, pos = 0;

    if (!next)
        return errprintf (err, "out of memory");
    for (uint32_t i = 0; i < nnodes; i++) {
        next[i] = pos;
        pos += tasks[i];
        end[i] = pos;
    }
    for (uint32_t r = 0; r < total; r++) {
        uint32_t n = task_nodes[r];
        if (n >= nnodes || next[n] >= end[n]) {
            free (next);
            errno = EINVAL;
            if (n >= nnodes)
                return errprintf (err,
                                  "arbitrary distribution: rank %u on node "
                                  "%u of a %u-node step",
                                  r, n, nnodes);
            return errprintf (err,
                              "arbitrary distribution: more ranks on node "
                              "%u than its %u tasks",
                              n, tasks[n]);
        }
        ranks[next[n]++] = r;
    }
    free (next);
    return 0;
}

int place_ranks (const char *distribution, const uint32_t *tasks,
                 uint32_t nnodes, const uint32_t *task_nodes,
                 uint32_t ntask_nodes, uint32_t **ranks, arbor_error_t *err)
{
    enum distrib d = DISTRIB_BLOCK;
    uint32_t plane = 0, total = layout_total (tasks, nnodes);
    uint32_t *r;
    int rc;

    *ranks = NULL;
    if (distribution && *distribution
        && distrib_parse (distribution, &d, &plane, err) < 0)
        return -1;
    if (d == DISTRIB_ARBITRARY && ntask_nodes != total) {
        errno = EINVAL;
        return errprintf (err,
                          "arbitrary distribution: %u task nodes for %u "
                          "tasks",
                          ntask_nodes, total);
    }
    if (total == 0)
        return 0;
    if (!(r = calloc (total, sizeof (*r))))
        return errprintf (err, "out of memory");
    if (d == DISTRIB_ARBITRARY)
        rc = place_arbitrary (tasks, nnodes, task_nodes, total, r, err);
    else if ((rc = distrib_ranks (d, plane, tasks, nnodes, r)) < 0)
        errprintf (err, "cannot lay out %u tasks: %s", total, strerror (errno));
    if (rc < 0) {
        int e = errno;
        free (r);
        errno = e;
        return -1;
    }
    *ranks = r;
    return 0;
}
