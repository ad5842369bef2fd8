/* launch.c - the LAUNCH handler: verify, forward, start, fan in.
 *
 * A launch goes through a flat chain of stages (STYLE rule 8):
 *     launch_precheck the slice is no larger than the cluster (before
 *                     anything is verified, expanded or echoed)
 *     launch_verify   credential: opened with the cluster's key (held
 *                     since the controller sent it, credkey_held.h; a launch
 *                     that comes first waits for it), cluster, expiry,
 *                     then launch_check (sender, ids, slice, step nodes,
 *                     tasks and cpus per node, revocation)
 *     launch_ask_live only for a user's launch (not the controller's, nor
 *                     a parent noded's, which checked it already) whose
 *                     credential was issued before this noded's memory
 *                     of revocations is complete (revoke_unsure: a
 *                     restart, an evicted revocation): the controller
 *                     must know the step as live on this node (STEP_LIVE),
 *                     else, or if it cannot be asked within
 *                     LAUNCH_LIVE_TIMEOUT, the launch is refused
 *     fanout_start    LAUNCH to the head of each chunk of slice[1..]
 *     stepd_spawn     this node's own stepd
 * and then waits, on the loop, for its stepd's STEPD_LAUNCHED and every
 * chunk's LAUNCH_REPLY, with one timer for its own deadline (budget minus
 * margin). It answers its parent exactly once; errnum is 0 only if no node
 * of the slice failed, else the first error, with every failed node and
 * its reason listed. A refused launch starts nothing and forwards nothing.
 * A forwarded launch comes from a parent noded (root or ArborUser, as the
 * controller's own launches) that made the same checks, asking the
 * controller where it could not vouch: its verdict travels with the
 * forward and the fan-out asks nothing more. A launch a user sends to
 * any node, node zero or not, is checked by that node. The normal path
 * (a credential issued after the noded started) asks no one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cred.h"
#include "credkey_held.h"
#include "fanout.h"
#include "launch.h"
#include "launch_check.h"
#include "log.h"
#include "noded_base.h"
#include "prolog.h"
#include "request.h"
#include "revoke.h"
#include "stepd_spawn.h"
#include "stepd_table.h"
#include "stepd_track.h"

/* A refusal names at most this many other nodes of the slice. */
#define LAUNCH_REFUSE_NAMES 4

struct launch {
    struct noded *nd;
    struct launch *next;
    struct conn *parent; /* NULL once it closed */
    uint32_t matchtag;
    struct msg_launch req; /* owned */
    struct msg_cred_claims claims;
    bool have_claims;
    uid_t sender;            /* authenticated uid of the parent */
    double start;            /* ev time of receipt */
    uint32_t budget, margin; /* ms */
    ev_timer deadline_w;
    bool awaiting_key;        /* the credential waits for the key */
    struct request *live_req; /* STEP_LIVE to the controller */
    struct fanout *fan;
    struct prolog_wait *prolog; /* the job's Prolog, before our stepd */
    uint32_t node_id;           /* ours in the step */
    struct stepd_rec *stepd;    /* while its STEPD_LAUNCHED is awaited */
    bool starting;              /* inside launch_handle: hold the reply */
    /* what failed, for the reply */
    int errnum;
    char *text; /* first error, "node7: ..." */
    char **failed_nodes;
    char **failed_errors;
    uint32_t nfailed;
    uint32_t cap;
};

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
static void launch_add_failed (struct launch *l, const char *node, int errnum,
                               const char *error)
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
    request_cancel (l->live_req);
    prolog_wait_cancel (l->prolog);
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
        log_debug ("launch %u.%u: %u node(s) started in %.0f ms", l->req.job_id,
                   l->req.step_id, l->req.slice_count, ms);
    else
        log_info ("launch %u.%u failed on %u of %u nodes in %.0f ms: %s",
                  l->req.job_id, l->req.step_id, l->nfailed, l->req.slice_count,
                  ms, l->text ? l->text : "error");
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
    if (l->parent
        && conn_send (l->parent, MSG_LAUNCH_REPLY, l->matchtag,
                      FRAME_F_RESPONSE, &r)
               < 0)
        log_err ("launch %u.%u: cannot answer %s: %s", l->req.job_id,
                 l->req.step_id, conn_peer (l->parent), strerror (errno));
    launch_free (l);
}

