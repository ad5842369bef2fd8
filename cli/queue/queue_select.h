/* queue_select.h - which jobs and steps arbor queue lists, beyond what
 * the controller filters.
 *
 * -j takes job ids and array tasks: "7" is job 7 or, if 7 is an array's
 * id, every task of that array (the controller matches both); "7_3" is
 * task 3 of array 7 alone. The controller is asked for the job ids (the
 * array's for "7_3") and the tasks are picked here. -p, -n, -q and -w
 * (partitions, names, QOS, nodes) are applied here too; -u and -t go to
 * the controller as they are. Pure functions, unit-tested in
 * cli/test/queue_fold_test.c.
 */
#ifndef ARBOR_CLI_QUEUE_SELECT_H
#define ARBOR_CLI_QUEUE_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "hostlist.h"
#include "jobview.h"
#include "proto.h"

struct queue_id {
    uint32_t job;
    uint32_t task; /* JOBSEL_NO_TASK: the job, or the whole array */
};

struct queue_select {
    struct queue_id *ids; /* -j; none: every job */
    size_t nids;
    const char *partitions; /* -p, comma-separated, borrowed; NULL: any */
    const char *names;      /* -n */
    const char *qos;        /* -q, any case: a job without one is in
                               "normal" (jv_qos) */
    struct hostlist *nodes; /* -w, owned; NULL: any */
};

/* Parse -j ('jobs', may be NULL) and -w ('nodes') and keep -p and -n
 * (the caller sets qos after, as it is kept as given).
 * 0, or -1 with errno EINVAL ("invalid job id '7.1'", a bad hostlist)
 * or ENOMEM and err set; *s is empty then. */
int queue_select_parse (struct queue_select *s, const char *jobs,
                        const char *partitions, const char *names,
                        const char *nodes, arbor_error_t *err);
void queue_select_clear (struct queue_select *s);

/* The job ids to ask the controller for (JOB_INFO's and STEP_INFO's
 * job_ids): a new array of *n ids, one per -j id. NULL with errno
 * ENOMEM. */
uint32_t *queue_select_job_ids (const struct queue_select *s, uint32_t *n);

/* Does -j select the job 'job' (task 'task' of array 'array'; array 0:
 * no array task)? True without -j. */
bool queue_select_id (const struct queue_select *s, uint32_t job,
                      uint32_t array, uint32_t task);

/* Job 'v' / step i of 'r': -j, -p, -n, -q and -w (a step: its own name
 * and nodes; -q does not apply to steps, as in squeue). */
bool queue_select_job (const struct queue_select *s, const struct job_view *v);
bool queue_select_step (const struct queue_select *s,
                        const struct msg_step_info_reply *r, uint32_t i);

#endif
