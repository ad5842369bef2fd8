/* cancel.h - JOB_CANCEL: signal steps, or end the job (term.h), or
 * every task of a job array.
 */
#ifndef ARBOR_CTLD_CANCEL_H
#define ARBOR_CTLD_CANCEL_H

#include <sys/types.h>

#include "error.h"
#include "proto.h"

struct ctld;

/* Apply JOB_CANCEL 'm' from 'uid'. 0 when done or under way, else -1 with
 * errno ENOENT, EPERM, EINVAL or ENOMEM and err holding the answer's text
 * ("Invalid job id 5", "Access/permission denied for job 5", ...).
 * m->job_id naming an array (a job's array_job_id) with step_id
 * STEP_ID_ALL acts on every active task of it that uid may act on: 0 if
 * at least one was acted on, else -1 with the first task's error (EPERM
 * when uid may act on none, EINVAL when none is still active). */
int job_cancel (struct ctld *ctx, const struct msg_job_cancel *m, uid_t uid,
                arbor_error_t *err);

#endif
