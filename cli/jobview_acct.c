/* jobview_acct.c - the job view of one accounting record; see
 * jobview_acct.h.
 *
 * A record of 2.11 or earlier (no 'job') fills the view from its own
 * fields, each into the field of the record (JOB_REC) or of the request
 * (JOB_ALLOC) that the controller fills from the same value of its job:
 * ctld/acct/acct.c's acct_job_fill and ctld/job/job_rec.c side by side.
 * The history (events) stays in the accounting record, which is where
 * the job records of JOB_INFO answers leave it too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobview.h"
#include "jobview_acct.h"

/* A copy of s ("" for none); sets *bad on ENOMEM. */
static char *acct_dup (const char *s, bool *bad)
{
    char *d = strdup (s ? s : "");

    *bad |= !d;
    return d;
}

/* Who, what and where. */
static void acct_rec_ids (const struct msg_acct_job *j, struct msg_job_rec *r,
                          bool *bad)
{
    r->id = j->job_id;
    r->restarts = j->run;
    r->uid = j->uid;
    r->gid = j->gid;
    r->array_job_id = j->array_job_id;
    r->array_task_id = j->array_task_id;
    r->name = acct_dup (j->name, bad);
    r->user = acct_dup (j->user, bad);
    r->account = acct_dup (j->account, bad);
    r->partition = acct_dup (j->partition, bad);
    r->reason = acct_dup (j->reason, bad);
    r->state_shown = acct_dup (j->state, bad);
}

/* When, how it ended, and what it asked for and held. */
static void acct_rec_life (const struct msg_acct_job *j, struct msg_job_rec *r,
                           bool *bad)
{
    bool ran = j->nodelist && *j->nodelist;

    r->submit_time = j->submit_time;
    r->eligible_time = j->eligible_time;
    r->start_time = j->start_time;
    r->end_time = j->end_time;
    /* the record's exit_rc is 128+signal when a signal ended it */
    r->exit_rc = j->signal ? 128 + j->signal : j->exit_code;
    r->exit_signal = j->signal;
    r->time_limit = j->time_limit;
    r->nnodes = j->nnodes;
    r->nodelist = acct_dup (j->nodelist, bad);
    /* allocated once it has nodes, else asked (JOB_REC's ncpus) */
    r->ncpus = ran ? j->alloc_cpus : j->req_cpus;
    r->ntasks = j->ntasks;
    r->mem_per_cpu = j->mem_per_cpu ? j->req_mem_mb : 0;
    r->mem_per_node = j->mem_per_cpu ? 0 : j->req_mem_mb;
}

/* The view of a record that carries no job record. */
static int acct_fill (const struct msg_acct_job *j, struct job_view *v,
                      arbor_error_t *err)
{
    bool bad = false;

    acct_rec_ids (j, &v->rec, &bad);
    acct_rec_life (j, &v->rec, &bad);
    v->req.cwd = acct_dup (j->work_dir, &bad);
    if (bad) {
        job_view_clear (v);
        memset (v, 0, sizeof (*v));
        errno = ENOMEM;
        return errprintf (err, "job %u: out of memory", j->job_id);
    }
    return 0;
}

int jobview_acct (const struct msg_acct_job *j, struct job_view *v,
                  arbor_error_t *err)
{
    int rc = jobview_from_acct (j, v, err);

    if (rc == 1)
        rc = acct_fill (j, v, err);
    if (rc < 0)
        return -1;
    v->acct = j;
    return 0;
}

int jobview_acct_list (struct job_list *out, const struct msg_acct_job *jobs,
                       size_t n, arbor_error_t *err)
{
    for (size_t i = 0; i < n; i++) {
        struct job_view v;
        if (jobview_acct (&jobs[i], &v, err) < 0)
            return -1;
        if (job_list_push (out, &v) < 0)
            return errprintf (err, "accounting records: out of memory");
    }
    return 0;
}
