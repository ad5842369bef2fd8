/* launch.c - the LAUNCH handler: verify, forward, start, fan in.
 *
 * A launch goes through a flat chain of stages (STYLE rule 8):
 *     launch_verify   credential (munge, signer, cluster, node, expiry),
 *                     then launch_check (sender, ids, slice, revocation)
 *     fanout_start    LAUNCH to the head of each chunk of slice[1..]
 *     stepd_spawn     this node's own stepd
 * and then waits, on the loop, for its stepd's STEPD_LAUNCHED and every
 * chunk's LAUNCH_REPLY, with one timer for its own deadline (budget minus
 * margin). It answers its parent exactly once; errnum is 0 only if no node
 * of the slice failed, else the first error, with every failed node and
 * its reason listed. A refused launch starts nothing and forwards nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cred.h"
#include "fanout.h"
#include "hostlist.h"
#include "launch.h"
#include "log.h"
#include "noded.h"
#include "revoke.h"
#include "stepd.h"

struct launch {
    struct noded *nd;
    struct launch *next;
    struct conn *parent;         /* NULL once it closed */
    uint32_t matchtag;
    struct msg_launch req;       /* owned */
    struct msg_cred_claims claims;
    bool have_claims;
    double start;                /* ev time of receipt */
    uint32_t budget, margin;     /* ms */
    ev_timer deadline_w;
    struct fanout *fan;
    struct stepd *stepd;         /* while its STEPD_LAUNCHED is awaited */
    bool starting;               /* inside launch_handle: hold the reply */
    /* what failed, for the reply */
    int errnum;
    char *text;                  /* first error, "node7: ..." */
    char **failed_nodes;
    char **failed_errors;
    uint32_t nfailed;
    uint32_t cap;
};

/* ---- the checks ------------------------------------------------------- */

