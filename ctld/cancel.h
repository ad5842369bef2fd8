/* cancel.h - JOB_CANCEL: signal steps, or end the job (term.h).
 */
#ifndef ARBOR_CTLD_CANCEL_H
#define ARBOR_CTLD_CANCEL_H

#include <sys/types.h>

#include "error.h"
#include "proto.h"

struct ctld;

/* Apply JOB_CANCEL 'm' from 'uid'. 0 when done or under way, else -1 with
 * errno ENOENT, EPERM, EINVAL or ENOMEM and err holding the answer's text
 * ("Invalid job id 5", "Access/permission denied for job 5", ...). */
int job_cancel (struct ctld *ctx, const struct msg_job_cancel *m, uid_t uid,
                arbor_error_t *err);

#endif
