/* jobview_fuzz.c - libFuzzer target: the commands' job views
 * (cli/jobview.c, cli/jobview_acct.c, cli/jobview_lists.c, cli/jobattr.c).
 *
 * Each input is taken as one job record of a JOB_INFO answer (a JOB_REC
 * whose request is a JOB_ALLOC inside it), as the job record an
 * accounting record carries, and as a whole JOB_INFO_REPLY page of a
 * 2.11 controller's lists. Decoding must never crash, leak or read out
 * of bounds; what decodes gives exactly one view, whose attributes
 * (jobattr.h) read as strings. As an accounting record it is read both
 * ways: as the job record one carries, and as a whole ACCT_JOB (of 2.11
 * when it carries none: its own fields then fill the view).
 *
 *     cmake -DARBOR_FUZZ=ON -DCMAKE_C_COMPILER=clang ...
 *     build/test-bin/jobview_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobattr.h"
#include "jobview.h"
#include "jobview_acct.h"
#include "jobview_lists.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void read_attrs (const struct job_view *v)
{
    for (size_t i = 0; i < job_nattrs; i++)
        if (!job_attr_text (&job_attrs[i], v))
            abort ();
}

static void as_record (const uint8_t *data, size_t size)
{
    struct proto_bin b = { (char *)data, (uint32_t)size };
    struct msg_job_info_reply page = { .jobs = &b, .jobs_count = 1 };
    struct job_list l = { 0 };
    arbor_error_t err;

    if (jobview_append_records (&l, &page, &err) == 0) {
        if (l.n != 1)
            abort ();
        read_attrs (&l.jobs[0]);
    } else if (l.n != 0)
        abort (); /* nothing kept of a record that failed */
    job_list_clear (&l);
}

/* A view of an accounting record always points back at it. */
static void acct_view (const struct msg_acct_job *a)
{
    struct job_view v;
    arbor_error_t err;

    if (jobview_acct (a, &v, &err) == 0) {
        if (v.acct != a)
            abort ();
        read_attrs (&v);
    }
    job_view_clear (&v);
}

static void as_acct (const uint8_t *data, size_t size)
{
    struct msg_acct_job a = { .job = (char *)data, .job_len = (uint32_t)size };

    acct_view (&a);
    if (proto_decode (MSG_ACCT_JOB, (const char *)data, size, &a, NULL) < 0)
        return;
    acct_view (&a);
    proto_clear (MSG_ACCT_JOB, &a);
}

static void as_lists (const uint8_t *data, size_t size)
{
    struct msg_job_info_reply page;
    struct job_list l = { 0 };
    arbor_error_t err;

    if (proto_decode (MSG_JOB_INFO_REPLY, (const char *)data, size, &page, NULL)
        < 0)
        return;
    if (jobview_from_lists (&l, &page, &err) == 0) {
        if (l.n != page.job_ids_count)
            abort ();
        for (size_t i = 0; i < l.n; i++)
            read_attrs (&l.jobs[i]);
    }
    job_list_clear (&l);
    proto_clear (MSG_JOB_INFO_REPLY, &page);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    as_record (data, size);
    as_acct (data, size);
    as_lists (data, size);
    return 0;
}
