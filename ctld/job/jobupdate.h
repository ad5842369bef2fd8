/* jobupdate.h - JOB_UPDATE: change jobs (scontrol update JobId=...).
 */
#ifndef ARBOR_CTLD_JOBUPDATE_H
#define ARBOR_CTLD_JOBUPDATE_H

#include <sys/types.h>

#include "error.h"
#include "proto.h"

struct ctld;

/* Apply m's KEY=VALUE pairs (TimeLimit, JobName/Name, Partition,
 * NumNodes, Nice; see JOB_UPDATE in proto_msgs.def) to every job named,
 * as uid. Each job takes every change or none. 0 when every job changed;
 * else -1 with errno from the first failure (EINVAL a bad key or value,
 * or a change that does not apply to the job's state; ENOENT unknown
 * job; EPERM not yours, or only an administrator's to make) and err
 * naming what was refused. */
int job_update (struct ctld *ctx, const struct msg_job_update *m, uid_t uid,
                arbor_error_t *err);

#endif
