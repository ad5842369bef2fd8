/* action.h - JOB_ACTION: hold, release, requeue, suspend and resume jobs
 * (scontrol hold, release, requeue, suspend, resume; arbor
 * hold/release/requeue).
 */
#ifndef ARBOR_CTLD_ACTION_H
#define ARBOR_CTLD_ACTION_H

#include <sys/types.h>

#include "error.h"
#include "proto.h"

struct ctld;

/* Apply m->action to every job of m->job_ids (an array job's id names
 * all its tasks) that uid may act on. 0 when every job was changed;
 * else -1 with errno from the first failure (ENOENT unknown job, EPERM
 * not yours, held by an administrator, or suspend/resume by a user;
 * EINVAL the action does not apply: not pending, not running, not a
 * batch job, unknown action) and err naming
 * each job that failed. */
int job_action (struct ctld *ctx, const struct msg_job_action *m, uid_t uid,
                arbor_error_t *err);

#endif
