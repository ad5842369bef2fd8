/* report.c - tell the controller this node's share of the step is over.
 *
 * STEP_COMPLETE {job, step, node, rc, oom} once the step's processes are
 * gone and its container removed (lifecycle.c, LIFE_REPORT). Best effort:
 * a controller that does not answer within STEPD_COMPLETE_TIMEOUT_MS is
 * logged, and the noded's termination path (JOB_TERMINATE, epilog)
 * completes the job anyway.
 *
 * The call blocks for now: it is the last thing the stepd does, after
 * every connection of the step is flushed and closed, so nothing on the
 * loop waits behind it.
 */
#include <errno.h>
#include <string.h>

#include "log.h"
#include "rpc.h"
#include "stepd.h"

#define STEPD_COMPLETE_TIMEOUT_MS 5000

void report_start (struct stepd *sd)
{
    struct msg_step_complete m = {
        .job_id = sd->init.job_id, .step_id = sd->init.step_id,
        .node = (char *)sd->node, .rc = sd->rc, .oom = sd->oom,
    };
    struct msg_rc resp = { 0 };
    arbor_error_t err = { "" };

    if (rpc_call (sd->auth, sd->conf->control_addr, sd->conf->ctld_port,
                  MSG_STEP_COMPLETE, &m, MSG_RC, &resp,
                  STEPD_COMPLETE_TIMEOUT_MS, &err) < 0)
        log_warn ("STEP_COMPLETE to %s:%u: %s", sd->conf->control_addr,
                  sd->conf->ctld_port, err.text);
    else
        log_debug ("step complete, rc %d%s", sd->rc,
                   sd->oom ? ", OOM" : "");
    proto_clear (MSG_RC, &resp);
    sd->reported = true;
}

bool report_done (const struct stepd *sd)
{
    return sd->reported;
}
