/* acct_tres.h - the generic resources in sacct's AllocTRES and ReqTRES
 * (issue 35): "gres/gpu=2" items, from the job record's per-node holdings
 * (node_gres) and from its request (--gres, --gpus*).
 */
#ifndef ARBOR_CLI_ACCT_TRES_H
#define ARBOR_CLI_ACCT_TRES_H

#include <stddef.h>

#include "jobview.h"

/* ",gres/gpu=2,gres/nic=1" of what the job held; "" none. Returns buf. */
const char *acct_tres_gres_alloc (const struct msg_job_rec *r, char *buf,
                                  size_t len);
/* The same of what it asked for: --gres and --gpus-per-node times its
 * nodes, --gpus-per-task times its tasks, --gpus. */
const char *acct_tres_gres_req (const struct job_view *v, char *buf,
                                size_t len);

#endif
