/* steplive.c - the controller's answer to "is this step live?".
 *
 * Asked by a noded before it launches a step whose credential predates
 * what it remembers of revocations (noded/revoke.h: revoke_unsure), and
 * applied to the nodes' step reports. The answer comes from the job and
 * step tables alone, on the loop: no commit, no other daemon.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "conf.h"
#include "ctld.h"
#include "job/job.h"
#include "log.h"
#include "nodes/node.h"
#include "job/step.h"
#include "job/steplive.h"
#include "job/jobs.h"

/* The index of node 'name' in step s, or -1. */
static long step_node_index (const struct ctld *ctx, const struct job *j,
                             const struct step *s, const char *name)
{
    for (size_t i = 0; i < s->nnodes; i++)
        if (!strcmp (ctx->nodes[j->nodes[s->jnodes[i]].node].name, name))
            return (long)i;
    return -1;
}

int step_live (const struct ctld *ctx, const struct msg_step_live *m,
               arbor_error_t *err)
{
    const char *node = m->node ? m->node : "";
    const struct job *j = job_find (ctx, m->job_id);
    const struct step *s;
    long i;

    if (!j) {
        errno = ENOENT;
        return errprintf (err, "job %u is unknown", m->job_id);
    }
    errno = EPERM;
    if (j->state != JOB_RUNNING || j->completing)
        return errprintf (err, "job %u is %s", j->id, job_state_shown (j));
    if (m->restarts != j->restarts)
        return errprintf (err,
                          "the credential is of run %u of job %u, "
                          "which is at run %u",
                          m->restarts, j->id, j->restarts);
    if (!(s = step_find (j, m->step_id)) || s->ended)
        return errprintf (err, "step %u.%u is not running", j->id, m->step_id);
    if ((i = step_node_index (ctx, j, s, node)) < 0)
        return errprintf (err, "%.64s is not a node of step %u.%u", node, j->id,
                          m->step_id);
    if (s->done[i])
        return errprintf (err, "step %u.%u has ended on %s", j->id, m->step_id,
                          node);
    return 0;
}

/* Seconds after a job's end within which its nodes' reports may still
 * come: its stepds end within KillWait + UnkillableStepTimeout of it,
 * and a noded relays a stepd's report for STEP_REPORT_RELAY s more
 * (noded/stepd_relay.c: 12 tries 5 s apart), even after it sent the
 * job's EPILOG_COMPLETE (the two travel apart). */
#define STEP_REPORT_RELAY 60
#define STEP_REPORT_MARGIN 30

static time_t step_report_deadline (const struct ctld *ctx, const struct job *j)
{
    return j->end_time + (time_t)ctx->conf->kill_wait
           + (time_t)ctx->conf->unkillable_step_timeout + STEP_REPORT_RELAY
           + STEP_REPORT_MARGIN;
}

int step_report_allowed (const struct ctld *ctx, const struct job *j,
                         const char *node, arbor_error_t *err)
{
    if (job_is_active (j) || time (NULL) <= step_report_deadline (ctx, j))
        return 0;
    for (size_t k = 0; j->completing && k < j->nnodes; k++) {
        if (!strcmp (ctx->nodes[j->nodes[k].node].name, node))
            if (!j->nodes[k].released)
                return 0; /* its stepds are still being ended there */
    }
    errno = EPERM;
    return errprintf (err,
                      "job %u ended at %lld and %.64s holds nothing of it: "
                      "no step of it can have been running there since",
                      j->id, (long long)j->end_time, node);
}

void steplive_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                      void *arg)
{
    struct ctld *ctx = arg;
    struct msg_step_live *m = msg;
    arbor_error_t err;

    if (f->uid != 0 && f->uid != ctx->priv_uid && f->uid != ctx->noded_uid) {
        log_security ("STEP_LIVE from %s (uid %u) refused: not a node daemon",
                      conn_peer (c), (unsigned)f->uid);
        conn_send_rc (c, f->matchtag, EPERM,
                      "only the node daemons may ask whether a step is live");
        return;
    }
    if (step_live (ctx, m, &err) < 0) {
        int e = errno;
        log_info ("step %u.%u is not live on %.64s: %s", m->job_id, m->step_id,
                  m->node ? m->node : "", err.text);
        conn_send_rc (c, f->matchtag, e, "%s", err.text);
        return;
    }
    log_debug ("step %u.%u is live on %s", m->job_id, m->step_id, m->node);
    conn_send_rc (c, f->matchtag, 0, "%s", "");
}
