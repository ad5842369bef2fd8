/* acct_select.c - accounting lines and their order; see acct_select.h.
 *
 * The job's id and array ids are its record's (v->rec); the run, which
 * only accounting counts, is its accounting record's (v->acct).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct_select.h"
#include "jobsel.h"

int acct_sels_parse (struct acct_sels *sels, const char *list,
                     arbor_error_t *err)
{
    size_t before = sels->n;
    char *copy = strdup (list), *save = NULL;
    int e;

    if (!copy)
        return errprintf (err, "out of memory");
    for (char *t = strtok_r (copy, ",", &save); t;
         t = strtok_r (NULL, ",", &save)) {
        struct acct_sel s, *v;
        if (jobsel_parse_id (t, &s.job, &s.task, &s.step) < 0) {
            errprintf (err, "Invalid job id: %s", t);
            goto fail;
        }
        if (!(v = realloc (sels->v, (sels->n + 1) * sizeof (*v)))) {
            errprintf (err, "out of memory");
            goto fail;
        }
        sels->v = v;
        v[sels->n++] = s;
    }
    free (copy);
    return 0;
fail:
    e = errno;
    free (copy);
    sels->n = before; /* no side effect on failure */
    errno = e;
    return -1;
}

void acct_sels_clear (struct acct_sels *sels)
{
    free (sels->v);
    sels->v = NULL;
    sels->n = 0;
}

/* N matches job N and the tasks of array N; N_T only that task. */
static bool acct_sel_matches (const struct acct_sel *s,
                              const struct job_view *v)
{
    const struct msg_job_rec *j = &v->rec;

    if (s->task != JOBSEL_NO_TASK)
        return j->array_job_id == s->job && j->array_task_id == s->task;
    return j->id == s->job || (j->array_job_id && j->array_job_id == s->job);
}

bool acct_sels_job (const struct acct_sels *sels, const struct job_view *j)
{
    if (sels->n == 0)
        return true;
    for (size_t i = 0; i < sels->n; i++)
        if (sels->v[i].step == STEP_ID_ALL && acct_sel_matches (&sels->v[i], j))
            return true;
    return false;
}

bool acct_sels_step (const struct acct_sels *sels, const struct job_view *j,
                     uint32_t step)
{
    if (sels->n == 0)
        return true;
    for (size_t i = 0; i < sels->n; i++) {
        const struct acct_sel *s = &sels->v[i];
        if ((s->step == STEP_ID_ALL || s->step == step)
            && acct_sel_matches (s, j))
            return true;
    }
    return false;
}

/* batch, extern, interactive, then the numbered steps. */
uint64_t acct_step_rank (uint32_t id)
{
    switch (id) {
    case STEP_ID_BATCH: return 0;
    case STEP_ID_EXTERN: return 1;
    case STEP_ID_INTERACTIVE: return 2;
    default: return 3 + (uint64_t)id;
    }
}

static int acct_cmp_u64 (uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int acct_cmp_jobs (const void *a, const void *b)
{
    const struct job_view *x = a, *y = b;

    if (x->rec.id != y->rec.id)
        return acct_cmp_u64 (x->rec.id, y->rec.id);
    return acct_cmp_u64 (x->acct->run, y->acct->run);
}

static int acct_cmp_steps (const void *a, const void *b)
{
    const struct msg_acct_step *x = a, *y = b;

    if (x->job_id != y->job_id)
        return acct_cmp_u64 (x->job_id, y->job_id);
    if (x->run != y->run)
        return acct_cmp_u64 (x->run, y->run);
    return acct_cmp_u64 (acct_step_rank (x->step_id),
                         acct_step_rank (y->step_id));
}

void acct_sort_jobs (struct job_view *jobs, size_t n)
{
    if (n > 1)
        qsort (jobs, n, sizeof (*jobs), acct_cmp_jobs);
}

void acct_sort_steps (struct msg_acct_step *steps, size_t n)
{
    if (n > 1)
        qsort (steps, n, sizeof (*steps), acct_cmp_steps);
}

bool acct_last_run (const struct job_view *jobs, size_t n, size_t i)
{
    return i + 1 >= n || jobs[i + 1].rec.id != jobs[i].rec.id;
}

/* The first step at or after (job_id, run) in sorted order. */
static size_t acct_steps_lower (const struct msg_acct_step *steps, size_t n,
                                uint32_t job_id, uint32_t run)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct msg_acct_step *s = &steps[mid];
        if (s->job_id < job_id || (s->job_id == job_id && s->run < run))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct msg_acct_step *acct_steps_of (const struct msg_acct_step *steps,
                                           size_t n, const struct job_view *v,
                                           size_t *count)
{
    uint32_t id = v->rec.id, run = v->acct->run;
    size_t first = acct_steps_lower (steps, n, id, run), k = first;

    while (k < n && steps[k].job_id == id && steps[k].run == run)
        k++;
    *count = k - first;
    return *count ? &steps[first] : NULL;
}
