/* serve_jobs.c - the requests of a job's life from its users and their
 * commands: submit or allocate (JOB_ALLOC), steps (STEP_CREATE,
 * STEP_COMPLETE), the end of an allocation (JOB_COMPLETE), waiting for a
 * job (JOB_WAIT), attaching again (JOB_ATTACH), cancel, hold, release,
 * requeue and update. The dispatch table and the shared answers are
 * serve.c's (serve_private.h).
 *
 * These handlers parse, authorise and answer; what a request changes in a
 * job's life is posted to jobstate.c (JS_STEP_DONE, JS_BATCH_DONE,
 * JS_EXIT, JS_COMPLETE, JS_ATTACH), which decides (which exit code wins,
 * when a batch job is over), records, commits and reacts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "acct/acct.h"
#include "job/action.h"
#include "job/jobupdate.h"
#include "job/batch.h"
#include "job/cancel.h"
#include "conf.h"
#include "ctld.h"
#include "job/job.h"
#include "job/jobstate.h"
#include "log.h"
#include "sched/sched.h"
#include "serve/serve.h"
#include "serve/serve_private.h"
#include "serve/serve_jobs.h"
#include "serve/willrun.h"
#include "job/step.h"
#include "job/steplive.h"
#include "notify/wait.h"
#include "job/submit.h"
#include "job/batch_files.h"
#include "job/job_base.h"
#include "assoc/policy.h"

/* A JOB_ALLOC with a script: a batch job, queued, and answered with its
 * id once it is durable; it belongs to no connection. */
static void serve_job_submit (struct ctld *ctx, struct conn *c,
                              const struct frame *f, struct msg_job_alloc *req)
{
    struct job *j;
    arbor_error_t err;

    if (!(j = job_create (ctx, req, f->uid, f->gid, &err))
        || batch_create (j, req, &err) < 0
        || batch_submit (ctx, j, req->array, &err) < 0) {
        int e = errno ? errno : EINVAL;
        conn_send_rc (c, f->matchtag, e, "%s", err.text);
        log_verbose ("batch job from %s (uid %u) refused: %s", conn_peer (c),
                     (unsigned)f->uid, err.text);
        job_destroy (j);
        return;
    }
    if (j->array_count)
        log_info ("job %u of %s submitted (batch, array of %u)", j->id, j->user,
                  j->array_count);
    else
        log_info ("job %u of %s submitted (batch)", j->id, j->user);
    serve_submitted (ctx, c, f, j->id, false);
}

/* The site's policy on a new job's request (policy.h): its account and
 * QOS checked and filled in. False when it was refused (answered). */
static bool serve_policy (struct ctld *ctx, struct conn *c,
                          const struct frame *f, struct msg_job_alloc *req)
{
    char *user = user_name (f->uid);
    arbor_error_t err;
    int rc = user ? policy_request (ctx, user, req, &err)
                  : errprintf (&err, "out of memory");

    if (rc < 0) {
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s", err.text);
        log_verbose ("job request from %s (uid %u) refused: %s", conn_peer (c),
                     (unsigned)f->uid, err.text);
    }
    free (user);
    return rc == 0;
}

void serve_job_alloc_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg)
{
    struct ctld *ctx = arg;
    struct msg_job_alloc *req = msg;
    struct job *j;
    arbor_error_t err;

    if (!serve_policy (ctx, c, f, req))
        return;
    if (req->test_only) {
        willrun_serve (ctx, c, f, req);
        return;
    }
    if (serve_unwritable (ctx, c, f))
        return;
    if (req->script_len > 0) {
        serve_job_submit (ctx, c, f, req);
        return;
    }
    if (req->array && *req->array) {
        conn_send_rc (c, f->matchtag, EINVAL, "--array is for batch jobs only");
        return;
    }
    if (!(j = job_create (ctx, msg, f->uid, f->gid, &err))) {
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s", err.text);
        log_verbose ("job request from %s (uid %u) refused: %s", conn_peer (c),
                     (unsigned)f->uid, err.text);
        return;
    }
    j->owner = c;
    j->owner_tag = f->matchtag;
    if (job_submit (ctx, j, &err) < 0) {
        conn_send_rc (c, f->matchtag, errno, "%s", err.text);
        log_verbose ("job request from %s (uid %u) refused: %s", conn_peer (c),
                     (unsigned)f->uid, err.text);
        job_destroy (j);
        return;
    }
    if (j->state == JOB_PENDING) /* told once its record is written */
        serve_submitted (ctx, c, f, j->id, true);
}

/* The step's I/O key goes to its requester alone: sealed under the
 * requester's session (a TCP conn's frames are MAC'd, not hidden, and
 * whoever reads the key could pose as the step's launcher), as is over
 * the unix socket. */
