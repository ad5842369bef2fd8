/* jobview.h - one job as the commands see it: its record, decoded once.
 *
 * The controller answers JOB_INFO with one JOB_REC per job (2.12): the
 * same record it keeps in its state database, with the live fields it
 * works out when it answers (user name, state shown, priority...; see
 * JOB_REC in common/wire/proto_msgs.def). A job view is that record and
 * the request inside it (rec.request, the job's JOB_ALLOC), decoded once
 * per row; squeue's fields, scontrol show job, the --json writers, scancel
 * and the job selections read the view and nothing else. Adding a job
 * attribute is then: its field in the record or the request, the code in
 * the controller that sets it, and the fields that print it.
 *
 * A controller of 2.11 or earlier answers with lists, one entry per job
 * (JOB_INFO_REPLY's lists): jobview_lists.h turns them into the same
 * views, so that this command still works against it.
 */
#ifndef ARBOR_CLI_JOBVIEW_H
#define ARBOR_CLI_JOBVIEW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "proto.h"

struct job_view {
    struct msg_job_rec rec;   /* the record, live fields filled */
    struct msg_job_alloc req; /* its request (rec.request), decoded */
    /* The accounting record of the run it shows (sacct, seff:
     * jobview_acct.h), for what only accounting knows (the run, the
     * cluster, the state and exit as accounted, CPUs and memory asked);
     * borrowed. NULL outside accounting. */
    const struct msg_acct_job *acct;
};

/* Every job of a listing, in the controller's order. */
struct job_list {
    struct job_view *jobs;
    size_t n;
};

/* The strings a command shows never are NULL: "" for none. */
static inline const char *jv_str (const char *s)
{
    return s ? s : "";
}

/* Its QOS as every command shows it: "normal", Slurm's default QOS, when
 * the record carries none (a controller older than 2.14, an accounting
 * record written before it, a view built from lists). */
static inline const char *jv_qos (const struct job_view *v)
{
    return v && v->rec.qos && *v->rec.qos ? v->rec.qos : "normal";
}

/* Is it a batch job? */
static inline bool jv_batch (const struct job_view *v)
{
    return v->rec.batch_id != 0;
}

/* Decode the records of one JOB_INFO_REPLY page and append them to
 * 'out'. 0, or -1 with errno (EPROTO, ENOMEM) and err naming the job. */
int jobview_append_records (struct job_list *out,
                            const struct msg_job_info_reply *page,
                            arbor_error_t *err);

/* The view an accounting record carries (ACCT_JOB's 'job', 2.12): 0 and
 * *v filled, 1 when the record carries none (written by an older
 * controller; *v is then zero), or -1 with errno EPROTO and err. */
int jobview_from_acct (const struct msg_acct_job *j, struct job_view *v,
                       arbor_error_t *err);

/* Append one view built field by field (the unit tests, and the lists
 * above): 'v' is moved into the list (its strings are owned by it now).
 * 0, or -1 ENOMEM (v is then cleared). */
int job_list_push (struct job_list *l, struct job_view *v);

/* Free every view and empty the list. */
void job_list_clear (struct job_list *l);

/* Free one view's fields (not the view itself). */
void job_view_clear (struct job_view *v);

#endif
