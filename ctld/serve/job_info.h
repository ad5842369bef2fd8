/* job_info.h - the JOB_INFO answer; see job_info.c.
 */
#ifndef ARBOR_CTLD_JOB_INFO_H
#define ARBOR_CTLD_JOB_INFO_H
#include <stdbool.h>

#include "error.h"
#include "proto.h"

struct ctld;
struct job;

#define INFO_MAX_IDS 4096  /* job_ids in a filter (JOB_INFO, STEP_INFO) */
#define INFO_MAX_NAMES 256 /* users or states in a filter */

/* Bytes of job fields after which a JOB_INFO answer ends its page (the
 * frame limit is 16 MiB): however much one user keeps, every listing
 * comes in pages the protocol can carry. */
#define JOB_INFO_PAGE_BYTES (4u << 20)

/* One page of the answer, in job id order, from after m->after_job_id:
 * records when m->records, else the lists; out->more_after names where
 * the next starts, 0 when none. 0, or -1 with errno (ENOENT, EINVAL,
 * ENOMEM) and err. Clear 'out' with proto_clear. */
int job_info_build (const struct ctld *ctx, const struct msg_job_info *m,
                    struct msg_job_info_reply *out, arbor_error_t *err);

/* Does job j pass the request's filters (job_id, job_ids, users, states;
 * an array's id names its tasks too)? */
bool job_info_wanted (const struct msg_job_info *m, const struct job *j);

#endif