static int check_slice (const struct msg_launch *req,
                        const struct hostlist *cred_nodes, const char *self,
                        arbor_error_t *err)
{
    size_t n = hostlist_count (cred_nodes);
    bool *seen;

    if (req->slice_count == 0 || strcmp (req->slice[0], self) != 0) {
        errno = EINVAL;
        return errprintf (err, "slice does not start with this node");
    }
    if (!(seen = calloc (n ? n : 1, sizeof (*seen)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    for (uint32_t i = 0; i < req->slice_count; i++) {
        int k = hostlist_find (cred_nodes, req->slice[i]);
        if (k < 0 || seen[k]) {
            free (seen);
            errno = k < 0 ? EPERM : EINVAL;
            return errprintf (err, k < 0 ? "slice node %s is not in the "
                                           "credential"
                                         : "slice lists %s twice",
                              req->slice[i]);
        }
        seen[k] = true;
    }
    free (seen);
    return 0;
}

/* The step node list must be the credential's, node for node, and the
 * per-node lists must have one entry per node. */
static int check_step_nodes (const struct msg_launch *req,
                             const struct hostlist *cred_nodes,
                             const char *self, uint32_t *node_id,
                             arbor_error_t *err)
{
    struct hostlist *step = hostlist_create (req->step_nodelist, NULL);
    size_t n = hostlist_count (cred_nodes);
    int rc = -1;

    if (!step) {
        errno = EINVAL;
        return errprintf (err, "bad step node list '%s'",
                          req->step_nodelist ? req->step_nodelist : "");
    }
    if (hostlist_count (step) != n)
        goto mismatch;
    for (size_t i = 0; i < n; i++) {
        if (strcmp (hostlist_nth (step, i), hostlist_nth (cred_nodes, i)))
            goto mismatch;
    }
    if (req->tasks_count != n || req->cpus_count != n) {
        errno = EINVAL;
        errprintf (err, "%u task counts and %u cpu counts for %zu nodes",
                   req->tasks_count, req->cpus_count, n);
        goto out;
    }
    *node_id = (uint32_t)hostlist_find (step, self);
    rc = 0;
    goto out;
mismatch:
    errno = EPERM;
    errprintf (err, "step node list %s is not the credential's", 
               req->step_nodelist);
out:
    hostlist_destroy (step);
    return rc;
}

int launch_check (const struct launch_policy *p, const struct msg_launch *req,
                  uid_t sender, const struct msg_cred_claims *claims,
                  uint32_t *node_id, arbor_error_t *err)
{
    struct hostlist *cred_nodes;
    int rc = -1;

    if (sender != 0 && sender != p->arbor_uid && sender != claims->uid) {
        errno = EPERM;
        return errprintf (err, "uid %u may not launch a step of uid %u",
                          (unsigned)sender, (unsigned)claims->uid);
    }
    if (req->job_id != claims->job_id || req->step_id != claims->step_id) {
        errno = EPERM;
        return errprintf (err, "launch of %u.%u with a credential for "
                          "%u.%u", req->job_id, req->step_id,
                          claims->job_id, claims->step_id);
    }
    if (!(cred_nodes = hostlist_create (claims->nodelist, NULL))
        || hostlist_find (cred_nodes, p->self) < 0) {
        hostlist_destroy (cred_nodes);
        errno = EPERM;
        return errprintf (err, "credential not valid on this node");
    }
    if (check_slice (req, cred_nodes, p->self, err) < 0
        || check_step_nodes (req, cred_nodes, p->self, node_id, err) < 0)
        goto out;
    if (req->argv_count == 0) {
        errno = EINVAL;
        errprintf (err, "no command to run");
        goto out;
    }
    if (p->revoked && revoke_check (p->revoked, claims->job_id,
                                    claims->step_id, p->now)) {
        errno = EPERM;
        errprintf (err, "step %u.%u has been revoked", claims->job_id,
                   claims->step_id);
        goto out;
    }
    rc = 0;
out:
    hostlist_destroy (cred_nodes);
    return rc;
}

/* ---- fan-in bookkeeping ----------------------------------------------- */

static void launch_set_error (struct launch *l, int errnum, const char *text)
{
    if (l->errnum != 0)
        return;
    l->errnum = errnum ? errnum : EIO;
    free (l->text);
    l->text = strdup (text);
}

/* Record that 'node' will not run the step, and why. */
static void launch_add_failed (struct launch *l, const char *node,
                               int errnum, const char *error)
{
    char *text;

    if (l->errnum == 0 && asprintf (&text, "%s: %s", node, error) >= 0) {
        launch_set_error (l, errnum, text);
        free (text);
    }
    l->errnum = l->errnum ? l->errnum : (errnum ? errnum : EIO);
    if (l->nfailed == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 8;
        char **n = realloc (l->failed_nodes, cap * sizeof (*n));
        if (n)
            l->failed_nodes = n;
        char **e = realloc (l->failed_errors, cap * sizeof (*e));
        if (e)
            l->failed_errors = e;
        if (!n || !e)
            return; /* errnum is set: the reply still says it failed */
        l->cap = cap;
    }
    l->failed_nodes[l->nfailed] = strdup (node);
    l->failed_errors[l->nfailed] = strdup (error);
    if (!l->failed_nodes[l->nfailed] || !l->failed_errors[l->nfailed]) {
        free (l->failed_nodes[l->nfailed]);
        free (l->failed_errors[l->nfailed]);
        return;
    }
    l->nfailed++;
}

static void launch_free (struct launch *l)
{
    struct noded *nd = l->nd;

    for (struct launch **pp = &nd->launches; *pp; pp = &(*pp)->next) {
        if (*pp == l) {
            *pp = l->next;
            break;
        }
    }
    ev_timer_stop (nd->loop, &l->deadline_w);
    fanout_destroy (l->fan);
    stepd_detach (l->stepd);
    proto_clear (MSG_LAUNCH, &l->req);
    if (l->have_claims)
        proto_clear (MSG_CRED_CLAIMS, &l->claims);
    for (uint32_t i = 0; i < l->nfailed; i++) {
        free (l->failed_nodes[i]);
        free (l->failed_errors[i]);
    }
    free (l->failed_nodes);
    free (l->failed_errors);
    free (l->text);
    free (l);
}

static void launch_log_result (struct launch *l)
{
    double ms = (ev_now (l->nd->loop) - l->start) * 1000.0;

    if (l->errnum == 0)
        log_debug ("launch %u.%u: %u node(s) started in %.0f ms",
                   l->req.job_id, l->req.step_id, l->req.slice_count, ms);
    else
        log_info ("launch %u.%u failed on %u of %u nodes in %.0f ms: %s",
                  l->req.job_id, l->req.step_id, l->nfailed,
                  l->req.slice_count, ms, l->text ? l->text : "error");
}

/* Answer the parent (if it is still there) and free the launch. */
static void launch_finish (struct launch *l)
{
    struct msg_launch_reply r = {
        .errnum = l->errnum,
        .text = l->errnum ? l->text : NULL,
        .failed_nodes = l->failed_nodes,
        .failed_nodes_count = l->nfailed,
        .failed_errors = l->failed_errors,
        .failed_errors_count = l->nfailed,
    };

    launch_log_result (l);
    if (l->parent && conn_send (l->parent, MSG_LAUNCH_REPLY, l->matchtag,
                                FRAME_F_RESPONSE, &r) < 0)
        log_err ("launch %u.%u: cannot answer %s: %s", l->req.job_id,
                 l->req.step_id, conn_peer (l->parent), strerror (errno));
    launch_free (l);
}

static void launch_maybe_finish (struct launch *l)
{
    if (!l->starting && !l->stepd && (!l->fan || fanout_finished (l->fan)))
        launch_finish (l);
}

/* ---- callbacks from fanout and stepd ------------------------------------ */

static void launch_fan_failed_cb (const char *node, int errnum,
                                  const char *error, void *arg)
{
    launch_add_failed (arg, node, errnum, error);
}

static void launch_fan_reply_cb (const struct msg_launch_reply *r, void *arg)
{
    struct launch *l = arg;
    uint32_t n = r->failed_nodes_count;

    if (r->errnum != 0 && r->text)
        launch_set_error (l, r->errnum, r->text);
    for (uint32_t i = 0; i < n; i++)
        launch_add_failed (l, r->failed_nodes[i], r->errnum ? r->errnum : EIO,
                           i < r->failed_errors_count && r->failed_errors[i]
                               ? r->failed_errors[i]
                               : "launch failed");
}

static void launch_fan_done_cb (void *arg)
{
    launch_maybe_finish (arg);
}

static const struct fanout_ops launch_fan_ops = {
    .failed = launch_fan_failed_cb,
    .reply = launch_fan_reply_cb,
    .done = launch_fan_done_cb,
};

static void launch_stepd_cb (int errnum, const char *error, void *arg)
{
    struct launch *l = arg;

    l->stepd = NULL;
    if (errnum != 0)
        launch_add_failed (l, l->nd->name, errnum, error);
    launch_maybe_finish (l);
}

/* Our own deadline: answer with what we have. */
static void launch_deadline_cb (struct ev_loop *loop, ev_timer *w,
                                int revents)
{
    struct launch *l = w->data;
    char text[80];

    if (l->stepd) {
        snprintf (text, sizeof (text), "stepd did not start within %.0f ms",
                  (ev_now (loop) - l->start) * 1000.0);
        stepd_detach (l->stepd);
        l->stepd = NULL;
        launch_add_failed (l, l->nd->name, ETIMEDOUT, text);
    }
    if (l->fan)
        fanout_expire (l->fan);
    launch_finish (l);
}

/* ---- the handler --------------------------------------------------------- */

/* Refuse: nothing was started; every node of the slice is reported. */
static void launch_refuse (struct launch *l, int errnum, const char *why)
{
    char other[200];

    log_info ("launch %u.%u from %s refused: %s", l->req.job_id,
              l->req.step_id, l->parent ? conn_peer (l->parent) : "?", why);
    launch_add_failed (l, l->nd->name, errnum, why);
    snprintf (other, sizeof (other), "not launched: %s refused it",
              l->nd->name);
    for (uint32_t i = 1; i < l->req.slice_count; i++) {
        if (strcmp (l->req.slice[i], l->nd->name) != 0)
            launch_add_failed (l, l->req.slice[i], errnum, other);
    }
    launch_finish (l);
}

static int launch_verify (struct launch *l, uid_t sender, uint32_t *node_id,
                          char *why, size_t len)
{
    struct noded *nd = l->nd;
    struct launch_policy p = {
        .self = nd->name,
        .arbor_uid = nd->arbor_uid,
        .revoked = nd->revoked,
        .now = time (NULL),
    };
    arbor_error_t err;

    if (cred_verify (nd->auth, l->req.cred ? l->req.cred : "", nd->arbor_uid,
                     nd->conf->cluster_name, nd->name, p.now, &l->claims,
                     &err) < 0) {
        snprintf (why, len, "credential: %s", err.text);
        return errno == EPROTO ? EINVAL : EPERM;
    }
    l->have_claims = true;
    if (launch_check (&p, &l->req, sender, &l->claims, node_id, &err) < 0) {
        snprintf (why, len, "%s", err.text);
        return errno ? errno : EPERM;
    }
    if (stepd_exists (nd, l->claims.job_id, l->claims.step_id)) {
        snprintf (why, len, "step %u.%u already has a stepd here",
                  l->claims.job_id, l->claims.step_id);
        return EEXIST;
    }
    return 0;
}

static void launch_log_receipt (struct noded *nd, struct conn *c,
                                const struct frame *f,
                                const struct msg_launch *req)
{
    char *ranged;

    if (log_get_level () < LOG_LVL_DEBUG)
        return;
    ranged = fanout_ranged (req->slice, req->slice_count);
    log_debug ("launch %u.%u from %s (uid %u): slice %s", req->job_id,
               req->step_id, conn_peer (c), (unsigned)f->uid,
               ranged ? ranged : "?");
    free (ranged);
}

static struct launch *launch_create (struct noded *nd, struct conn *c,
                                     const struct frame *f,
                                     struct msg_launch *req)
{
    struct launch *l = calloc (1, sizeof (*l));

    if (!l)
        return NULL;
    l->nd = nd;
    l->parent = c;
    l->matchtag = f->matchtag;
    l->req = *req;                 /* take over the decoded fields */
    memset (req, 0, sizeof (*req));
    l->start = ev_now (nd->loop);
    l->budget = l->req.budget_ms ? l->req.budget_ms
                                 : nd->conf->launch_timeout * 1000;
    l->margin = fanout_margin (l->budget);
    ev_timer_init (&l->deadline_w, launch_deadline_cb,
                   (l->budget - l->margin) / 1000.0, 0.);
    l->deadline_w.data = l;
    l->next = nd->launches;
    nd->launches = l;
    return l;
}

void launch_handle (struct noded *nd, struct conn *c, const struct frame *f,
                    struct msg_launch *req)
{
    struct launch *l;
    arbor_error_t err;
    uint32_t node_id = 0;
    char why[200];
    int errnum;

    launch_log_receipt (nd, c, f, req);
    if (!(l = launch_create (nd, c, f, req))) {
        conn_send_rc (c, f->matchtag, ENOMEM, "%s: out of memory", nd->name);
        return;
    }
    if ((errnum = launch_verify (l, f->uid, &node_id, why, sizeof (why)))) {
        launch_refuse (l, errnum, why);
        return;
    }
    l->starting = true;
    l->fan = fanout_start (nd, &l->req, l->start + l->budget / 1000.0,
                           l->margin, &launch_fan_ops, l);
    if (!l->fan)
        launch_add_failed (l, nd->name, ENOMEM, "cannot forward the launch");
    l->stepd = stepd_spawn (nd, &l->req, &l->claims, node_id,
                            launch_stepd_cb, l, &err);
    if (!l->stepd) {
        log_err ("launch %u.%u: %s", l->req.job_id, l->req.step_id,
                 err.text);
        launch_add_failed (l, nd->name, errno ? errno : EIO, err.text);
    }
    l->starting = false;
    ev_timer_start (nd->loop, &l->deadline_w);
    launch_maybe_finish (l);
}

void launch_conn_closed (struct noded *nd, struct conn *c)
{
    for (struct launch *l = nd->launches; l; l = l->next) {
        if (l->parent == c)
            l->parent = NULL;
    }
}

void launch_destroy_all (struct noded *nd)
{
    while (nd->launches)
        launch_free (nd->launches);
}