static void launch_maybe_finish (struct launch *l)
{
    if (!l->starting && !l->prolog && !l->stepd
        && (!l->fan || fanout_finished (l->fan)))
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

static void launch_refuse (struct launch *l, int errnum, const char *why);

/* Our own deadline: answer with what we have. */
static void launch_deadline_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct launch *l = w->data;
    char text[160];

    if (l->live_req) { /* fail closed: nothing was started or forwarded */
        request_cancel (l->live_req);
        l->live_req = NULL;
        snprintf (text, sizeof (text),
                  "the controller did not say within %.0f ms whether step "
                  "%u.%u is live",
                  (ev_now (loop) - l->start) * 1000.0, l->req.job_id,
                  l->req.step_id);
        launch_refuse (l, ETIMEDOUT, text);
        return;
    }
    if (l->awaiting_key) {
        snprintf (text, sizeof (text),
                  "no credential key from the controller within %.0f ms",
                  (ev_now (loop) - l->start) * 1000.0);
        l->awaiting_key = false;
        launch_add_failed (l, l->nd->name, ETIMEDOUT, text);
    }
    if (l->prolog) {
        snprintf (text, sizeof (text), "the prolog did not end within %.0f ms",
                  (ev_now (loop) - l->start) * 1000.0);
        prolog_wait_cancel (l->prolog);
        l->prolog = NULL;
        launch_add_failed (l, l->nd->name, ETIMEDOUT, text);
    }
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

/* Refuse: nothing was started. This node is reported with the reason,
 * then the first few other nodes of the slice, then one entry for the
 * rest ("62 more nodes"): the slice is not trusted, so the answer stays
 * small whatever it holds. */
static void launch_refuse (struct launch *l, int errnum, const char *why)
{
    char other[200], rest[64];
    uint32_t listed = 0, more = 0;
    bool look = l->req.slice_count <= l->nd->conf->nnodes; /* prechecked */

    log_security ("launch %u.%u from %s (uid %u) refused: %s", l->req.job_id,
                  l->req.step_id, l->parent ? conn_peer (l->parent) : "?",
                  (unsigned)l->sender, why);
    launch_add_failed (l, l->nd->name, errnum, why);
    snprintf (other, sizeof (other), "not launched: %s refused it",
              l->nd->name);
    for (uint32_t i = 1; i < l->req.slice_count; i++) {
        const char *node = l->req.slice[i];
        if (!look) {
            more = l->req.slice_count - 1;
            break;
        }
        if (!strcmp (node, l->nd->name))
            continue;
        if (listed < LAUNCH_REFUSE_NAMES
            && strnlen (node, LAUNCH_ECHO_MAX + 1) <= LAUNCH_ECHO_MAX) {
            launch_add_failed (l, node, errnum, other);
            listed++;
        } else
            more++;
    }
    if (more > 0) {
        snprintf (rest, sizeof (rest), "%u more node%s", more,
                  more == 1 ? "" : "s");
        launch_add_failed (l, rest, errnum, other);
    }
    launch_finish (l);
}

/* A connection opened with a step's launch ticket launches that step
 * alone (conn_step_scope). */
static bool launch_out_of_scope (const struct conn *c,
                                 const struct msg_cred_claims *cl, char *why,
                                 size_t len)
{
    uint32_t job, step;

    if (!conn_step_scope (c, &job, &step)
        || (job == cl->job_id && step == cl->step_id))
        return false;
    snprintf (why, len,
              "a connection opened with the launch ticket of step %u.%u "
              "cannot launch step %u.%u",
              job, step, cl->job_id, cl->step_id);
    return true;
}

/* Open the credential with 'key', check it and the launch against it. */
static int launch_verify (struct launch *l, const struct cred_key *key,
                          uint32_t *node_id, char *why, size_t len)
{
    struct noded *nd = l->nd;
    struct launch_policy p = {
        .self = nd->name,
        .arbor_uid = nd->arbor_uid,
        .revoked = nd->revoked,
        .now = time (NULL),
    };
    arbor_error_t err;

    /* No node for cred_open: launch_check expands the credential's node
     * list once and checks this node is in it (at 1,024 nodes a second
     * expansion was an eighth of the noded's CPU). */
    if (cred_open (key, l->req.cred, nd->conf->cluster_name, NULL, p.now,
                   &l->claims, &err)
        < 0) {
        snprintf (why, len, "credential: %s", err.text);
        return errno == EPROTO ? EINVAL : EPERM;
    }
    l->have_claims = true;
    if (l->parent && launch_out_of_scope (l->parent, &l->claims, why, len))
        return EPERM;
    if (launch_check (&p, &l->req, l->sender, &l->claims, node_id, &err) < 0) {
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
    l->sender = f->uid;
    l->req = *req; /* take over the decoded fields */
    memset (req, 0, sizeof (*req));
    l->start = ev_now (nd->loop);
    l->budget =
        l->req.budget_ms ? l->req.budget_ms : nd->conf->launch_timeout * 1000;
    l->margin = fanout_margin (l->budget);
    ev_timer_init (&l->deadline_w, launch_deadline_cb,
                   (l->budget - l->margin) / 1000.0, 0.);
    l->deadline_w.data = l;
    l->next = nd->launches;
    nd->launches = l;
    return l;
}

/* The job's Prolog has run here (or failed): start our stepd. */
static void launch_prolog_cb (int errnum, const char *why, void *arg)
{
    struct launch *l = arg;
    arbor_error_t err;

    l->prolog = NULL;
    if (errnum) {
        launch_add_failed (l, l->nd->name, errnum, why);
        launch_maybe_finish (l);
        return;
    }
    l->stepd = stepd_spawn (l->nd, &l->req, &l->claims, l->node_id,
                            launch_stepd_cb, l, &err);
    if (!l->stepd) {
        log_err ("launch %u.%u: %s", l->req.job_id, l->req.step_id, err.text);
        launch_add_failed (l, l->nd->name, errno ? errno : EIO, err.text);
    }
    launch_maybe_finish (l);
}

/* Verified: forward to the slice's chunks, and start our own stepd once
 * the job's Prolog has run on this node (prolog.h). */
static void launch_start (struct launch *l, uint32_t node_id)
{
    struct noded *nd = l->nd;
    char nodelist[PROTO_MAX_NAME + 32], name[PROTO_MAX_NAME + 32];
    char *env[] = { nodelist, name };
    struct prolog_job pj = { l->claims.job_id,
                             l->claims.restarts,
                             l->claims.uid,
                             l->claims.gid,
                             l->claims.user,
                             env,
                             2 };

    /* what the Prolog knows of the job from a launch */
    snprintf (nodelist, sizeof (nodelist), "SLURM_JOB_NODELIST=%.*s",
              PROTO_MAX_NAME, l->req.job_nodelist ? l->req.job_nodelist : "");
    snprintf (name, sizeof (name), "SLURM_JOB_NAME=%.*s", PROTO_MAX_NAME,
              l->req.job_name ? l->req.job_name : "");
    l->starting = true;
    l->node_id = node_id;
    l->fan = fanout_start (nd, &l->req, l->start + l->budget / 1000.0,
                           l->margin, &launch_fan_ops, l);
    if (!l->fan)
        launch_add_failed (l, nd->name, ENOMEM, "cannot forward the launch");
    l->prolog = prolog_ensure (nd, &pj, launch_prolog_cb, l);
    l->starting = false;
    launch_maybe_finish (l);
}

/* ---- the controller's word, where our revocations cannot vouch -------- */

/* Seconds the controller has to answer STEP_LIVE (within the launch's own
 * deadline, whichever comes first); then the launch is refused. */
#define LAUNCH_LIVE_TIMEOUT 5.0

/* A user's launch whose credential predates what this noded knows of
 * revocations (it restarted since, or evicted one it might be covered
 * by). The controller's launches and a parent noded's forwards (root or
 * ArborUser, as check_sender counts them) come checked: the controller
 * made the step, the parent asked where it could not vouch. */
static bool launch_unsure (const struct launch *l)
{
    if (l->sender == 0 || l->sender == l->nd->arbor_uid)
        return false;
    return !l->nd->revoked
           || revoke_unsure (l->nd->revoked, (time_t)l->claims.issued,
                             (time_t)l->claims.expires);
}

static void launch_live_cb (const struct request_result *res, void *arg)
{
    struct launch *l = arg;
    const struct msg_cred_claims *cl = &l->claims;
    char why[300];

    l->live_req = NULL; /* freed by request.c after this returns */
    if (res->errnum == 0) {
        log_verbose ("launch %u.%u: the controller knows the step as live",
                     cl->job_id, cl->step_id);
        launch_start (l, l->node_id);
        return;
    }
    if (res->outcome == REQUEST_REFUSED) {
        /* Its verdict holds until the credential expires: remember it. */
        if (res->errnum == EPERM || res->errnum == ENOENT)
            revoke_add (l->nd->revoked, cl->job_id, cl->restarts, cl->step_id,
                        (time_t)cl->expires);
        snprintf (why, sizeof (why),
                  "step %u.%u is not live, the controller says: %s", cl->job_id,
                  cl->step_id, res->err.text);
        launch_refuse (l, EPERM, why);
        return;
    }
    snprintf (why, sizeof (why),
              "cannot ask the controller whether step %u.%u is live (what "
              "this node knows of revoked steps does not cover the "
              "credential): %s",
              cl->job_id, cl->step_id, res->err.text);
    launch_refuse (l, res->errnum ? res->errnum : EIO, why);
}

/* Ask the controller whether our share of the step is live; the answer
 * starts or refuses the launch (launch_live_cb). */
static void launch_ask_live (struct launch *l)
{
    struct noded *nd = l->nd;
    struct msg_step_live m = {
        .job_id = l->claims.job_id,
        .step_id = l->claims.step_id,
        .restarts = l->claims.restarts,
        .node = (char *)nd->name,
    };
    struct request_opts opts;
    char why[160];

    log_verbose ("launch %u.%u: credential issued at %llu, before this "
                 "noded's revocations are complete: asking the controller",
                 m.job_id, m.step_id, (unsigned long long)l->claims.issued);
    noded_ctld_opts (nd, LAUNCH_LIVE_TIMEOUT, &opts);
    l->live_req =
        request_tcp (nd->loop, nd->conf->control_addr, nd->conf->ctld_port,
                     MSG_STEP_LIVE, &m, &opts, launch_live_cb, l);
    if (!l->live_req) {
        snprintf (why, sizeof (why),
                  "cannot ask the controller whether step %u.%u is live: %s",
                  m.job_id, m.step_id, strerror (errno));
        launch_refuse (l, EIO, why);
    }
}

/* The key is here: verify, then start or refuse (or ask first). */
static void launch_open (struct launch *l, const struct cred_key *key)
{
    uint32_t node_id = 0;
    char why[200];
    int errnum;

    l->awaiting_key = false;
    if ((errnum = launch_verify (l, key, &node_id, why, sizeof (why))))
        launch_refuse (l, errnum, why);
    else if (launch_unsure (l)) {
        l->node_id = node_id;
        launch_ask_live (l);
    } else
        launch_start (l, node_id);
}

void launch_handle (struct noded *nd, struct conn *c, const struct frame *f,
                    struct msg_launch *req)
{
    const struct cred_key *key = credkey_held (nd);
    struct launch *l;
    arbor_error_t err;

    if (!(l = launch_create (nd, c, f, req))) {
        conn_send_rc (c, f->matchtag, ENOMEM, "%s: out of memory", nd->name);
        return;
    }
    if (launch_precheck (&l->req, nd->conf->nnodes, &err) < 0) {
        launch_refuse (l, EPERM, err.text);
        return;
    }
    launch_log_receipt (nd, c, f, &l->req);
    ev_timer_start (nd->loop, &l->deadline_w);
    if (key) {
        launch_open (l, key);
        return;
    }
    log_info ("launch %u.%u waits for the controller's credential key",
              l->req.job_id, l->req.step_id);
    l->awaiting_key = true;
    credkey_wanted (nd);
}

void launch_key_arrived (struct noded *nd)
{
    const struct cred_key *key = credkey_held (nd);
    struct launch *l, *next;

    for (l = nd->launches; key && l; l = next) {
        next = l->next; /* launch_open may free l */
        if (l->awaiting_key)
            launch_open (l, key);
    }
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
