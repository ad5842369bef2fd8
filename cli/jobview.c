/* jobview.c - one job as the commands see it; see jobview.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobview.h"

void job_view_clear (struct job_view *v)
{
    proto_clear (MSG_JOB_REC, &v->rec);
    proto_clear (MSG_JOB_ALLOC, &v->req);
}

void job_list_clear (struct job_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        job_view_clear (&l->jobs[i]);
    free (l->jobs);
    l->jobs = NULL;
    l->n = 0;
}

int job_list_push (struct job_list *l, struct job_view *v)
{
    /* Grow by doubling: n is a power of two or 0 when full. */
    if ((l->n & (l->n - 1)) == 0) {
        size_t cap = l->n ? l->n * 2 : 1;
        struct job_view *p = realloc (l->jobs, cap * sizeof (*p));
        if (!p) {
            job_view_clear (v);
            errno = ENOMEM;
            return -1;
        }
        l->jobs = p;
    }
    l->jobs[l->n++] = *v;
    memset (v, 0, sizeof (*v));
    return 0;
}

/* One record: JOB_REC, then the JOB_ALLOC inside it. */
static int jobview_decode (const struct proto_bin *b, struct job_view *v,
                           arbor_error_t *err)
{
    memset (v, 0, sizeof (*v));
    if (proto_decode_sparse (MSG_JOB_REC, b->data, b->len, &v->rec, err) < 0)
        return -1;
    if (v->rec.request_len
        && proto_decode (MSG_JOB_ALLOC, v->rec.request, v->rec.request_len,
                         &v->req, err)
               < 0) {
        int e = errno;
        errprintf (err, "job %u: its request: %s", v->rec.id, err->text);
        proto_clear (MSG_JOB_REC, &v->rec);
        errno = e;
        return -1;
    }
    return 0;
}

int jobview_from_acct (const struct msg_acct_job *j, struct job_view *v,
                       arbor_error_t *err)
{
    struct proto_bin b = { j->job, j->job_len };

    memset (v, 0, sizeof (*v));
    if (!j->job_len)
        return 1;
    if (jobview_decode (&b, v, err) < 0) {
        errno = EPROTO;
        return -1;
    }
    return 0;
}

int jobview_append_records (struct job_list *out,
                            const struct msg_job_info_reply *page,
                            arbor_error_t *err)
{
    for (uint32_t i = 0; i < page->jobs_count; i++) {
        struct job_view v;
        if (jobview_decode (&page->jobs[i], &v, err) < 0) {
            errno = EPROTO;
            return -1;
        }
        if (job_list_push (out, &v) < 0)
            return errprintf (err, "job listing: out of memory");
    }
    return 0;
}
