/* job_base.h - what may be asked of a job record without changing its
 * life (job_base.c): its state as shown, who may act on it, its reason.
 * Every room stands on these; they call nothing of the job life.
 */
#ifndef ARBOR_CTLD_JOB_BASE_H
#define ARBOR_CTLD_JOB_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct ctld;
struct job;
struct msg_job_allocated;

/* Name of 'uid' (its number when it has none). Caller frees; NULL ENOMEM. */
char *user_name (uid_t uid);
/* What users see: "COMPLETING" while the completing flag is set,
 * "SUSPENDED" while a running job is suspended, else job_state_str
 * (common/util/states.h) of its state. */
const char *job_state_shown (const struct job *j);
/* Its state is STATE_ACTIVE (common/util/states.h): PENDING or RUNNING. An
 * ended job, even completing, is not active. */
bool job_is_active (const struct job *j);
/* uid may act on j: its owner, root or ArborUser. */
bool job_access (const struct ctld *ctx, const struct job *j, uid_t uid);
/* Who may do what only administrators may, for messages: "root", or
 * "root or NAME" when ArborUser is another user. Returns buf. */
#define JOB_ADMINS_LEN 1100
const char *job_admins (const struct ctld *ctx, char *buf, size_t len);
/* Job ids one JOB_ACTION or JOB_UPDATE may name (each is looked up
 * through every job): as many as a job-info filter (ctld/serve/info.c). The
 * commands send longer lists in parts. */
#define JOB_MAX_IDS 4096u
/* 0 if a request naming 'n' job ids is within JOB_MAX_IDS, else -1 with
 * errno EINVAL and err naming both. */
int job_ids_check (uint64_t n, arbor_error_t *err);
/* Over: ended and done completing (every node ran its epilog). */
bool job_is_over (const struct job *j);
/* Set (a copy of) j's reason; NULL clears it. -1 with errno ENOMEM
 * (unchanged). */
int job_set_reason (struct job *j, const char *reason);
/* Fill 'out' (a struct msg_job_allocated) for a running job. */
int job_allocated_msg (const struct ctld *ctx, const struct job *j,
                       struct msg_job_allocated *out);

#endif
