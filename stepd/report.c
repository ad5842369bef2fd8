/* report.c - tell the controller this node's share of the step is over.
 *
 * STEP_COMPLETE {job, step, node, rc, oom} once the step's processes are
 * gone and its container removed (lifecycle.c, LIFE_REPORT), as one
 * asynchronous request on the loop (common/request.h). Best effort: a
 * controller that does not answer within STEPD_COMPLETE_TIMEOUT is
 * logged, and the step ends anyway; the noded's termination path
 * (JOB_TERMINATE, epilog) completes the job without it.
 */
#include <errno.h>
#include <string.h>

#include "log.h"
#include "request.h"
#include "stepd.h"

#define STEPD_COMPLETE_TIMEOUT 5.0

static void report_done_cb (const struct request_result *res, void *arg)
{
    struct stepd *sd = arg;

    sd->report = NULL; /* the request frees itself */
    sd->reported = true;
    if (res->errnum)
        log_warn ("STEP_COMPLETE to %s:%u: %s", sd->conf->control_addr,
                  sd->conf->ctld_port, res->err.text);
    else
        log_debug ("step complete, rc %d%s", sd->rc, sd->oom ? ", OOM" : "");
}

void report_start (struct stepd *sd)
{
    struct msg_step_complete m = {
        .job_id = sd->init.job_id,
        .step_id = sd->init.step_id,
        .node = (char *)sd->node,
        .rc = sd->rc,
        .oom = sd->oom,
    };
    struct request_opts opts = {
        .peers = sd->kept,
        .peer_uid = (uid_t)sd->arbor_uid,
        .timeout = STEPD_COMPLETE_TIMEOUT,
    };

    sd->report =
        request_tcp (sd->loop, sd->conf->control_addr, sd->conf->ctld_port,
                     MSG_STEP_COMPLETE, &m, &opts, report_done_cb, sd);
    if (!sd->report) {
        log_warn ("STEP_COMPLETE to %s:%u: %s", sd->conf->control_addr,
                  sd->conf->ctld_port, strerror (errno));
        sd->reported = true;
    }
}

bool report_done (const struct stepd *sd)
{
    return sd->reported;
}

void report_cancel (struct stepd *sd)
{
    request_cancel (sd->report);
    sd->report = NULL;
}
