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

struct job;

/* Which processes of a running job a signal reaches, as Slurm's scancel
 * and --signal: its steps but the batch shell (and the extern step) by
 * default, everything (scancel -f, and SIGKILL), the batch shell's own
 * process alone (scancel -b, --signal=B:: SIGNAL_LEADER_ONLY). */
enum cancel_whom { CANCEL_STEPS, CANCEL_ALL, CANCEL_BATCH };

/* Send 'sig' (not 0) to j's processes 'whom'; nothing ends by itself. */
void cancel_signal_job (struct ctld *ctx, const struct job *j, int sig,
                        enum cancel_whom whom);

#endif
