/* jobview_lists.c - job views from the lists of a 2.11 controller.
 *
 * A controller of protocol 2.11 or earlier does not know JOB_INFO's
 * 'records' and answers with JOB_INFO_REPLY's lists, one entry per job.
 * Each entry becomes the job view a record would have given
 * (jobview.h), so the commands read one shape whoever answered. A job
 * attribute added after 2.11 has no list, and needs no line here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobview.h"
#include "jobview_lists.h"

/* A copy of list f's entry i ("" past its end); sets *bad on ENOMEM. */
#define LIST_STR(r, f, i, bad) jv_dup (PROTO_STR (r, f, i), bad)

static char *jv_dup (const char *s, bool *bad)
{
    char *d = strdup (s);

    *bad |= !d;
    return d;
}

/* The record's part: what the job is and what happened to it. */
static void lists_rec (const struct msg_job_info_reply *r, uint32_t i,
                       struct msg_job_rec *rec, bool *bad)
{
    rec->id = PROTO_NUM (r, job_ids, i);
    rec->uid = PROTO_NUM (r, uids, i);
    rec->gid = PROTO_NUM (r, gids, i);
    rec->name = LIST_STR (r, names, i, bad);
    rec->user = LIST_STR (r, users, i, bad);
    rec->partition = LIST_STR (r, partitions, i, bad);
    rec->state_shown = LIST_STR (r, states, i, bad);
    rec->reason = LIST_STR (r, reasons, i, bad);
    rec->nodelist = LIST_STR (r, nodelists, i, bad);
    rec->nnodes = PROTO_NUM (r, nnodes, i);
    rec->ncpus = PROTO_NUM (r, ncpus, i);
    rec->time_limit = PROTO_NUM (r, time_limits, i);
    rec->start_time = PROTO_NUM (r, start_times, i);
    rec->nsteps = PROTO_NUM (r, nsteps, i);
    rec->end_time = PROTO_NUM (r, end_times, i);
    rec->exit_rc = (int32_t)PROTO_NUM (r, exit_codes, i);
    rec->array_job_id = PROTO_NUM (r, array_job_ids, i);
    rec->array_task_id = PROTO_NUM (r, array_task_ids, i);
    rec->submit_time = PROTO_NUM (r, submit_times, i);
    rec->batch_id = PROTO_NUM (r, batch_flags, i) ? rec->id : 0;
    rec->restarts = PROTO_NUM (r, restarts, i);
    rec->expected_start = PROTO_NUM (r, expected_starts, i);
    rec->priority = PROTO_NUM (r, priorities, i);
    rec->eligible_time = PROTO_NUM (r, eligible_times, i);
    rec->requeue = PROTO_NUM (r, requeues, i) != 0;
    rec->mail_type = PROTO_NUM (r, mail_types, i);
    rec->mail_user = LIST_STR (r, mail_users, i, bad);
}

/* The live fields the controller works out. */
static void lists_live (const struct msg_job_info_reply *r, uint32_t i,
                        struct msg_job_rec *rec, bool *bad)
{
    rec->account = LIST_STR (r, accounts, i, bad);
    rec->dependency = LIST_STR (r, dependencies, i, bad);
    rec->std_out = LIST_STR (r, std_outs, i, bad);
    rec->std_err = LIST_STR (r, std_errs, i, bad);
    rec->std_in = LIST_STR (r, std_ins, i, bad);
    rec->submit_host = LIST_STR (r, submit_hosts, i, bad);
    rec->req_nodelist = LIST_STR (r, req_nodelists, i, bad);
    rec->exc_nodelist = LIST_STR (r, exc_nodelists, i, bad);
    rec->licenses_shown = LIST_STR (r, licenses, i, bad);
    rec->ntasks = PROTO_NUM (r, ntasks, i);
    rec->cpus_per_task = PROTO_NUM (r, cpus_per_task, i);
    rec->mem_per_node = PROTO_NUM (r, mem_per_node, i);
    rec->mem_per_cpu = PROTO_NUM (r, mem_per_cpu, i);
    rec->min_cpus = PROTO_NUM (r, min_cpus, i);
    rec->min_tmp = PROTO_NUM (r, min_tmps, i);
    rec->nnodes_max = PROTO_NUM (r, nnodes_maxs, i);
}

/* What lives in the request. */
static void lists_req (const struct msg_job_info_reply *r, uint32_t i,
                       struct msg_job_alloc *req, bool *bad)
{
    req->cwd = LIST_STR (r, work_dirs, i, bad);
    req->command = LIST_STR (r, commands, i, bad);
    req->comment = LIST_STR (r, comments, i, bad);
    req->nice = (int32_t)PROTO_NUM (r, nices, i);
    req->time_min = PROTO_NUM (r, time_mins, i);
}

int jobview_from_lists (struct job_list *out,
                        const struct msg_job_info_reply *page,
                        arbor_error_t *err)
{
    for (uint32_t i = 0; i < page->job_ids_count; i++) {
        struct job_view v;
        bool bad = false;
        memset (&v, 0, sizeof (v));
        lists_rec (page, i, &v.rec, &bad);
        lists_live (page, i, &v.rec, &bad);
        lists_req (page, i, &v.req, &bad);
        if (bad) {
            job_view_clear (&v);
            errno = ENOMEM;
            return errprintf (err, "job listing: out of memory");
        }
        if (job_list_push (out, &v) < 0)
            return errprintf (err, "job listing: out of memory");
    }
    return 0;
}
