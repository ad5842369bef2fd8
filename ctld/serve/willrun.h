/* willrun.h - --test-only: when a job would start (willrun.c). */
#ifndef ARBOR_CTLD_WILLRUN_H
#define ARBOR_CTLD_WILLRUN_H

#include <sys/types.h>

#include "error.h"
#include "proto.h"

struct ctld;

/* Check req as a submission by uid/gid and plan it; nothing is queued.
 * 0 with *out filled (caller clears it with proto_clear), or -1 with
 * errno and err (what a submission would have been refused for). */
int willrun_answer (struct ctld *ctx, const struct msg_job_alloc *req,
                    uid_t uid, gid_t gid, struct msg_job_will_run *out,
                    arbor_error_t *err);

/* Answer a JOB_ALLOC with test_only on c: JOB_WILL_RUN, or RC. */
struct conn;
struct frame;
void willrun_serve (struct ctld *ctx, struct conn *c, const struct frame *f,
                    const struct msg_job_alloc *req);

#endif
