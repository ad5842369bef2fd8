/* bcast.c - the controller's part in sbcast and sgather (bcast.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/bcast.h"
#include "conf.h"
#include "cred.h"
#include "credkey.h"
#include "ctld.h"
#include "hostlist.h"
#include "ident.h"
#include "job/job.h"
#include "log.h"
#include "nodes/node.h"
#include "job/step.h"
#include "job/jobs.h"

/* The nodes (job node indexes) the credential names: the step's, or the
 * job's. */
static int bcast_nodes (const struct ctld *ctx, const struct job *j,
                        uint32_t step_id, struct msg_bcast_cred_reply *out,
                        arbor_error_t *err)
{
    const struct step *s = NULL;
    size_t n = j->nnodes;
    struct hostlist *hl;

    if (step_id != STEP_ID_ALL) {
        if (!(s = step_find (j, step_id)) || s->ended) {
            errno = ENOENT;
            return errprintf (err, "step %u.%u is not running", j->id, step_id);
        }
        n = s->nnodes;
    }
    if (!(hl = hostlist_create (NULL, NULL))
        || !(out->addrs = calloc (n + 1, sizeof (char *))))
        goto nomem;
    for (size_t i = 0; i < n; i++) {
        const struct node *nd =
            &ctx->nodes[j->nodes[s ? s->jnodes[i] : i].node];
        if (hostlist_append (hl, nd->name) < 0
            || !(out->addrs[i] = strdup (nd->addr)))
            goto nomem;
        out->addrs_count = (uint32_t)i + 1;
    }
    if (!(out->nodelist = hostlist_ranged (hl)))
        goto nomem;
    hostlist_destroy (hl);
    return 0;
nomem:
    hostlist_destroy (hl);
    errno = ENOMEM;
    return errprintf (err, "out of memory");
}

int bcast_cred_make (const struct ctld *ctx, const struct job *j,
                     uint32_t step_id, struct msg_bcast_cred_reply *out,
                     arbor_error_t *err)
{
    time_t now = time (NULL);
    const struct ident *id;
    struct msg_cred_claims cl = {
        .job_id = j->id,
        .step_id = STEP_ID_ALL, /* with no tasks: launches nothing */
        .uid = j->uid,
        .gid = j->gid,
        .io_key = "",
        .expires = (uint64_t)now + ctx->conf->cred_expire,
        .cluster = ctx->conf->cluster_name,
        .restarts = j->restarts,
        .issued = (uint64_t)now,
    };

    memset (out, 0, sizeof (*out));
    if (j->state != JOB_RUNNING || j->completing) {
        errno = EINVAL;
        return errprintf (err, "job %u is %s", j->id, job_state_shown (j));
    }
    if (bcast_nodes (ctx, j, step_id, out, err) < 0)
        return -1;
    if (!(id = ident_get (ctx->idents, j->uid, j->gid, ev_now (ctx->loop)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    cl.nodelist = out->nodelist;
    cl.user = id->user;
    cl.home = id->home;
    cl.gids = id->gids;
    cl.gids_count = id->ngids;
    if (cred_seal (credkey_key (ctx->credkey), &cl, &out->cred, err) < 0)
        return -1;
    out->job_id = j->id;
    out->expires = cl.expires;
    out->noded_port = ctx->conf->noded_port;
    out->tree_width = ctx->conf->tree_width;
    return 0;
}

void bcast_cred_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                        void *arg)
{
    struct ctld *ctx = arg;
    struct msg_bcast_cred *m = msg;
    struct msg_bcast_cred_reply out;
    struct job *j = job_find (ctx, m->job_id);
    arbor_error_t err;

    if (!j) {
        conn_send_rc (c, f->matchtag, ENOENT, "Invalid job id %u", m->job_id);
        return;
    }
    if (!job_access (ctx, j, f->uid)) {
        log_security ("BCAST_CRED from %s (uid %u) refused: job %u is not "
                      "theirs",
                      conn_peer (c), (unsigned)f->uid, j->id);
        conn_send_rc (c, f->matchtag, EPERM,
                      "Access/permission denied for job %u", j->id);
        return;
    }
    if (bcast_cred_make (ctx, j, m->step_id, &out, &err) < 0) {
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s", err.text);
        proto_clear (MSG_BCAST_CRED_REPLY, &out);
        return;
    }
    log_verbose ("file broadcast credential for job %u (%s) to uid %u", j->id,
                 out.nodelist, (unsigned)f->uid);
    if (conn_send (c, MSG_BCAST_CRED_REPLY, f->matchtag, FRAME_F_RESPONSE, &out)
        < 0)
        conn_send_rc (c, f->matchtag, errno, "cannot answer: %s",
                      strerror (errno));
    proto_clear (MSG_BCAST_CRED_REPLY, &out);
}

/* Is node 'name' one of j's? */
static bool bcast_job_has_node (const struct ctld *ctx, const struct job *j,
                                const char *name)
{
    for (size_t i = 0; i < j->nnodes; i++)
        if (!strcmp (ctx->nodes[j->nodes[i].node].name, name))
            return true;
    return false;
}

void bcast_live_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                        void *arg)
{
    struct ctld *ctx = arg;
    struct msg_bcast_live *m = msg;
    const char *node = m->node ? m->node : "";
    struct job *j;

    if (f->uid != 0 && f->uid != ctx->priv_uid && f->uid != ctx->noded_uid) {
        log_security ("BCAST_LIVE from %s (uid %u) refused: not a node daemon",
                      conn_peer (c), (unsigned)f->uid);
        conn_send_rc (c, f->matchtag, EPERM,
                      "only the node daemons may ask whether a job is live");
        return;
    }
    if (!(j = job_find (ctx, m->job_id)))
        conn_send_rc (c, f->matchtag, ENOENT, "job %u is unknown", m->job_id);
    else if (j->state != JOB_RUNNING || j->completing)
        conn_send_rc (c, f->matchtag, EPERM, "job %u is %s", j->id,
                      job_state_shown (j));
    else if (m->restarts != j->restarts)
        conn_send_rc (c, f->matchtag, EPERM,
                      "the credential is of run %u of job %u, which is at run "
                      "%u",
                      m->restarts, j->id, j->restarts);
    else if (!bcast_job_has_node (ctx, j, node))
        conn_send_rc (c, f->matchtag, EPERM, "%.64s is not a node of job %u",
                      node, j->id);
    else
        conn_send_rc (c, f->matchtag, 0, "%s", "");
}
