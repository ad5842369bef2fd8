/* adopt_ask.c - pam_arbor_adopt's two questions, each one blocking
 * exchange over a unix socket in the node's spool directory (the daemons
 * know us as root by SO_PEERCRED):
 *   the noded's local socket: which of the user's jobs run here;
 *   the job's extern stepd: take this process into your container.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adopt_ask.h"
#include "proto.h"
#include "rpc.h"

int adopt_ask_jobs (const char *spool, uid_t uid, int timeout_ms,
                    uint32_t **jobs, uint32_t **externs, size_t *count,
                    arbor_error_t *err)
{
    struct msg_node_jobs req = { .uid = (uint32_t)uid };
    struct msg_node_jobs_reply r = { 0 };
    char path[4096];

    if (snprintf (path, sizeof (path), "%s/noded.sock", spool)
        >= (int)sizeof (path))
        return errprintf (err, "spool path too long");
    if (rpc_call_unix (path, MSG_NODE_JOBS, &req, MSG_NODE_JOBS_REPLY, &r,
                       timeout_ms, err)
        < 0)
        return -1;
    if (r.extern_steps_count != r.job_ids_count) {
        proto_clear (MSG_NODE_JOBS_REPLY, &r);
        errno = EPROTO;
        return errprintf (err, "malformed answer from %s", path);
    }
    *jobs = r.job_ids;
    *externs = r.extern_steps;
    *count = r.job_ids_count;
    r.job_ids = r.extern_steps = NULL; /* taken */
    proto_clear (MSG_NODE_JOBS_REPLY, &r);
    return 0;
}

int adopt_ask_stepd (const char *spool, uint32_t job, pid_t pid, int timeout_ms,
                     arbor_error_t *err)
{
    struct msg_stepd_adopt req = { .pid = (uint32_t)pid };
    struct msg_rc rc = { 0 };
    char path[4096];

    if (snprintf (path, sizeof (path), "%s/stepd.%u.%u.sock", spool, job,
                  STEP_ID_EXTERN)
        >= (int)sizeof (path))
        return errprintf (err, "spool path too long");
    if (rpc_call_unix (path, MSG_STEPD_ADOPT, &req, MSG_RC, &rc, timeout_ms,
                       err)
        < 0)
        return -1;
    proto_clear (MSG_RC, &rc);
    return 0;
}
