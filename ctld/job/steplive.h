/* steplive.h - is a step live? The controller's word for a node that
 * cannot tell from its own memory, and for step reports.
 *
 * A noded refuses the launch of a step it knows as revoked (noded/revoke.h),
 * but it forgets: a restart empties its cache, and a full cache evicts.
 * For a credential issued before its memory was complete, it asks here
 * (STEP_LIVE) before launching. The same rule keeps out of the records a
 * node's STEP_COMPLETE for a job long ended whose share on that node is
 * over: no stepd of the job can have been running there since, so the
 * report is of a step that should never have run.
 */
#ifndef ARBOR_CTLD_STEPLIVE_H
#define ARBOR_CTLD_STEPLIVE_H

#include "conn.h"
#include "error.h"
#include "proto.h"

struct ctld;
struct job;

/* 0 when step m->job_id.m->step_id of the job's run m->restarts is live
 * on m->node: the job RUNNING (not ending), the step known and not ended,
 * the node one of its nodes and its share there not reported over. Else
 * -1 with errno ENOENT (no such job) or EPERM, and err saying why. */
int step_live (const struct ctld *ctx, const struct msg_step_live *m,
               arbor_error_t *err);

/* 0 when node 'node' may still report a step of job j (STEP_COMPLETE): the
 * job is active, or it ended so recently that a stepd's report may still
 * be on its way (KillWait + UnkillableStepTimeout + the noded's relay
 * retries + a margin), or it is ending and the node's share of it is not
 * over (its EPILOG_COMPLETE has not come). Else -1 with errno EPERM and
 * err: a stepd of the job reporting then ran outside the job. */
int step_report_allowed (const struct ctld *ctx, const struct job *j,
                         const char *node, arbor_error_t *err);

/* The STEP_LIVE handler (serve.c's table): root, ArborUser and NodedUser
 * only; answers RC (0 live, else step_live's errno and text). */
void steplive_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                      void *arg);

#endif
