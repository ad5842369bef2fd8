/* jobinfo.c - a whole JOB_INFO listing, every page of it; see jobinfo.h.
 *
 * Each page is turned into job views as it comes: records from a
 * controller of 2.12 on, lists from an older one (jobview_lists.c; it
 * does not know 'records' and answers with the lists).
 */
#include <errno.h>
#include <string.h>

#include "jobinfo.h"
#include "jobview_lists.h"

/* Page after page: the resume point must grow, or a controller that
 * kept answering the same page would hold us forever. */
static int jobinfo_next (struct client *cl, struct msg_job_info *q,
                         struct job_list *out, arbor_error_t *err)
{
    struct msg_job_info_reply page;

    if (client_call (cl, MSG_JOB_INFO, q, MSG_JOB_INFO_REPLY, &page,
                     CLIENT_TIMEOUT_MS, err)
        < 0)
        return -1;
    if (page.more_after && page.more_after <= q->after_job_id) {
        errprintf (err, "job listing: a page after job %u ends at job %u",
                   q->after_job_id, page.more_after);
        proto_clear (MSG_JOB_INFO_REPLY, &page);
        errno = EPROTO;
        return -1;
    }
    q->after_job_id = page.more_after;
    int rc = page.job_ids_count ? jobview_from_lists (out, &page, err)
                                : jobview_append_records (out, &page, err);
    int e = errno;
    proto_clear (MSG_JOB_INFO_REPLY, &page);
    errno = e;
    return rc;
}

/* Every page of one request's listing, appended to *out. */
static int jobinfo_pages (struct client *cl, const struct msg_job_info *req,
                          struct job_list *out, arbor_error_t *err)
{
    struct msg_job_info q = *req; /* shallow: only after_job_id changes */

    do {
        if (jobinfo_next (cl, &q, out, err) < 0)
            return -1;
    } while (q.after_job_id != 0);
    return 0;
}

int jobinfo_fetch (struct client *cl, const struct msg_job_info *req,
                   struct job_list *out, arbor_error_t *err)
{
    uint32_t n = req->job_ids_count, at = 0;

    memset (out, 0, sizeof (*out));
    do { /* a long id list in parts the controller takes */
        struct msg_job_info q = *req;
        q.records = true;
        if (n > JOBINFO_MAX_IDS) {
            q.job_ids = req->job_ids + at;
            q.job_ids_count =
                n - at < JOBINFO_MAX_IDS ? n - at : JOBINFO_MAX_IDS;
        }
        if (jobinfo_pages (cl, &q, out, err) < 0) {
            int e = errno;
            job_list_clear (out);
            errno = e;
            return -1;
        }
        at += JOBINFO_MAX_IDS;
    } while (at < n);
    return 0;
}