static int serve_seal_io_key (struct conn *c, struct msg_step_created *out)
{
    unsigned char *box;
    size_t len;
    int rc =
        conn_seal_secret (c, out->io_key, strlen (out->io_key), &box, &len);

    if (rc <= 0)
        return rc;
    out->io_key_sealed = (char *)box;
    out->io_key_sealed_len = (uint32_t)len;
    memset (out->io_key, 0, strlen (out->io_key)); /* "" from here on */
    return 0;
}

void serve_step_create_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg)
{
    struct ctld *ctx = arg;
    struct msg_step_create *m = msg;
    struct msg_step_created out;
    arbor_error_t err;
    struct job *j;

    if (serve_unwritable (ctx, c, f)
        || !(j = serve_owned_job (ctx, c, f, m->job_id)))
        return;
    if (j->state != JOB_RUNNING || j->suspended) {
        conn_send_rc (c, f->matchtag, EINVAL, "job %u is %s", j->id,
                      job_state_shown (j));
        return;
    }
    if (step_create (ctx, j, m, f->uid, f->gid, &out, &err) < 0) {
        int e = errno ? errno : EINVAL;
        conn_send_rc (c, f->matchtag, e, "%s", err.text);
        if (e != EBUSY)
            log_verbose ("step of job %u refused: %s", j->id, err.text);
        return;
    }
    log_info ("step %u.%u created on %s (%u tasks)", out.job_id, out.step_id,
              out.nodelist, step_find (j, out.step_id)->ntasks);
    if (serve_seal_io_key (c, &out) < 0
        || conn_send (c, MSG_STEP_CREATED, f->matchtag, FRAME_F_RESPONSE, &out)
               < 0) {
        conn_send_rc (c, f->matchtag, errno, "cannot answer: %s",
                      strerror (errno));
        (void)step_complete (j, step_find (j, out.step_id), NULL, ctx);
        log_info ("step %u.%u dropped: its requester was not answered",
                  out.job_id, out.step_id);
    }
    proto_clear (MSG_STEP_CREATED, &out);
}

void serve_step_complete_cb (struct conn *c, const struct frame *f, void *msg,
                             void *arg)
{
    struct ctld *ctx = arg;
    struct msg_step_complete *m = msg;
    const char *node = serve_nz (m->node);
    struct jobstate_arg ev = { .step_id = m->step_id,
                               .node = node,
                               .rc = m->rc,
                               .signal = m->signal,
                               .oom = m->oom };
    struct job *j;
    struct step *s;
    arbor_error_t err;

    if (node[0] && !serve_is_priv (ctx, f->uid)) {
        char text[160];
        snprintf (text, sizeof (text),
                  "only %s may report a node's step "
                  "completion",
                  ctx->conf->arbor_user);
        serve_denied (c, f, text);
        return;
    }
    if (!(j = serve_owned_job (ctx, c, f, m->job_id)))
        return;
    /* A node whose share of a job long ended is over has run nothing of
     * it since: a report from there is of a step that ran outside the job
     * (a replayed launch), and is not recorded (steplive.h). */
    if (node[0] && step_report_allowed (ctx, j, node, &err) < 0) {
        serve_denied (c, f, err.text);
        return;
    }
    acct_node_report (ctx, j, m); /* the extern step's comes after the job */
    if (m->step_id == STEP_ID_BATCH && !node[0]) {
        conn_send_rc (c, f->matchtag, EPERM,
                      "the batch step is reported by its node");
        return;
    }
    /* which exit code counts is the job life's (jobstate.c) */
    (void)jobstate_post (ctx, j, JS_STEP_DONE, &ev);
    if (!(s = step_find (j, m->step_id))) {
        if (!job_is_active (j))
            conn_send_rc (c, f->matchtag, 0, "job %u already %s", j->id,
                          job_state_shown (j));
        else if (m->step_id < j->next_step_id
                 || m->step_id >= STEP_ID_INTERACTIVE)
            conn_send_rc (c, f->matchtag, 0, "step %u.%u already complete",
                          j->id, m->step_id);
        else
            conn_send_rc (c, f->matchtag, ENOENT, "step %u.%u not found", j->id,
                          m->step_id);
        return;
    }
    if (!node[0] || s->id == STEP_ID_BATCH)
        step_note_end (s, m); /* its launcher's (or script's) word */
    if (step_complete (j, s, node, ctx) < 0) {
        conn_send_rc (c, f->matchtag, ENOENT, "node %s is not in step %u.%u",
                      node, j->id, m->step_id);
        return;
    }
    log_verbose ("step %u.%u complete%s%s (rc %d%s)", j->id, m->step_id,
                 node[0] ? " on " : "", node, m->rc,
                 m->oom ? ", out of memory" : "");
    conn_send_rc (c, f->matchtag, 0, "%s", "");
    if (m->step_id == STEP_ID_BATCH && j->batch) /* the script is over */
        (void)jobstate_post (ctx, j, JS_BATCH_DONE, &ev);
}

