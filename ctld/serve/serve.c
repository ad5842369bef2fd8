/* serve.c - arbor-ctld's connections and request handlers.
 *
 * Every accepted connection is owned by the listener (common/wire/listen.h).
 * Frames go through rpc_dispatch() (common/wire/rpc.c), which checks the role
 * (RPC_PRIV: root or ArborUser: registration, EPILOG_COMPLETE, NODE_UPDATE) and
 * decodes the body before calling the handler in the table below; the
 * handlers live by who asks: serve_jobs.c (a job's life: submit, steps,
 * complete, wait, attach, cancel, update), serve_query.c (questions) and
 * serve_nodes.c (node daemons and administrators). Handlers always answer: the
 * reply message, or MSG_RC with an errno value and a sentence. Ownership checks
 * (a user may act only on their own jobs) are made here, in one helper.
 *
 * A job belongs to the connection that asked for it: when that connection
 * closes, its pending jobs are cancelled and its running ones completed.
 * Every job end goes through job_end() (term.c); EPILOG_COMPLETE from the
 * nodeds finishes it. STEP_COMPLETE and JOB_COMPLETE for a job already
 * ended (cancelled, timed out) are answered 0: the reporter did nothing
 * wrong, it just came late.
 *
 * No request goes unanswered: an answer that cannot be sent (it fails to
 * encode, is over the frame limit, or memory runs out) becomes an RC
 * error saying why (serve_reply), so a client never waits for its timeout.
 * Refused connections (bad frames, forged or replayed tokens) and
 * requests refused for lack of privilege or ownership are security
 * events, logged with log_security (warning, rate-limited) naming the
 * peer and the uid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "acct/acct.h"
#include "acct/acct_serve.h"
#include "serve/bcast.h"
#include "sched/licenses.h"
#include "conf.h"
#include "ctld.h"
#include "job/job.h"
#include "listen.h"
#include "log.h"
#include "state/persist.h"
#include "rpc.h"
#include "serve/serve.h"
#include "assoc/assoc_serve.h"
#include "serve/serve_private.h"
#include "serve/serve_jobs.h"
#include "serve/serve_nodes.h"
#include "serve/serve_query.h"
#include "job/steplive.h"
#include "job/term.h"
#include "notify/trigger.h"
#include "notify/wait.h"
#include "job/jobs.h"

/* The listener owns the client conns; each has the struct serve as its
 * arg. */
struct serve {
    struct ctld *ctx;
    struct listener *listener;
    struct submitted *submitted; /* answers waiting for a commit */
};

/* A submission's answer, sent once the job is durable (persist_then);
 * or a change's (job_id 0: cancel, hold, release, update...), once it is
 * recorded. */
struct submitted {
    struct submitted *next;
    struct serve *sv;
    struct conn *c; /* NULL once it closed */
    uint32_t matchtag;
    uid_t uid;
    uint32_t job_id;
    bool pending; /* a queued allocation's JOB_PENDING, not JOB_SUBMITTED */
};

static const struct conn_ops client_ops = {
    .frame = serve_frame_cb,
    .closed = serve_closed_cb,
};

const char *serve_nz (const char *s)
{
    return s ? s : "";
}

bool serve_is_priv (const struct ctld *ctx, uid_t uid)
{
    return uid == 0 || uid == ctx->priv_uid;
}

/* Why an answer could not be sent, for the RC that replaces it. */
static const char *serve_send_error (int e)
{
    switch (e) {
    case EMSGSIZE:
        return "the answer is larger than the protocol's frame limit "
               "(16 MiB); ask for less (filter by user, state or job)";
    case ENOBUFS:
        return "the answer does not fit in the connection's output queue";
    case ENOMEM: return "out of memory";
    default: return strerror (e);
    }
}

/* Send the answer 'msg' of 'type' to request f; if it cannot be sent,
 * answer an RC error saying why instead. -1 with errno when the request
 * got that error (or nothing could be sent at all). */
int serve_reply (struct conn *c, const struct frame *f, int type,
                 const void *msg)
{
    int e;

    if (conn_send (c, type, f->matchtag, FRAME_F_RESPONSE, msg) == 0)
        return 0;
    e = errno;
    log_err ("%s to %s (uid %u): %s", proto_msg_name (type), conn_peer (c),
             (unsigned)f->uid, serve_send_error (e));
    if (conn_send_rc (c, f->matchtag, e, "cannot answer: %s",
                      serve_send_error (e))
        < 0)
        log_err ("%s: cannot answer %s either: %s", proto_msg_name (type),
                 conn_peer (c), strerror (errno));
    errno = e;
    return -1;
}

