/* queue_fold.h - the lines of arbor queue, and squeue's folding of job
 * arrays.
 *
 * Without -r, squeue shows the pending tasks of an array that never
 * started as one line, "5_[2-9,12]", and each task that started
 * (running, ended, or requeued after it ran) on its own line, "5_0".
 * Slurm keeps such tasks in one job record until they start; Arbor
 * makes every task a job at submission, so the folding is done here,
 * over the listing's views (jobview.h):
 *
 *   - an array task folds when it is PENDING and was never requeued;
 *   - tasks fold together when they are of the same array and agree in
 *     what a change to one task could set apart (held or not, partition,
 *     name, time limit, nodes, CPUs): Slurm splits a task off its
 *     array's record when such a change is made to it alone;
 *   - a folded line is the first of its tasks (lowest task id) for every
 *     field but %i ("5_[2-9,12]") and %K ("2-9,12"): its %A is that
 *     task's own job id, as Slurm's %A is the id of the array's pending
 *     record, which the next task to start takes;
 *   - a group of one task is shown as that task, "5_3".
 *
 * The %N suffix of a throttled array ("5_[2-9%4]") is not shown (the
 * lists of controllers before 2.12 did not carry the throttle).
 */
#ifndef ARBOR_CLI_QUEUE_FOLD_H
#define ARBOR_CLI_QUEUE_FOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "queue_fields.h"

/* The default of QUEUE_TASKS_LEN: squeue's %K is cut to 64 bytes unless
 * SLURM_BITSTR_LEN says otherwise. */
#define QUEUE_TASKS_LEN 64

struct queue_lines {
    struct queue_row *v; /* in no useful order: queue_sort_rows sorts */
    size_t n;
};

/* The lines of the jobs of 'jobs' that keep[i] says yes to (keep NULL:
 * all; i indexes jobs->jobs), every job its own line, or folded as above
 * when 'fold'. Each line is a copy of *proto (now, time_format; its job,
 * folded and tasks are not looked at) with its job (and folded, tasks)
 * set; job points into 'jobs', which must outlive the lines.
 * max_len cuts a task list longer than that to max_len bytes ending in
 * "..." (0: no limit). 0, or -1 with errno ENOMEM, *out empty. */
int queue_lines_build (const struct queue_row *proto,
                       const struct job_list *jobs, const bool *keep, bool fold,
                       size_t max_len, struct queue_lines *out);
void queue_lines_free (struct queue_lines *l);

/* Sorted task ids v[0..n) as ranges, "2-9,12", into a new string (cut
 * as above). NULL with errno ENOMEM. */
char *queue_task_ranges (const uint32_t *v, size_t n, size_t max_len);

#endif
