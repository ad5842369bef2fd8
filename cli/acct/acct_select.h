/* acct_select.h - which accounting records become lines, and in what
 * order.
 *
 * -j takes job ids as sacct does: N (the job, or every task of array N),
 * N_T (task T of array N), N.STEP (one step only: batch, extern,
 * interactive or a number; the job's own line is then left out). The
 * controller is asked for the jobs N; the finer choice is made here.
 *
 * Jobs are listed in job id order, each run once (the last one, unless
 * -D asks for every run), each followed by its steps: batch, extern,
 * interactive, then 0, 1, 2... A job run is its view (jobview_acct.h):
 * its record and the accounting record of the run. Pure functions.
 */
#ifndef ARBOR_CLI_ACCT_SELECT_H
#define ARBOR_CLI_ACCT_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "jobview.h"
#include "proto.h"

struct acct_sel {
    uint32_t job;
    uint32_t task; /* JOBSEL_NO_TASK: any */
    uint32_t step; /* STEP_ID_ALL: the job and all its steps */
};

struct acct_sels {
    struct acct_sel *v;
    size_t n; /* 0: every job the controller sent */
};

/* Parse -j's comma-separated list (appended). 0, or -1 with errno
 * EINVAL / ENOMEM and err naming the bad id; sels as it was then. */
int acct_sels_parse (struct acct_sels *sels, const char *list,
                     arbor_error_t *err);
void acct_sels_clear (struct acct_sels *sels);

/* Does the job's own line show? Does step 'step' of it show? */
bool acct_sels_job (const struct acct_sels *sels, const struct job_view *v);
bool acct_sels_step (const struct acct_sels *sels, const struct job_view *v,
                     uint32_t step);

/* Sort job runs by (job id, run), steps by (job id, run, step order). */
void acct_sort_jobs (struct job_view *jobs, size_t n);
void acct_sort_steps (struct msg_acct_step *steps, size_t n);

/* Is jobs[i] (sorted) the last run of its job that the answer holds? */
bool acct_last_run (const struct job_view *jobs, size_t n, size_t i);

/* The steps of run v in sorted 'steps': the first one (or NULL), *count
 * of them. */
const struct msg_acct_step *acct_steps_of (const struct msg_acct_step *steps,
                                           size_t n, const struct job_view *v,
                                           size_t *count);

/* Where step 'id' sorts among a job's steps. */
uint64_t acct_step_rank (uint32_t id);

#endif