/* Refuse request f with EPERM and 'text', logged as a security event. */
void serve_denied (struct conn *c, const struct frame *f, const char *text)
{
    log_security ("%s from %s (uid %u) refused: %s", proto_msg_name (f->type),
                  conn_peer (c), (unsigned)f->uid, text);
    conn_send_rc (c, f->matchtag, EPERM, "%s", text);
}

/* The job 'id' if 'f' may act on it; else answers the request and NULL. */
struct job *serve_owned_job (struct ctld *ctx, struct conn *c,
                             const struct frame *f, uint32_t id)
{
    struct job *j = job_find (ctx, id);

    if (!j) {
        conn_send_rc (c, f->matchtag, ENOENT, "Invalid job id %u", id);
        return NULL;
    }
    if (!job_access (ctx, j, f->uid)) {
        char text[64];
        snprintf (text, sizeof (text), "Access/permission denied for job %u",
                  id);
        serve_denied (c, f, text);
        return NULL;
    }
    return j;
}

/* Cancel a submission that could not be saved: job_id and, for an
 * array, its other tasks (they were queued with it). */
static void serve_unsubmit (struct ctld *ctx, uint32_t job_id)
{
    for (struct job *j = ctx->jobs; j; j = j->next)
        if (j->id == job_id || (j->array_job_id && j->array_job_id == job_id))
            job_end (ctx, j, JOB_CANCELLED, "StateSaveFailed");
}

/* Tell an allocation's requester it is queued (JOB_PENDING), if it still
 * is and still waits for it: the id it learns is then one a restarted
 * controller knows (CLIENT_REATTACH_S). A commit that failed leaves the
 * job in memory, its record retried (store.c): it is queued all the
 * same. */
static void serve_pending_now (struct ctld *ctx, struct conn *c,
                               const struct frame *f, struct job *j)
{
    struct msg_job_pending p = {
        .job_id = j->id,
        .reason = j->reason ? j->reason : "Resources",
    };

    log_info ("job %u of %s queued: %s", j->id, j->user, p.reason);
    if (serve_reply (c, f, MSG_JOB_PENDING, &p) < 0) {
        j->owner = NULL; /* it got its error: nothing more to say */
        job_end (ctx, j, JOB_CANCELLED, "requester not answered");
    }
}

static void serve_submitted_cb (int errnum, const char *err, void *arg)
{
    struct submitted *s = arg, **pp;
    struct msg_job_submitted r = { .job_id = s->job_id };

    for (pp = &s->sv->submitted; *pp != s; pp = &(*pp)->next)
        ;
    *pp = s->next;
    if (s->pending) {
        struct job *j = job_find (s->sv->ctx, s->job_id);
        struct frame f = { .matchtag = s->matchtag, .uid = s->uid };
        if (s->c && j && j->state == JOB_PENDING && j->owner == s->c)
            serve_pending_now (s->sv->ctx, s->c, &f, j);
    } else if (errnum && !s->job_id) {
        /* The change stands in memory and is kept for the next commit
         * (store.c): the user hears it is not recorded yet. */
        if (s->c)
            conn_send_rc (s->c, s->matchtag, errnum,
                          "cannot record the change: %s (it is kept and "
                          "written once StateSaveLocation has room again)",
                          err);
    } else if (errnum) {
        serve_unsubmit (s->sv->ctx, s->job_id);
        if (s->c)
            conn_send_rc (s->c, s->matchtag, errnum,
                          "the job could not be saved: %s", err);
    } else if (!s->job_id) {
        if (s->c)
            conn_send_rc (s->c, s->matchtag, 0, "%s", "");
    } else if (s->c) {
        struct frame f = { .matchtag = s->matchtag, .uid = s->uid };
        (void)serve_reply (s->c, &f, MSG_JOB_SUBMITTED, &r);
    }
    free (s);
}

/* Answer JOB_SUBMITTED for job_id (0: RC 0 for a change), or with
 * 'pending' the JOB_PENDING of a queued allocation, once it is durable. */
