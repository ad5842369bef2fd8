/* report.c - tell the controller this node's share of the step is over.
 *
 * STEP_COMPLETE {job, step, node, rc, oom, and how the worst task ended
 * and what the tasks used (reap.c)} once the step's processes are gone and
 * its container removed (lifecycle.c, LIFE_REPORT).
 *
 * Normally it goes to the noded, over the connection the stepd already
 * has with it: the socketpair on fd 0, or, after a noded restart, the
 * connection the new noded opened on the step socket and named with
 * STEPD_ATTACH (sock.c), as a request on that held connection
 * (common/wire/request_conn.h: the connection hands out its matchtag and
 * routes the answer). Both are SO_PEERCRED unix connections: no munge
 * call and no TCP connection per stepd. The noded checks that the report
 * is this stepd's and answers RC 0 once it has taken it over: from then
 * on getting it to the controller (with retries while the controller is
 * unreachable) is the noded's job, not ours, and the stepd may exit.
 *
 * Fallback: when the stepd has no noded connection at that moment (the
 * noded is down), or the noded refuses the report, closes, or does not
 * answer within STEPD_RELAY_TIMEOUT (a noded that predates the relay
 * ignores it), the stepd sends STEP_COMPLETE to the controller itself, as
 * one request on a connection of its own (common/wire/request.h; its HELLO is
 * the stepd's only munge call, made in its auth pool). That
 * is best effort, as it always was: a controller that does not answer
 * within STEPD_COMPLETE_TIMEOUT is logged and the step ends anyway; the
 * noded's termination path (JOB_TERMINATE, epilog) completes the job
 * without it. A report the noded took but whose RC was lost may reach
 * the controller twice: the controller counts a node's completion once.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "request.h"
#include "request_conn.h"
#include "reap.h"
#include "report.h"
#include "stepd.h"

#define STEPD_COMPLETE_TIMEOUT 5.0
#define STEPD_RELAY_TIMEOUT 5.0

static void report_message (const struct stepd *sd, struct msg_step_complete *m)
{
    *m = (struct msg_step_complete){
        .job_id = sd->init.job_id,
        .step_id = sd->init.step_id,
        .node = (char *)sd->node,
        .rc = sd->rc,
        .oom = sd->oom,
    };
    reap_account (sd, m);
}

/* ---- fallback: straight to the controller -------------------------------- */

static void report_direct_cb (const struct request_result *res, void *arg)
{
    struct stepd *sd = arg;

    sd->report = NULL; /* the request frees itself */
    sd->reported = true;
    if (res->errnum)
        log_warn ("STEP_COMPLETE to %s:%u: %s", sd->conf->control_addr,
                  sd->conf->ctld_port, res->err.text);
    else
        log_debug ("step complete, rc %d%s (told the controller)", sd->rc,
                   sd->oom ? ", OOM" : "");
}

/* The stepd's own request to the controller: only when no noded takes
 * the report (see the top of the file). */
static void report_direct (struct stepd *sd)
{
    struct msg_step_complete m;
    struct request_opts opts = {
        .peers = sd->kept,
        .peer_uid = (uid_t)sd->arbor_uid,
        .timeout = STEPD_COMPLETE_TIMEOUT,
    };

    report_message (sd, &m);
    sd->report =
        request_tcp (sd->loop, sd->conf->control_addr, sd->conf->ctld_port,
                     MSG_STEP_COMPLETE, &m, &opts, report_direct_cb, sd);
    if (!sd->report) {
        log_warn ("STEP_COMPLETE to %s:%u: %s", sd->conf->control_addr,
                  sd->conf->ctld_port, strerror (errno));
        sd->reported = true;
    }
}

/* ---- through the noded --------------------------------------------------- */

static void report_fallback (struct stepd *sd, bool tried_gone,
                             const char *why);

/* The noded's answer, or why there was none. */
static void report_noded_cb (const struct request_result *res, void *arg)
{
    struct stepd *sd = arg;
    char why[200];

    sd->report = NULL; /* the request frees itself */
    if (res->errnum == 0) {
        /* Taken over: the controller is the noded's business now. */
        sd->report_conn = NULL;
        sd->reported = true;
        log_debug ("step complete, rc %d%s (the noded relays it)", sd->rc,
                   sd->oom ? ", OOM" : "");
        return;
    }
    if (res->outcome == REQUEST_TIMEDOUT)
        snprintf (why, sizeof (why), "the noded did not answer");
    else if (res->outcome == REQUEST_CLOSED)
        snprintf (why, sizeof (why), "the noded closed before answering");
    else if (res->outcome == REQUEST_REFUSED)
        snprintf (why, sizeof (why), "the noded refused it (%s)",
                  res->err.text);
    else
        snprintf (why, sizeof (why), "%s", res->err.text);
    report_fallback (sd, res->outcome == REQUEST_CLOSED, why);
}

/* Send the report on sd->noded, a request on the connection we hold
 * (common/wire/request_conn.h), answered within STEPD_RELAY_TIMEOUT. -1
 * if it cannot be started. */
static int report_to_noded (struct stepd *sd)
{
    struct msg_step_complete m;
    struct request_opts opts = { .timeout = STEPD_RELAY_TIMEOUT };

    report_message (sd, &m);
    sd->report = request_conn (sd->noded, MSG_STEP_COMPLETE, &m, &opts,
                               report_noded_cb, sd);
    if (!sd->report) {
        log_warn ("STEP_COMPLETE to the noded: %s", strerror (errno));
        return -1;
    }
    sd->report_conn = sd->noded;
    return 0;
}

/* The noded did not take the report: another noded connection if one
 * came meanwhile (any, when the one tried is gone), else the controller
 * directly. */
static void report_fallback (struct stepd *sd, bool tried_gone, const char *why)
{
    struct conn *tried = sd->report_conn;

    sd->report_conn = NULL;
    if (sd->noded && (tried_gone || sd->noded != tried)) {
        log_verbose ("STEP_COMPLETE: %s; sending it to the new noded", why);
        if (report_to_noded (sd) == 0)
            return;
    }
    log_warn ("STEP_COMPLETE: %s; sending it to the controller directly", why);
    report_direct (sd);
}

void report_start (struct stepd *sd)
{
    struct msg_step_complete m;

    report_message (sd, &m);
    log_debug ("tasks' usage: %u measured, user %.3f s, system %.3f s, "
               "peak RSS %llu KB (task %u), summed %llu KB",
               m.ntasks, m.user_usec / 1e6, m.sys_usec / 1e6,
               (unsigned long long)m.max_rss_kb, m.max_rss_task,
               (unsigned long long)m.sum_rss_kb);
    if (!sd->noded)
        log_verbose ("no noded connection: telling the controller directly");
    else if (report_to_noded (sd) == 0)
        return;
    report_direct (sd);
}

bool report_done (const struct stepd *sd)
{
    return sd->reported;
}

void report_cancel (struct stepd *sd)
{
    sd->report_conn = NULL;
    request_cancel (sd->report);
    sd->report = NULL;
}
