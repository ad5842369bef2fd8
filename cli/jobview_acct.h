/* jobview_acct.h - the job view of one accounting record (ACCT_JOB), as
 * sacct and seff read it (jobview_acct.c).
 *
 * A record written by a controller of 2.12 or later carries the job's
 * record (ACCT_JOB's 'job'): the view is that record, decoded. An older
 * record carries none: its own fields fill the view instead, as
 * jobview_lists.h does for a 2.11 controller's lists, so that every job
 * line reads a full view whoever wrote its record. Either way the view
 * points back at the accounting record (v->acct) for what only
 * accounting knows.
 */
#ifndef ARBOR_CLI_JOBVIEW_ACCT_H
#define ARBOR_CLI_JOBVIEW_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "jobview.h"
#include "proto.h"

/* The view of record j into *v; v->acct is j, borrowed (j must outlive
 * v). 0, or -1 with errno EPROTO (its job record does not decode) or
 * ENOMEM, and err naming the job; *v is then empty. */
int jobview_acct (const struct msg_acct_job *j, struct job_view *v,
                  arbor_error_t *err);

/* Append the views of the n records 'jobs' to 'out', in their order.
 * 0, or -1 with errno and err as above ('out' keeps the views appended
 * before the one that failed). */
int jobview_acct_list (struct job_list *out, const struct msg_acct_job *jobs,
                       size_t n, arbor_error_t *err);

/* Did the view come from the job record the accounting record carries
 * (2.12), rather than from an older record's own fields? What only that
 * record tells (the job attributes of jobattr.h) is unknown otherwise. */
static inline bool jobview_acct_has_rec (const struct job_view *v)
{
    return v->acct && v->acct->job_len > 0;
}

/* The CPUs the run held: the record's count once it has nodes (before,
 * the record's count is the one asked, and accounting says 0). */
static inline uint32_t jobview_acct_alloc_cpus (const struct job_view *v)
{
    return v->rec.nodelist && *v->rec.nodelist ? v->rec.ncpus : 0;
}

#endif