/* Answer a job change (JOB_ACTION, JOB_UPDATE) that returned 'rc':
 * a change made is answered once it is recorded. */
static void serve_change_answer (struct ctld *ctx, struct conn *c,
                                 const struct frame *f, int rc,
                                 const arbor_error_t *err)
{
    int e = errno ? errno : EINVAL;

    if (rc == 0) {
        serve_submitted (ctx, c, f, 0, false);
        return;
    }
    if (e == EPERM)
        log_security ("%s from %s (uid %u) refused: %s",
                      proto_msg_name (f->type), conn_peer (c), (unsigned)f->uid,
                      err->text);
    conn_send_rc (c, f->matchtag, e, "%s", err->text);
}

void serve_job_action_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg)
{
    arbor_error_t err;
    int rc;

    if (serve_unwritable (arg, c, f))
        return;
    rc = job_action (arg, msg, f->uid, &err);
    serve_change_answer (arg, c, f, rc, &err);
}

void serve_job_update_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg)
{
    arbor_error_t err;
    int rc;

    if (serve_unwritable (arg, c, f))
        return;
    rc = job_update (arg, msg, f->uid, &err);
    serve_change_answer (arg, c, f, rc, &err);
}

void serve_job_wait_cb (struct conn *c, const struct frame *f, void *msg,
                        void *arg)
{
    struct ctld *ctx = arg;
    struct msg_job_wait *m = msg;
    struct job *j;

    if (!(j = serve_owned_job (ctx, c, f, m->job_id)))
        return;
    if (wait_add (ctx, c, f->matchtag, j) < 0)
        conn_send_rc (c, f->matchtag, errno,
                      errno == EAGAIN ? "too many requests wait for jobs; "
                                        "try again later"
                                      : "out of memory");
}

void serve_job_complete_cb (struct conn *c, const struct frame *f, void *msg,
                            void *arg)
{
    struct ctld *ctx = arg;
    struct msg_job_complete *m = msg;
    struct jobstate_arg ev = { .rc = m->rc, .signal = m->signal };
    struct job *j;

    if (!(j = serve_owned_job (ctx, c, f, m->job_id)))
        return;
    (void)jobstate_post (ctx, j, JS_EXIT, &ev); /* also a late one */
    if (!job_is_active (j)) {
        conn_send_rc (c, f->matchtag, 0, "job %u already %s", j->id,
                      job_state_shown (j));
        return;
    }
    if (j->owner == c)
        j->owner = NULL; /* it is waiting for this answer only */
    /* Answered first: the requester may exit while the job's end goes to
     * its nodes (nothing below can fail it). */
    conn_send_rc (c, f->matchtag, 0, "%s", "");
    (void)jobstate_post (ctx, j, JS_COMPLETE, &ev);
}

/* The requester of an allocation restored by a restarted controller
 * comes back (persist.h): this connection is its owner from now on. */
void serve_job_attach_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg)
{
    struct ctld *ctx = arg;
    struct msg_job_attach *m = msg;
    struct job *j;

    if (!(j = serve_owned_job (ctx, c, f, m->job_id)))
        return;
    if (!job_is_active (j) || j->batch
        || (j->state != JOB_RUNNING && j->state != JOB_PENDING)) {
        conn_send_rc (c, f->matchtag, EINVAL,
                      "job %u is not a pending or running allocation (%s)",
                      j->id, job_state_shown (j));
        return;
    }
    if (j->owner) {
        conn_send_rc (c, f->matchtag, EBUSY,
                      "job %u's requester is connected already", j->id);
        return;
    }
    j->owner = c;
    j->owner_tag = f->matchtag;
    log_info ("job %u: its requester is back (%s)", j->id, conn_peer (c));
    conn_send_rc (c, f->matchtag, 0, "%s", "");
    (void)jobstate_post (ctx, j, JS_ATTACH, NULL);
}

void serve_job_cancel_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg)
{
    struct ctld *ctx = arg;
    arbor_error_t err;

    if (serve_unwritable (ctx, c, f))
        return;
    if (job_cancel (ctx, msg, f->uid, &err) < 0) {
        int e = errno ? errno : EINVAL;
        if (e == EPERM)
            log_security ("cancel from %s (uid %u) refused: %s", conn_peer (c),
                          (unsigned)f->uid, err.text);
        else
            log_verbose ("cancel from %s (uid %u): %s", conn_peer (c),
                         (unsigned)f->uid, err.text);
        conn_send_rc (c, f->matchtag, e, "%s", err.text);
        return;
    }
    serve_submitted (ctx, c, f, 0, false); /* once the cancel is recorded */
}
