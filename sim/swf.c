/* swf.c - reading Standard Workload Format traces. See swf.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "swf.h"

#define SWF_FIELDS 18

/* "; MaxProcs: 256": the processor count the trace ran on. */
static void swf_header (const char *line, struct swf_trace *t)
{
    unsigned long v;

    if (sscanf (line, "; MaxProcs: %lu", &v) == 1 && v > 0)
        t->max_procs = (uint32_t)v;
    else if (sscanf (line, "; MaxNodes: %lu", &v) == 1 && v > 0
             && !t->max_procs)
        t->max_procs = (uint32_t)v;
}

/* The 18 fields of a job line. -1 when it has fewer or a non-number. */
static int swf_fields (const char *line, int64_t *f)
{
    const char *p = line;

    for (int i = 0; i < SWF_FIELDS; i++) {
        char *end;
        errno = 0;
        f[i] = strtoll (p, &end, 10);
        if (end == p || errno)
            return -1;
        p = end;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return *p ? -1 : 0;
}

static int swf_add (struct swf_trace *t, const int64_t *f)
{
    struct swf_job j = {
        .id = (uint32_t)f[0],
        .submit = f[1],
        .run = f[3],
        .procs = (uint32_t)(f[7] > 0 ? f[7] : f[4]),
        .req_time = f[8] > 0 ? f[8] : f[3],
    };
    struct swf_job *v;

    if (j.procs == 0 || j.run < 0 || j.submit < 0 || f[7] > UINT32_MAX
        || f[4] > UINT32_MAX) {
        t->skipped++;
        return 0;
    }
    if (j.req_time < j.run)
        j.req_time = j.run; /* it ran that long: it asked at least that */
    if ((t->njobs & (t->njobs - 1)) == 0) {
        v = realloc (t->jobs, (t->njobs ? 2 * t->njobs : 1) * sizeof (*v));
        if (!v)
            return -1;
        t->jobs = v;
    }
    t->jobs[t->njobs++] = j;
    return 0;
}

int swf_read (FILE *f, const char *name, struct swf_trace *t,
              arbor_error_t *err)
{
    char *line = NULL;
    size_t cap = 0;
    int64_t fields[SWF_FIELDS];
    unsigned lineno = 0;
    int rc = 0;

    memset (t, 0, sizeof (*t));
    while (rc == 0 && getline (&line, &cap, f) > 0) {
        const char *s = line + strspn (line, " \t");
        lineno++;
        if (*s == ';')
            swf_header (s, t);
        else if (*s == '\n' || *s == '\r' || !*s)
            continue;
        else if (swf_fields (s, fields) < 0)
            rc = errprintf (err, "%s:%u: not an SWF job line (18 numbers)",
                            name, lineno);
        else if (swf_add (t, fields) < 0)
            rc = errprintf (err, "out of memory");
    }
    free (line);
    if (rc < 0)
        swf_free (t);
    return rc;
}

void swf_free (struct swf_trace *t)
{
    free (t->jobs);
    memset (t, 0, sizeof (*t));
}
