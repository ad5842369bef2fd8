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
static bool fold_candidate (const struct msg_job_info_reply *r, uint32_t i)
{
    return PROTO_NUM (r, array_job_ids, i) != 0
           && job_state_parse (PROTO_STR (r, states, i), false) == JOB_PENDING
           && PROTO_NUM (r, restarts, i) == 0;
}

static bool fold_held (const struct msg_job_info_reply *r, uint32_t i)
{
    return strncmp (PROTO_STR (r, reasons, i), "JobHeld", 7) == 0;
}

static int fold_u32_cmp (uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}

/* Rows a and b: same group when 0 (the task ids left out). */
static int fold_key_cmp (const struct msg_job_info_reply *r, uint32_t a,
                         uint32_t b)
{
    int d;

    if ((d = fold_u32_cmp (PROTO_NUM (r, array_job_ids, a),
                           PROTO_NUM (r, array_job_ids, b)))
        || (d = (int)fold_held (r, a) - (int)fold_held (r, b))
        || (d = strcmp (PROTO_STR (r, partitions, a),
                        PROTO_STR (r, partitions, b)))
        || (d = strcmp (PROTO_STR (r, names, a), PROTO_STR (r, names, b)))
        || (d = fold_u32_cmp (PROTO_NUM (r, time_limits, a),
                              PROTO_NUM (r, time_limits, b)))
        || (d = fold_u32_cmp (PROTO_NUM (r, nnodes, a),
                              PROTO_NUM (r, nnodes, b))))
        return d;
    return fold_u32_cmp (PROTO_NUM (r, ncpus, a), PROTO_NUM (r, ncpus, b));
}

static int fold_row_cmp (const void *pa, const void *pb, void *arg)
{
    const struct msg_job_info_reply *r = arg;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    int d = fold_key_cmp (r, a, b);

    if (d)
        return d;
    return fold_u32_cmp (PROTO_NUM (r, array_task_ids, a),
                         PROTO_NUM (r, array_task_ids, b));
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

/* Line 'l' as the group idx[0..n) of rows: "A_[ranges]" and "ranges" in
 * one allocation (l->folded; l->tasks points into it). */
static int fold_group (struct queue_row *l, const uint32_t *idx, size_t n,
                       size_t max_len)
{
    const struct msg_job_info_reply *r = l->r;
    uint32_t *tasks = calloc (n, sizeof (*tasks));
    char *ranges = NULL, *both = NULL;
    int len;

    if (tasks) {
        for (size_t k = 0; k < n; k++)
            tasks[k] = PROTO_NUM (r, array_task_ids, idx[k]);
        ranges = queue_task_ranges (tasks, n, max_len);
    }
    free (tasks);
    if (!ranges)
        return -1;
    len = asprintf (&both, "%u_[%s]%c%s", PROTO_NUM (r, array_job_ids, idx[0]),
                    ranges, '\0', ranges);
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
static int fold_groups (const struct queue_row *proto, const uint32_t *idx,
                        size_t n, size_t max_len, struct queue_lines *out)
{
    for (size_t k = 0; k < n;) {
        size_t end = k + 1;
        struct queue_row *l = &out->v[out->n];
        while (end < n && fold_key_cmp (proto->r, idx[k], idx[end]) == 0)
            end++;
        *l = *proto;
        l->i = idx[k];
        if (end - k > 1 && fold_group (l, idx + k, end - k, max_len) < 0)
            return -1;
        out->n++;
        k = end;
    }
    return 0;
}

int queue_lines_build (const struct queue_row *proto, const bool *keep,
                       bool fold, size_t max_len, struct queue_lines *out)
{
    const struct msg_job_info_reply *r = proto->r;
    uint32_t *cand = calloc (r->job_ids_count + 1, sizeof (*cand));
    size_t ncand = 0;

    *out = (struct queue_lines){ 0 };
    out->v = calloc (r->job_ids_count + 1, sizeof (*out->v));
    if (!cand || !out->v)
        goto nomem;
    for (uint32_t i = 0; i < r->job_ids_count; i++) {
        if (keep && !keep[i])
            continue;
        if (fold && fold_candidate (r, i)) {
            cand[ncand++] = i;
            continue;
        }
        out->v[out->n] = *proto;
        out->v[out->n++].i = i;
    }
    qsort_r (cand, ncand, sizeof (*cand), fold_row_cmp, (void *)r);
    if (fold_groups (proto, cand, ncand, max_len, out) < 0)
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
