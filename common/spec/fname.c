/* fname.c - Slurm's file name patterns; see fname.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fname.h"
#include "stepids.h"

/* A step's name in %s: its number, or the special step's name. */
static void fname_step (FILE *f, uint32_t id, int width)
{
    switch (id) {
    case STEP_ID_BATCH: fputs ("batch", f); break;
    case STEP_ID_EXTERN: fputs ("extern", f); break;
    case STEP_ID_INTERACTIVE: fputs ("interactive", f); break;
    default: fprintf (f, "%0*u", width, id); break;
    }
}

/* One field 'c' (after '%' and the width); false if unknown. */
static bool fname_field (FILE *f, char c, int width, const struct fname_vars *v)
{
    switch (c) {
    case 'j': fprintf (f, "%0*u", width, v->job_id); break;
    case 'J':
        fprintf (f, "%0*u", width, v->job_id);
        if (v->step_id != STEP_ID_BATCH) {
            fputc ('.', f);
            fname_step (f, v->step_id, 0);
        }
        break;
    case 's': fname_step (f, v->step_id, width); break;
    case 't': fprintf (f, "%0*u", width, v->task); break;
    case 'n': fprintf (f, "%0*u", width, v->node_id); break;
    case 'N': fputs (v->node ? v->node : "unknown", f); break;
    case 'u': fputs (v->user ? v->user : "", f); break;
    case 'x': fputs (v->job_name ? v->job_name : "", f); break;
    case 'A':
        fprintf (f, "%0*u", width,
                 v->array_job_id ? v->array_job_id : v->job_id);
        break;
    case 'a': fprintf (f, "%0*u", width, v->array_task_id); break;
    case '%': fputc ('%', f); break;
    default: return false;
    }
    return true;
}

/* Backslashes mean "no expansion": the pattern without them. */
static void fname_literal (FILE *f, const char *pattern)
{
    for (const char *p = pattern; *p; p++)
        if (*p != '\\')
            fputc (*p, f);
}

static void fname_fields (FILE *f, const char *pattern,
                          const struct fname_vars *v)
{
    for (const char *p = pattern; *p; p++) {
        const char *start = p;
        int width = 0;

        if (*p != '%') {
            fputc (*p, f);
            continue;
        }
        while (p[1] >= '0' && p[1] <= '9' && width < 100)
            width = width * 10 + (*++p - '0');
        if (!p[1] || !fname_field (f, p[1], width > 64 ? 64 : width, v)) {
            fwrite (start, 1, (size_t)(p - start) + 1, f); /* as written */
            continue;
        }
        p++;
    }
}

char *fname_expand (const char *pattern, const struct fname_vars *v)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream (&buf, &size);

    if (!f)
        return NULL;
    if (strchr (pattern, '\\'))
        fname_literal (f, pattern);
    else
        fname_fields (f, pattern, v);
    if (fclose (f) != 0) {
        free (buf);
        errno = ENOMEM;
        return NULL;
    }
    return buf;
}

bool fname_per_task (const char *pattern)
{
    if (strchr (pattern, '\\'))
        return false;
    for (const char *p = strchr (pattern, '%'); p; p = strchr (p + 1, '%')) {
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q == 't' || *q == 'n' || *q == 'N')
            return true;
        if (*q == '%')
            p = q;
    }
    return false;
}
