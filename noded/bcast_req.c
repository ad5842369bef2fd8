/* bcast_req.c - the record, checks and answers BCAST_BLOCK and
 * GATHER_READ share (bcast_req.h).
 *
 * The check is bcast_cred_check's; a user's request whose credential
 * predates what this node knows of ended jobs (a noded restarted since
 * it was issued) is confirmed by the controller first (BCAST_LIVE), as
 * a launch's is (launch.c). A forward from a parent noded is not: the
 * parent did that already.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bcast.h"
#include "bcast_cred.h"
#include "bcast_req.h"
#include "credkey_held.h"
#include "fanout.h"
#include "log.h"
#include "noded_base.h"
#include "request.h"
#include "revoke.h"

#define BCAST_LIVE_TIMEOUT 10.0 /* s for the controller's word */

struct bcast_req *bcast_req_create (struct noded *nd, struct conn *c,
                                    const struct frame *f)
{
    struct bcast_req *r = calloc (1, sizeof (*r));

    if (!r) {
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
        return NULL;
    }
    r->nd = nd;
    r->parent = c;
    r->matchtag = f->matchtag;
    r->sender = f->uid;
    r->next = nd->bcasts;
    nd->bcasts = r;
    return r;
}

void bcast_req_free (struct bcast_req *r)
{
    struct bcast_req **pp;

    if (!r)
        return;
    for (pp = &r->nd->bcasts; *pp && *pp != r; pp = &(*pp)->next)
        ;
    if (*pp)
        *pp = r->next;
    request_cancel (r->live);
    bcast_io_destroy (r->io);
    fanout_destroy (r->fan);
    ev_timer_stop (r->nd->loop, &r->deadline_w);
    if (r->have_claims)
        proto_clear (MSG_CRED_CLAIMS, &r->claims);
    proto_clear (MSG_BCAST_BLOCK, &r->block);
    proto_clear (MSG_GATHER_READ, &r->read);
    for (uint32_t i = 0; i < r->nfailed; i++) {
        free (r->failed_nodes[i]);
        free (r->failed_errors[i]);
    }
    free (r->failed_nodes);
    free (r->failed_errors);
    free (r->text);
    free (r);
}

void bcast_req_refuse (struct bcast_req *r, int errnum, const char *why)
{
    log_info ("%s of job %u from uid %u refused: %s",
              r->block.dest ? "file broadcast" : "file gather", r->job_id,
              (unsigned)r->sender, why);
    if (r->parent)
        conn_send_rc (r->parent, r->matchtag, errnum ? errnum : EIO, "%s", why);
    bcast_req_free (r);
}

void bcast_req_ident (const struct bcast_req *r, struct bcast_ident *id)
{
    id->uid = (uid_t)r->claims.uid;
    id->gid = (gid_t)r->claims.gid;
    id->gids = r->claims.gids;
    id->ngids = r->claims.gids_count;
}

static void bcast_live_cb (const struct request_result *res, void *arg)
{
    struct bcast_req *r = arg;
    char why[300];

    r->live = NULL; /* freed by request.c after this returns */
    if (res->errnum == 0) {
        r->run (r);
        return;
    }
    if (res->outcome == REQUEST_REFUSED) {
        if (res->errnum == EPERM || res->errnum == ENOENT)
            revoke_add (r->nd->revoked, r->claims.job_id, r->claims.restarts,
                        STEP_ID_ALL, (time_t)r->claims.expires);
        snprintf (why, sizeof (why), "the controller says: %s", res->err.text);
    } else
        snprintf (why, sizeof (why),
                  "cannot ask the controller whether job %u runs here: %s",
                  r->job_id, res->err.text);
    bcast_req_refuse (r, EPERM, why);
}

static void bcast_ask_live (struct bcast_req *r)
{
    struct noded *nd = r->nd;
    struct msg_bcast_live m = { .job_id = r->claims.job_id,
                                .restarts = r->claims.restarts,
                                .node = (char *)nd->name };
    struct request_opts opts;

    noded_ctld_opts (nd, BCAST_LIVE_TIMEOUT, &opts);
    r->live =
        request_tcp (nd->loop, nd->conf->control_addr, nd->conf->ctld_port,
                     MSG_BCAST_LIVE, &m, &opts, bcast_live_cb, r);
    if (!r->live)
        bcast_req_refuse (r, EIO,
                          "cannot ask the controller whether the "
                          "job runs here");
}

void bcast_req_open (struct bcast_req *r)
{
    struct noded *nd = r->nd;
    bool forwarded = r->sender == 0 || r->sender == nd->arbor_uid
                     || r->sender == nd->noded_uid;
    struct bcast_policy p = { .key = credkey_held (nd),
                              .cluster = nd->conf->cluster_name,
                              .self = nd->name,
                              .arbor_uid = nd->arbor_uid,
                              .noded_uid = nd->noded_uid,
                              .revoked = nd->revoked,
                              .now = time (NULL) };
    arbor_error_t err;

    if (bcast_cred_check (&p, r->cred, r->job_id, r->sender, &r->claims, &err)
        < 0) {
        bcast_req_refuse (r, errno, err.text);
        return;
    }
    r->have_claims = true;
    /* A forward comes from a parent that settled any doubt already. */
    if (!forwarded
        && (!nd->revoked
            || revoke_unsure (nd->revoked, (time_t)r->claims.issued,
                              (time_t)r->claims.expires)))
        bcast_ask_live (r);
    else
        r->run (r);
}

void bcast_conn_closed (struct noded *nd, struct conn *c)
{
    for (struct bcast_req *r = nd->bcasts; r; r = r->next)
        if (r->parent == c)
            r->parent = NULL;
}

void bcast_destroy_all (struct noded *nd)
{
    while (nd->bcasts)
        bcast_req_free (nd->bcasts);
}
