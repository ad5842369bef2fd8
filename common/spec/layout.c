/* layout.c - counts of a step's block layout; see layout.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "layout.h"

uint32_t layout_total (const uint32_t *tasks, size_t n)
{
    uint32_t total = 0;

    for (size_t i = 0; i < n; i++)
        total += tasks[i];
    return total;
}

uint32_t layout_first_rank (const uint32_t *tasks, size_t n, size_t node_id)
{
    return layout_total (tasks, node_id < n ? node_id : n);
}

char *layout_tasks_per_node (const uint32_t *tasks, size_t n)
{
    size_t cap = n * 24 + 1, off = 0;
    char *s = malloc (cap);

    if (!s) {
        errno = ENOMEM;
        return NULL;
    }
    s[0] = '\0';
    for (size_t i = 0; i < n;) {
        size_t run = 1;
        while (i + run < n && tasks[i + run] == tasks[i])
            run++;
        off += (size_t)snprintf (s + off, cap - off, "%s%u", off ? "," : "",
                                 tasks[i]);
        if (run > 1)
            off += (size_t)snprintf (s + off, cap - off, "(x%zu)", run);
        i += run;
    }
    return s;
}