void serve_submitted (struct ctld *ctx, struct conn *c, const struct frame *f,
                      uint32_t job_id, bool pending)
{
    struct serve *sv = ctx->serve;
    struct submitted *s;

    if (!sv || !ctx->persist) { /* no state database: nothing to wait for */
        struct msg_job_submitted r = { .job_id = job_id };
        struct job *j = pending ? job_find (ctx, job_id) : NULL;
        if (pending && j)
            serve_pending_now (ctx, c, f, j);
        else if (job_id && !pending)
            (void)serve_reply (c, f, MSG_JOB_SUBMITTED, &r);
        else if (!pending)
            conn_send_rc (c, f->matchtag, 0, "%s", "");
        return;
    }
    if (!(s = calloc (1, sizeof (*s)))) {
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
        if (job_id)
            serve_unsubmit (ctx, job_id);
        return;
    }
    s->sv = sv;
    s->c = c;
    s->matchtag = f->matchtag;
    s->uid = f->uid;
    s->job_id = job_id;
    s->pending = pending;
    s->next = sv->submitted;
    sv->submitted = s;
    if (persist_then (ctx, serve_submitted_cb, s) < 0)
        serve_submitted_cb (ENOMEM, "out of memory", s);
}

/* While the state database cannot be written, a change would not be
 * recorded: none is made, and the user is told why (persist.h). True
 * when f was refused so. */
bool serve_unwritable (struct ctld *ctx, struct conn *c, const struct frame *f)
{
    char why[320];
    int e = persist_writable (ctx, why, sizeof (why));

    if (!e)
        return false;
    conn_send_rc (c, f->matchtag, e, "cannot record the change: %s", why);
    log_verbose ("%s from %s (uid %u) refused: the state database cannot "
                 "be written",
                 proto_msg_name (f->type), conn_peer (c), (unsigned)f->uid);
    return true;
}

static const struct rpc_handler handlers[] = {
    { MSG_JOB_ALLOC, serve_job_alloc_cb, RPC_ANY },
    { MSG_STEP_CREATE, serve_step_create_cb, RPC_ANY },
    { MSG_STEP_COMPLETE, serve_step_complete_cb, RPC_ANY },
    { MSG_STEP_LIVE, steplive_rpc_cb, RPC_ANY }, /* checks its uids */
    { MSG_JOB_COMPLETE, serve_job_complete_cb, RPC_ANY },
    { MSG_JOB_WAIT, serve_job_wait_cb, RPC_ANY },
    { MSG_JOB_ACTION, serve_job_action_cb, RPC_ANY },
    { MSG_JOB_UPDATE, serve_job_update_cb, RPC_ANY },
    { MSG_JOB_ATTACH, serve_job_attach_cb, RPC_ANY },
    { MSG_JOB_EVENTS, serve_job_events_cb, RPC_ANY },
    { MSG_ACCT_QUERY, serve_acct_query_cb, RPC_ANY },
    { MSG_PRIO_INFO, serve_prio_info_cb, RPC_ANY },
    { MSG_CTLD_RECONFIGURE, serve_reconfigure_cb, RPC_PRIV },
    { MSG_STEP_INFO, serve_step_info_cb, RPC_ANY },
    { MSG_NODE_REGISTER, serve_node_register_cb, RPC_PRIV },
    { MSG_NODE_INFO, serve_node_info_cb, RPC_ANY },
    { MSG_JOB_INFO, serve_job_info_cb, RPC_ANY },
    { MSG_JOB_CANCEL, serve_job_cancel_cb, RPC_ANY },
    { MSG_EPILOG_COMPLETE, serve_epilog_complete_cb, RPC_PRIV },
    { MSG_NODE_UPDATE, serve_node_update_cb, RPC_PRIV },
    { MSG_PROLOG_FAILED, serve_prolog_failed_cb, RPC_PRIV },
    /* trigger.h: the handlers check who asks */
    { MSG_TRIGGER_SET, trigger_set_rpc_cb, RPC_ANY },
    { MSG_TRIGGER_GET, trigger_get_rpc_cb, RPC_ANY },
    { MSG_TRIGGER_CLEAR, trigger_clear_rpc_cb, RPC_ANY },
    { MSG_BCAST_CRED, bcast_cred_rpc_cb, RPC_ANY }, /* checks the owner */
    { MSG_BCAST_LIVE, bcast_live_rpc_cb, RPC_ANY }, /* checks its uids */
    { MSG_LIC_INFO, licenses_rpc_cb, RPC_ANY },
    { MSG_ASSOC_REQ, assoc_rpc_cb, RPC_ANY }, /* assoc_req.h: who may */
    { 0, NULL, 0 },
};

/* ---- connections -------------------------------------------------------- */

void serve_request (struct ctld *ctx, struct conn *c, const struct frame *f)
{
    arbor_error_t err;

    log_debug ("%s from %s (uid %u)", serve_nz (proto_msg_name (f->type)),
               conn_peer (c), (unsigned)f->uid);
    if (f->flags & FRAME_F_RESPONSE)
        return; /* we send no requests on client connections */
    if (rpc_dispatch (handlers, c, f, ctx->priv_uid, ctx, &err) < 0)
        log_security ("request from %s (uid %u) refused: %s", conn_peer (c),
                      (unsigned)f->uid, err.text);
}

