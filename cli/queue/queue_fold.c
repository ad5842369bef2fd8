/* queue_fold.c - the lines of arbor queue, arrays folded as squeue folds
 * them. See queue_fold.h.
 *
 * The rows that may fold are sorted by array, then by what sets a task
 * apart, then by task id; each run of equal keys is one group. Sorting
 * keeps this O(n log n) for arrays of many thousand tasks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue_fold.h"
#include "states.h"

/* Pending tasks that never started: what squeue folds. */
static bool fold_candidate (const struct job_view *v)
{
    return v->rec.array_job_id != 0
           && job_state_parse (jv_str (v->rec.state_shown), false)
                  == JOB_PENDING
           && v->rec.restarts == 0;
}

static bool fold_held (const struct job_view *v)
{
    return strncmp (jv_str (v->rec.reason), "JobHeld", 7) == 0;
}

static int fold_u32_cmp (uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}

/* Jobs a and b: same group when 0 (the task ids left out). */
static int fold_key_cmp (const struct job_view *a, const struct job_view *b)
{
    int d;

    if ((d = fold_u32_cmp (a->rec.array_job_id, b->rec.array_job_id))
        || (d = (int)fold_held (a) - (int)fold_held (b))
        || (d = strcmp (jv_str (a->rec.partition), jv_str (b->rec.partition)))
        || (d = strcmp (jv_str (a->rec.name), jv_str (b->rec.name)))
        || (d = fold_u32_cmp (a->rec.time_limit, b->rec.time_limit))
        || (d = fold_u32_cmp (a->rec.nnodes, b->rec.nnodes)))
        return d;
    return fold_u32_cmp (a->rec.ncpus, b->rec.ncpus);
}

/* qsort_r over indexes into the listing ('arg'). */
static int fold_row_cmp (const void *pa, const void *pb, void *arg)
{
    const struct job_list *l = arg;
    const struct job_view *a = &l->jobs[*(const uint32_t *)pa],
                          *b = &l->jobs[*(const uint32_t *)pb];
    int d = fold_key_cmp (a, b);

    if (d)
        return d;
    return fold_u32_cmp (a->rec.array_task_id, b->rec.array_task_id);
}

/* Cut 's' (of length len) to max_len bytes ending in "...". */
static void fold_cut (char *s, size_t len, size_t max_len)
{
    if (max_len == 0 || len <= max_len)
        return;
    if (max_len < 4) {
        s[max_len] = '\0';
        return;
    }
    strcpy (s + max_len - 3, "...");
}

char *queue_task_ranges (const uint32_t *v, size_t n, size_t max_len)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);

    if (!f)
        return NULL;
    for (size_t k = 0; k < n;) {
        size_t end = k;
        while (end + 1 < n && v[end + 1] == v[end] + 1)
            end++;
        if (end == k)
            fprintf (f, "%s%u", k ? "," : "", v[k]);
        else
            fprintf (f, "%s%u-%u", k ? "," : "", v[k], v[end]);
        k = end + 1;
    }
    if (fclose (f) != 0) {
        free (buf);
        errno = ENOMEM;
        return NULL;
    }
    fold_cut (buf, len, max_len);
    return buf;
}

/* Line 'l' as the group idx[0..n) of jobs: "A_[ranges]" and "ranges" in
 * one allocation (l->folded; l->tasks points into it). */
static int fold_group (struct queue_row *l, const struct job_list *jobs,
                       const uint32_t *idx, size_t n, size_t max_len)
{
    uint32_t *tasks = calloc (n, sizeof (*tasks));
    char *ranges = NULL, *both = NULL;
    int len;

    if (tasks) {
        for (size_t k = 0; k < n; k++)
            tasks[k] = jobs->jobs[idx[k]].rec.array_task_id;
        ranges = queue_task_ranges (tasks, n, max_len);
    }
    free (tasks);
    if (!ranges)
        return -1;
    len = asprintf (&both, "%u_[%s]%c%s", l->job->rec.array_job_id, ranges,
                    '\0', ranges);
    free (ranges);
    if (len < 0) {
        errno = ENOMEM;
        return -1;
    }
    l->folded = both;
    l->tasks = both + strlen (both) + 1;
    return 0;
}

/* The candidates idx[0..n) (sorted) as lines, appended to out. */
static int fold_groups (const struct queue_row *proto,
                        const struct job_list *jobs, const uint32_t *idx,
                        size_t n, size_t max_len, struct queue_lines *out)
{
    for (size_t k = 0; k < n;) {
        size_t end = k + 1;
        struct queue_row *l = &out->v[out->n];
        while (end < n
               && fold_key_cmp (&jobs->jobs[idx[k]], &jobs->jobs[idx[end]])
                      == 0)
            end++;
        *l = *proto;
        l->job = &jobs->jobs[idx[k]];
        l->folded = l->tasks = NULL;
        if (end - k > 1 && fold_group (l, jobs, idx + k, end - k, max_len) < 0)
            return -1;
        out->n++;
        k = end;
    }
    return 0;
}

int queue_lines_build (const struct queue_row *proto,
                       const struct job_list *jobs, const bool *keep, bool fold,
                       size_t max_len, struct queue_lines *out)
{
    uint32_t *cand = calloc (jobs->n + 1, sizeof (*cand));
    size_t ncand = 0;

    *out = (struct queue_lines){ 0 };
    out->v = calloc (jobs->n + 1, sizeof (*out->v));
    if (!cand || !out->v)
        goto nomem;
    for (uint32_t i = 0; i < jobs->n; i++) {
        struct queue_row *l = &out->v[out->n];
        if (keep && !keep[i])
            continue;
        if (fold && fold_candidate (&jobs->jobs[i])) {
            cand[ncand++] = i;
            continue;
        }
        *l = *proto;
        l->job = &jobs->jobs[i];
        l->folded = l->tasks = NULL;
        out->n++;
    }
    /* qsort_r's context is not const */
    qsort_r (cand, ncand, sizeof (*cand), fold_row_cmp, (void *)jobs);
    if (fold_groups (proto, jobs, cand, ncand, max_len, out) < 0)
        goto nomem;
    free (cand);
    return 0;
nomem:
    free (cand);
    queue_lines_free (out);
    errno = ENOMEM;
    return -1;
}

void queue_lines_free (struct queue_lines *l)
{
    int e = errno;

    if (!l)
        return;
    for (size_t k = 0; k < l->n; k++)
        free ((char *)l->v[k].folded);
    free (l->v);
    *l = (struct queue_lines){ 0 };
    errno = e;
}
