/* acct_answer.c - an accounting query's answer, merged and encoded.
 *
 * The records the controller picked from memory and those the database
 * found are merged in (job, run) order, a run in memory hiding its job's
 * runs in the database unless -D (the memory's is newer), and cut into
 * ACCT_REPLY bodies of about ACCT_FRAME_BYTES: jobs first, then steps;
 * 'more' on every frame but the last. It runs on the database's thread,
 * so that the controller's loop only sends the bytes. An answer over
 * ACCT_ANSWER_MAX is refused (E2BIG) rather than queued.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct_answer.h"
#include "acct/acct_db.h"

#define ACCT_FRAME_BYTES (1u << 20)

/* One record of the answer and where it came from. */
struct rec_ref {
    struct acct_run key;
    const struct proto_bin *bin;
};

static int rec_ref_cmp (const void *pa, const void *pb)
{
    const struct rec_ref *a = pa, *b = pb;

    if (a->key.job_id != b->key.job_id)
        return a->key.job_id < b->key.job_id ? -1 : 1;
    return a->key.run < b->key.run ? -1 : a->key.run > b->key.run;
}

static int u32_cmp (const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

    return a < b ? -1 : a > b;
}

/* The ids of the jobs in memory, sorted. NULL on ENOMEM. */
static uint32_t *mem_job_ids (const struct acct_db_query *q)
{
    uint32_t *ids = calloc (q->nmem_jobs + 1, sizeof (*ids));

    if (!ids)
        return NULL;
    for (size_t i = 0; i < q->nmem_jobs; i++)
        ids[i] = q->mem_keys[i].job_id;
    qsort (ids, q->nmem_jobs, sizeof (*ids), u32_cmp);
    return ids;
}

/* The job records of both sources in order. NULL on ENOMEM. */
static struct rec_ref *merged_jobs (const struct acct_db_query *q, size_t *n)
{
    struct rec_ref *v = calloc (q->nmem_jobs + q->njobs + 1, sizeof (*v));
    uint32_t *mem_ids = mem_job_ids (q);
    size_t k = 0;

    if (!v || !mem_ids) {
        free (v);
        free (mem_ids);
        return NULL;
    }
    for (size_t i = 0; i < q->nmem_jobs; i++)
        v[k++] = (struct rec_ref){ q->mem_keys[i], &q->mem_jobs[i] };
    for (size_t i = 0; i < q->njobs; i++)
        if (q->duplicates
            || !bsearch (&q->found[i].job_id, mem_ids, q->nmem_jobs,
                         sizeof (*mem_ids), u32_cmp))
            v[k++] = (struct rec_ref){ q->found[i], &q->jobs[i] };
    free (mem_ids);
    qsort (v, k, sizeof (*v), rec_ref_cmp);
    *n = k;
    return v;
}

/* The steps of both sources (the database's first). NULL on ENOMEM. */
static const struct proto_bin **merged_steps (const struct acct_db_query *q,
                                              size_t *n)
{
    const struct proto_bin **v =
        calloc (q->nsteps + q->nmem_steps + 1, sizeof (*v));
    size_t k = 0;

    if (!v)
        return NULL;
    for (size_t i = 0; i < q->nsteps; i++)
        v[k++] = &q->steps_found[i];
    for (size_t i = 0; i < q->nmem_steps; i++)
        v[k++] = &q->mem_steps[i];
    *n = k;
    return v;
}

static int frame_add (struct acct_db_query *q, const struct msg_acct_reply *r)
{
    struct proto_bin *more =
        realloc (q->frames, (q->nframes + 1) * sizeof (*more));
    char *body;
    size_t len;

    if (!more)
        return -1;
    q->frames = more;
    if (proto_encode (MSG_ACCT_REPLY, r, &body, &len) < 0)
        return -1;
    q->frames[q->nframes++] = (struct proto_bin){ body, (uint32_t)len };
    return 0;
}

/* Cut the records into frames of about ACCT_FRAME_BYTES. */
static int frames_make (struct acct_db_query *q, const struct rec_ref *jobs,
                        size_t njobs, const struct proto_bin *const *steps,
                        size_t nsteps)
{
    struct msg_acct_reply r = { 0 };
    size_t i = 0, k = 0, total = 0;
    int rc = -1;

    r.jobs = calloc (njobs + 1, sizeof (*r.jobs));
    r.steps = calloc (nsteps + 1, sizeof (*r.steps));
    while (r.jobs && r.steps && total <= ACCT_ANSWER_MAX) {
        size_t bytes = 0;
        r.jobs_count = r.steps_count = 0;
        while (i < njobs && bytes < ACCT_FRAME_BYTES) {
            r.jobs[r.jobs_count++] = *jobs[i].bin;
            bytes += jobs[i++].bin->len;
        }
        while (k < nsteps && bytes < ACCT_FRAME_BYTES) {
            r.steps[r.steps_count++] = *steps[k];
            bytes += steps[k++]->len;
        }
        total += bytes;
        r.more = i < njobs || k < nsteps;
        if ((rc = frame_add (q, &r)) < 0 || !r.more)
            break;
    }
    free (r.jobs); /* the records are borrowed */
    free (r.steps);
    if (rc == 0 && total > ACCT_ANSWER_MAX) {
        errno = E2BIG;
        return -1;
    }
    return rc;
}

int acct_answer_frames (struct acct_db_query *q)
{
    size_t njobs = 0, nsteps = 0;
    struct rec_ref *jobs = merged_jobs (q, &njobs);
    const struct proto_bin **steps = merged_steps (q, &nsteps);
    int rc = -1;

    errno = ENOMEM;
    if (jobs && steps)
        rc = frames_make (q, jobs, njobs, steps, nsteps);
    if (rc < 0) {
        q->errnum = errno == E2BIG ? E2BIG : ENOMEM;
        snprintf (q->err, sizeof (q->err), "%s",
                  q->errnum == E2BIG ? "the answer is over 48 MiB: narrow "
                                       "the query (-S, -E, -u, -j, -s, -X)"
                                     : "out of memory");
        proto_bins_free (q->frames, q->nframes);
        q->frames = NULL;
        q->nframes = 0;
    }
    free (jobs);
    free (steps);
    return rc;
}