void serve_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct serve *sv = arg;

    serve_request (sv->ctx, c, f);
}

void serve_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct serve *sv = arg;
    struct ctld *ctx = sv->ctx;

    if (conn_refused (c))
        log_security ("connection from %s refused: %s", conn_peer (c),
                      err && err->text[0] ? err->text : "protocol violation");
    else if (err && err->text[0])
        log_debug ("connection %s closed: %s", conn_peer (c), err->text);
    wait_conn_closed (ctx, c);
    acct_conn_closed (ctx, c);
    for (struct submitted *s = sv->submitted; s; s = s->next)
        if (s->c == c)
            s->c = NULL;
    for (struct job *j = ctx->jobs; j; j = j->next) {
        if (j->owner != c)
            continue;
        j->owner = NULL; /* closing: nothing more can be sent on it */
        job_end (ctx, j,
                 j->state == JOB_PENDING ? JOB_CANCELLED : JOB_COMPLETED,
                 j->state == JOB_PENDING ? "requester gone" : NULL);
    }
}

static void serve_refused_cb (struct listener *l, const char *peer,
                              const char *why, void *arg)
{
    log_security ("connection from %s refused: %s", *peer ? peer : "?", why);
}

/* The idle sweep's candidates, sorted, and which of them to keep. */
struct idle_set {
    struct conn **conns;
    bool *keep;
    size_t n;
};

static int conn_ptr_cmp (const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (struct conn *const *)a;
    uintptr_t y = (uintptr_t) * (struct conn *const *)b;

    return x < y ? -1 : x > y;
}

static void idle_keep (struct conn *c, void *arg)
{
    struct idle_set *s = arg;
    struct conn **hit;

    if (c
        && (hit =
                bsearch (&c, s->conns, s->n, sizeof (*s->conns), conn_ptr_cmp)))
        s->keep[hit - s->conns] = true;
}

/* Idle sessions that still hold something stay: a job they allocated (its
 * end would follow their close), a submission's answer waiting for its
 * commit, a JOB_WAIT. One pass over each list, whatever the count. */
static void serve_idle_cb (struct listener *l, struct conn **conns, size_t n,
                           void *arg)
{
    struct serve *sv = arg;
    struct idle_set s = { conns, calloc (n, sizeof (bool)), n };

    if (!s.keep) { /* keep them all rather than guess */
        memset (conns, 0, n * sizeof (*conns));
        return;
    }
    qsort (conns, n, sizeof (*conns), conn_ptr_cmp);
    for (struct job *j = sv->ctx->jobs; j; j = j->next)
        idle_keep (j->owner, &s);
    for (struct submitted *p = sv->submitted; p; p = p->next)
        idle_keep (p->c, &s);
    wait_each_conn (sv->ctx, idle_keep, &s);
    for (size_t i = 0; i < n; i++)
        if (s.keep[i])
            conns[i] = NULL;
    free (s.keep);
}

static const struct listen_ops serve_listen_ops = {
    .refused = serve_refused_cb,
    .idle = serve_idle_cb,
};

struct serve *serve_create (struct ctld *ctx, int fd)
{
    struct serve *sv = calloc (1, sizeof (*sv));

    if (!sv) {
        close (fd);
        errno = ENOMEM;
        return NULL;
    }
    sv->ctx = ctx;
    struct conn_auth a = { .mode = CONN_AUTH_MUNGE, .pool = ctx->pool };
    /* docs/security.md: sessions per uid and per address, the reserve
     * for root and ArborUser (the nodeds), idle sessions closed. */
    struct listen_limits lim = {
        .max_uid_sessions = ctx->conf->max_sessions_user,
        .max_addr_sessions = ctx->conf->max_sessions_host,
        .priv_uid = ctx->priv_uid,
        .idle_timeout = ctx->conf->session_idle_timeout,
        .name = "controller",
    };

    sv->listener = listener_create (ctx->loop, fd, &a, &lim, &client_ops,
                                    &serve_listen_ops, sv);
    if (!sv->listener) {
        int e = errno;
        close (fd);
        free (sv);
        errno = e;
        return NULL;
    }
    return sv;
}

void serve_destroy (struct serve *sv)
{
    int saved = errno;

    if (!sv)
        return;
    listener_destroy (sv->listener); /* and the conns it accepted */
    free (sv);
    errno = saved;
}
