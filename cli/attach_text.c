/* attach_text.c - the pure parts of "arbor attach" (attach_text.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "attach_text.h"
#include "jobsel.h"
#include "proto.h"

int attach_parse_step (const char *s, uint32_t *job, uint32_t *step)
{
    uint32_t j, t, st;

    if (!s || jobsel_parse_id (s, &j, &t, &st) < 0 || t != JOBSEL_NO_TASK
        || st == STEP_ID_ALL) {
        errno = EINVAL;
        return -1;
    }
    *job = j;
    *step = st;
    return 0;
}

bool attach_step_has_io (uint32_t step)
{
    return step != STEP_ID_BATCH && step != STEP_ID_EXTERN;
}

int attach_parse_rank (const char *s, int32_t *rank)
{
    char *end;
    long v;

    if (!s || *s < '0' || *s > '9') {
        errno = EINVAL;
        return -1;
    }
    errno = 0;
    v = strtol (s, &end, 10);
    if (errno || *end || v >= INT32_MAX) {
        errno = EINVAL;
        return -1;
    }
    *rank = (int32_t)v;
    return 0;
}

bool attach_shows (const struct attach_filter *f, uint32_t task, int stream)
{
    int32_t only = stream == 2 ? f->err : f->out;

    return only == ATTACH_ALL || (uint32_t)only == task;
}

int attach_layout_print (FILE *f, uint32_t job, uint32_t step,
                         const char *nodelist, uint32_t ntasks,
                         const struct attach_node *nodes, size_t nnodes)
{
    char id[48];

    jobsel_id_str (job, step, id, sizeof (id));
    fprintf (f, "Job step %s layout:\n", id);
    fprintf (f, "  %u task%s, %zu node%s (%s)\n\n", ntasks,
             ntasks == 1 ? "" : "s", nnodes, nnodes == 1 ? "" : "s",
             nodelist ? nodelist : "");
    for (size_t i = 0; i < nnodes; i++) {
        const struct attach_node *n = &nodes[i];
        fprintf (f, "  Node %zu (%s), %u task%s:", i, n->name ? n->name : "?",
                 n->nranks, n->nranks == 1 ? "" : "s");
        for (uint32_t k = 0; k < n->nranks; k++)
            fprintf (f, " %u", n->ranks[k]);
        fputc ('\n', f);
    }
    if (fflush (f) != 0 || ferror (f))
        return -1;
    return 0;
}
