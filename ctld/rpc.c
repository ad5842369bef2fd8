/* rpc.c - arbor-ctld's connections and request handlers.
 *
 * Every accepted connection is a struct client on ctx->clients. Frames go
 * through rpc_dispatch() (common/rpc.c), which checks the role (RPC_PRIV:
 * root or ArborUser: registration, EPILOG_COMPLETE, NODE_UPDATE) and
 * decodes the body before calling the handler in the table below. Handlers always answer: the reply message, or MSG_RC
 * with an errno value and a sentence. Ownership checks (a user may act
 * only on their own jobs) are made here, in one helper.
 *
 * A job belongs to the connection that asked for it: when that connection
 * closes, its pending jobs are cancelled and its running ones completed.
 * Every job end goes through job_end() (term.c); EPILOG_COMPLETE from the
 * nodeds finishes it. STEP_COMPLETE and JOB_COMPLETE for a job already
 * ended (cancelled, timed out) are answered 0: the reporter did nothing
 * wrong, it just came late.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctld.h"
#include "hostlist.h"
#include "listen.h"
#include "log.h"
#include "rpc.h"

struct client {
    struct client *next, *prev;
    struct conn *conn;
    struct ctld *ctx;
};

static const struct conn_ops client_ops = {
    .frame = rpc_frame_cb,
    .closed = rpc_closed_cb,
};

static const char *nz (const char *s)
{
    return s ? s : "";
}

static bool is_priv (const struct ctld *ctx, uid_t uid)
{
    return uid == 0 || uid == ctx->priv_uid;
}

/* The job 'id' if 'f' may act on it; else answers the request and NULL. */
static struct job *rpc_owned_job (struct ctld *ctx, struct conn *c,
                                  const struct frame *f, uint32_t id)
{
    struct job *j = job_find (ctx, id);

    if (!j) {
        conn_send_rc (c, f->matchtag, ENOENT, "Invalid job id %u", id);
        return NULL;
    }
    if (!job_access (ctx, j, f->uid)) {
        conn_send_rc (c, f->matchtag, EPERM, "Access/permission denied for "
                      "job %u", id);
        return NULL;
    }
    return j;
}

static void rpc_job_alloc_cb (struct conn *c, const struct frame *f,
                              void *msg, void *arg)
{
    struct ctld *ctx = arg;
    struct job *j;
    arbor_error_t err;

    if (!(j = job_create (ctx, msg, f->uid, f->gid, &err))) {
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s",
                      err.text);
        log_verbose ("job request from %s (uid %u) refused: %s",
                     conn_peer (c), (unsigned)f->uid, err.text);
        return;
    }
    j->owner = c;
    j->owner_tag = f->matchtag;
    if (sched_submit (ctx, j, &err) < 0) {
        conn_send_rc (c, f->matchtag, errno, "%s", err.text);
        log_verbose ("job request from %s (uid %u) refused: %s",
                     conn_peer (c), (unsigned)f->uid, err.text);
        job_destroy (j);
        return;
    }
    if (j->state == JOB_PENDING) {
        struct msg_job_pending p = {
            .job_id = j->id, .reason = j->reason ? j->reason : "Resources",
        };
        log_info ("job %u of %s queued: %s", j->id, j->user, p.reason);
        if (conn_send (c, MSG_JOB_PENDING, f->matchtag, FRAME_F_RESPONSE,
                       &p) < 0)
            log_err ("job %u: cannot answer %s: %s", j->id, conn_peer (c),
                     strerror (errno));
    }
}

static void rpc_step_create_cb (struct conn *c, const struct frame *f,
                                void *msg, void *arg)
{
    struct ctld *ctx = arg;
    struct msg_step_create *m = msg;
    struct msg_step_created out;
    arbor_error_t err;
    struct job *j;

    if (!(j = rpc_owned_job (ctx, c, f, m->job_id)))
        return;
    if (j->state != JOB_RUNNING) {
        conn_send_rc (c, f->matchtag, EINVAL, "job %u is %s", j->id,
                      job_state_str (j->state));
        return;
    }
    if (step_create (ctx, j, m, f->uid, f->gid, &out, &err) < 0) {
        int e = errno ? errno : EINVAL;
        conn_send_rc (c, f->matchtag, e, "%s", err.text);
        if (e != EBUSY)
            log_verbose ("step of job %u refused: %s", j->id, err.text);
        return;
    }
    log_info ("step %u.%u created on %s (%u tasks)", j->id, out.step_id,
              out.nodelist, step_find (j, out.step_id)->ntasks);
    if (conn_send (c, MSG_STEP_CREATED, f->matchtag, FRAME_F_RESPONSE,
                   &out) < 0)
        log_err ("step %u.%u: cannot answer %s: %s", j->id, out.step_id,
                 conn_peer (c), strerror (errno));
    proto_clear (MSG_STEP_CREATED, &out);
}

static void rpc_step_complete_cb (struct conn *c, const struct frame *f,
                                  void *msg, void *arg)
{
    struct ctld *ctx = arg;
    struct msg_step_complete *m = msg;
    const char *node = nz (m->node);
    struct job *j;
    struct step *s;

    if (node[0] && !is_priv (ctx, f->uid)) {
        conn_send_rc (c, f->matchtag, EPERM, "only %s may report a node's "
                      "step completion", ctx->conf->arbor_user);
        return;
    }
    if (!(j = rpc_owned_job (ctx, c, f, m->job_id)))
        return;
    if (!node[0] || m->oom)
        job_note_exit (j, node[0] ? 0 : m->rc, m->oom);
    if (!(s = step_find (j, m->step_id))) {
        if (!job_is_active (j))
            conn_send_rc (c, f->matchtag, 0, "job %u already %s", j->id,
                          job_state_shown (j));
        else if (m->step_id < j->next_step_id)
            conn_send_rc (c, f->matchtag, 0, "step %u.%u already complete",
                          j->id, m->step_id);
        else
            conn_send_rc (c, f->matchtag, ENOENT, "step %u.%u not found",
                          j->id, m->step_id);
        return;
    }
    if (step_complete (j, s, node, ctx) < 0) {
        conn_send_rc (c, f->matchtag, ENOENT, "node %s is not in step %u.%u",
                      node, j->id, m->step_id);
        return;
    }
    log_verbose ("step %u.%u complete%s%s (rc %d%s)", j->id, m->step_id,
                 node[0] ? " on " : "", node, m->rc,
                 m->oom ? ", out of memory" : "");
    conn_send_rc (c, f->matchtag, 0, "%s", "");
}

static void rpc_job_complete_cb (struct conn *c, const struct frame *f,
                                 void *msg, void *arg)
{
    struct ctld *ctx = arg;
    struct msg_job_complete *m = msg;
    struct job *j;

    if (!(j = rpc_owned_job (ctx, c, f, m->job_id)))
        return;
    job_note_exit (j, m->rc, false);
    if (!job_is_active (j)) {
        conn_send_rc (c, f->matchtag, 0, "job %u already %s", j->id,
                      job_state_shown (j));
        return;
    }
    if (j->owner == c)
        j->owner = NULL;   /* it is waiting for this answer only */
    if (j->state == JOB_PENDING)
        job_end (ctx, j, JOB_CANCELLED, NULL);
    else
        job_end (ctx, j, m->rc == 0 ? JOB_COMPLETED : JOB_FAILED, NULL);
    conn_send_rc (c, f->matchtag, 0, "%s", "");
    sched_run (ctx);
}

static void rpc_job_cancel_cb (struct conn *c, const struct frame *f,
                               void *msg, void *arg)
{
    struct ctld *ctx = arg;
    arbor_error_t err;

    if (job_cancel (ctx, msg, f->uid, &err) < 0) {
        int e = errno ? errno : EINVAL;
        log_verbose ("cancel from %s (uid %u): %s", conn_peer (c),
                     (unsigned)f->uid, err.text);
        conn_send_rc (c, f->matchtag, e, "%s", err.text);
        return;
    }
    conn_send_rc (c, f->matchtag, 0, "%s", "");
    sched_run (ctx);
}

static void rpc_epilog_complete_cb (struct conn *c, const struct frame *f,
                                    void *msg, void *arg)
{
    struct ctld *ctx = arg;
    arbor_error_t err;

    if (term_epilog_complete (ctx, msg, &err) < 0) {
        log_warn ("epilog complete from %s: %s", conn_peer (c), err.text);
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s",
                      err.text);
        return;
    }
    conn_send_rc (c, f->matchtag, 0, "%s", "");
    sched_run (ctx);
}

static void rpc_node_register_cb (struct conn *c, const struct frame *f,
                                  void *msg, void *arg)
{
    struct ctld *ctx = arg;
    struct msg_node_register *m = msg;
    int idx = node_index (ctx, m->name);
    struct node *n;
    const char *old;

    if (idx < 0) {
        conn_send_rc (c, f->matchtag, ENOENT, "node %s is not in arbor.conf",
                      nz (m->name));
        log_warn ("registration from %s for unknown node %s", conn_peer (c),
                  nz (m->name));
        return;
    }
    n = &ctx->nodes[idx];
    old = node_state_str (n);
    node_register (n, m->cpus, m->real_memory, time (NULL));
    term_node_registered (ctx, (size_t)idx, time (NULL));
    if (strcmp (old, node_state_str (n)) != 0)
        log_info ("node %s registered (%s): %s -> %s%s%s", n->name,
                  nz (m->version), old, node_state_str (n),
                  n->reason ? ": " : "", n->reason ? n->reason : "");
    conn_send_rc (c, f->matchtag, 0, "%s", "");
    sched_run (ctx);
}

/* ---- NODE_INFO / JOB_INFO ---------------------------------------------- */

/* strdup into a list slot, remembering failure in *bad. */
static void put_str (char **slot, const char *s, bool *bad)
{
    if (!(*slot = strdup (s ? s : "")))
        *bad = true;
}

static int node_info_fill (const struct ctld *ctx, const size_t *idx,
                           size_t n, struct msg_node_info_reply *r)
{
    bool bad = false;

#define ALLOC(f) (r->f = calloc (n + 1, sizeof (*r->f)), r->f##_count = n, \
                  bad |= !r->f)
    ALLOC (names); ALLOC (states); ALLOC (reasons); ALLOC (addrs);
    ALLOC (partitions); ALLOC (cpus); ALLOC (alloc_cpus);
    ALLOC (real_memory); ALLOC (alloc_memory);
#undef ALLOC
    for (size_t i = 0; i < n && !bad; i++) {
        const struct node *nd = &ctx->nodes[idx[i]];
        put_str (&r->names[i], nd->name, &bad);
        put_str (&r->states[i], node_state_str (nd), &bad);
        put_str (&r->reasons[i], nd->reason, &bad);
        put_str (&r->addrs[i], nd->addr, &bad);
        put_str (&r->partitions[i], nd->partitions, &bad);
        r->cpus[i] = nd->cpus;
        r->alloc_cpus[i] = nd->alloc_cpus;
        r->real_memory[i] = nd->real_memory;
        r->alloc_memory[i] = (uint32_t)nd->alloc_memory;
    }
    return bad ? -1 : 0;
}

static void rpc_node_info_cb (struct conn *c, const struct frame *f,
                              void *msg, void *arg)
{
    struct ctld *ctx = arg;
    struct msg_node_info *m = msg;
    struct msg_node_info_reply r = { 0 };
    arbor_error_t err;
    size_t n, *idx;

    if (!(idx = nodes_select (ctx, nz (m->nodelist), &n, &err))) {
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s",
                      err.text);
        return;
    }
    if (node_info_fill (ctx, idx, n, &r) < 0)
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
    else if (conn_send (c, MSG_NODE_INFO_REPLY, f->matchtag,
                        FRAME_F_RESPONSE, &r) < 0)
        log_err ("node info to %s: %s", conn_peer (c), strerror (errno));
    proto_clear (MSG_NODE_INFO_REPLY, &r);
    free (idx);
}

static void job_info_one (const struct ctld *ctx, const struct job *j,
                          size_t i, struct msg_job_info_reply *r, bool *bad)
{
    uint64_t cpus = 0;

    for (size_t k = 0; k < j->nnodes; k++)
        cpus += j->nodes[k].cpus;
    if (j->nnodes == 0)
        cpus = (uint64_t)j->req.ntasks * j->req.cpus_per_task;
    r->job_ids[i] = j->id;
    put_str (&r->names[i], j->name, bad);
    put_str (&r->users[i], j->user, bad);
    put_str (&r->partitions[i], ctx->parts[j->part].name, bad);
    put_str (&r->states[i], job_state_shown (j), bad);
    put_str (&r->reasons[i], j->reason, bad);
    put_str (&r->nodelists[i], j->nodelist, bad);
    r->nnodes[i] = j->nnodes ? (uint32_t)j->nnodes : j->req.nnodes;
    r->ncpus[i] = cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)cpus;
    r->time_limits[i] = j->time_limit;
    r->start_times[i] = (uint32_t)j->start_time;
    r->nsteps[i] = (uint32_t)steps_count (j);
    r->end_times[i] = (uint32_t)j->end_time;
    r->exit_codes[i] = j->exit_rc;
}

static int job_info_fill (const struct ctld *ctx, uint32_t id,
                          struct msg_job_info_reply *r)
{
    size_t n = 0, i = 0;
    bool bad = false;

    for (const struct job *j = ctx->jobs; j; j = j->next)
        if (id == 0 || j->id == id)
            n++;
#define ALLOC(f) (r->f = calloc (n + 1, sizeof (*r->f)), r->f##_count = n, \
                  bad |= !r->f)
    ALLOC (job_ids); ALLOC (names); ALLOC (users); ALLOC (partitions);
    ALLOC (states); ALLOC (reasons); ALLOC (nodelists); ALLOC (nnodes);
    ALLOC (ncpus); ALLOC (time_limits); ALLOC (start_times); ALLOC (nsteps);
    ALLOC (end_times); ALLOC (exit_codes);
#undef ALLOC
    for (const struct job *j = ctx->jobs; j && !bad; j = j->next)
        if (id == 0 || j->id == id)
            job_info_one (ctx, j, i++, r, &bad);
    return bad ? -1 : 0;
}

static void rpc_job_info_cb (struct conn *c, const struct frame *f,
                             void *msg, void *arg)
{
    struct ctld *ctx = arg;
    struct msg_job_info *m = msg;
    struct msg_job_info_reply r = { 0 };

    if (m->job_id != 0 && !job_find (ctx, m->job_id)) {
        conn_send_rc (c, f->matchtag, ENOENT, "job %u not found", m->job_id);
        return;
    }
    if (job_info_fill (ctx, m->job_id, &r) < 0)
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
    else if (conn_send (c, MSG_JOB_INFO_REPLY, f->matchtag, FRAME_F_RESPONSE,
                        &r) < 0)
        log_err ("job info to %s: %s", conn_peer (c), strerror (errno));
    proto_clear (MSG_JOB_INFO_REPLY, &r);
}

static void rpc_node_update_cb (struct conn *c, const struct frame *f,
                                void *msg, void *arg)
{
    struct ctld *ctx = arg;
    struct msg_node_update *m = msg;
    arbor_error_t err;

    if (node_update (ctx, m, &err) < 0) {
        int e = errno ? errno : EINVAL;
        log_verbose ("node update from %s (uid %u) refused: %s",
                     conn_peer (c), (unsigned)f->uid, err.text);
        conn_send_rc (c, f->matchtag, e, "%s", err.text);
        return;
    }
    log_info ("node update by uid %u: NodeName=%s State=%s%s%s",
              (unsigned)f->uid, nz (m->nodelist), nz (m->state),
              m->reason && m->reason[0] ? " Reason=" : "", nz (m->reason));
    conn_send_rc (c, f->matchtag, 0, "%s", "");
    sched_run (ctx);
}

static const struct rpc_handler handlers[] = {
    { MSG_JOB_ALLOC, rpc_job_alloc_cb, RPC_ANY },
    { MSG_STEP_CREATE, rpc_step_create_cb, RPC_ANY },
    { MSG_STEP_COMPLETE, rpc_step_complete_cb, RPC_ANY },
    { MSG_JOB_COMPLETE, rpc_job_complete_cb, RPC_ANY },
    { MSG_NODE_REGISTER, rpc_node_register_cb, RPC_PRIV },
    { MSG_NODE_INFO, rpc_node_info_cb, RPC_ANY },
    { MSG_JOB_INFO, rpc_job_info_cb, RPC_ANY },
    { MSG_JOB_CANCEL, rpc_job_cancel_cb, RPC_ANY },
    { MSG_EPILOG_COMPLETE, rpc_epilog_complete_cb, RPC_PRIV },
    { MSG_NODE_UPDATE, rpc_node_update_cb, RPC_PRIV },
    { 0, NULL, 0 },
};

/* ---- connections -------------------------------------------------------- */

void rpc_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct client *cl = arg;
    arbor_error_t err;

    log_debug ("%s from %s (uid %u)", nz (proto_msg_name (f->type)),
               conn_peer (c), (unsigned)f->uid);
    if (f->flags & FRAME_F_RESPONSE)
        return;   /* we send no requests on client connections */
    if (rpc_dispatch (handlers, c, f, cl->ctx->priv_uid, cl->ctx, &err) < 0)
        log_verbose ("request from %s (uid %u): %s", conn_peer (c),
                     (unsigned)f->uid, err.text);
}

void rpc_closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct client *cl = arg;
    struct ctld *ctx = cl->ctx;
    bool ended = false;

    if (err && err->text[0])
        log_debug ("connection %s closed: %s", conn_peer (c), err->text);
    for (struct job *j = ctx->jobs; j; j = j->next) {
        if (j->owner != c)
            continue;
        j->owner = NULL;   /* closing: nothing more can be sent on it */
        job_end (ctx, j, j->state == JOB_PENDING ? JOB_CANCELLED
                                                 : JOB_COMPLETED,
                 j->state == JOB_PENDING ? "requester gone" : NULL);
        ended = true;
    }
    if (cl->prev)
        cl->prev->next = cl->next;
    else
        ctx->clients = cl->next;
    if (cl->next)
        cl->next->prev = cl->prev;
    free (cl);
    if (ended)
        sched_run (ctx);
}

static void clients_accepted_cb (struct listener *l, struct conn *c,
                                 void *arg)
{
    struct ctld *ctx = arg;
    struct client *cl = calloc (1, sizeof (*cl));

    if (!cl) {
        log_err ("connection from %s: out of memory", conn_peer (c));
        conn_destroy (c);
        return;
    }
    cl->ctx = ctx;
    cl->conn = c;
    conn_set_arg (c, cl);
    cl->next = ctx->clients;
    if (cl->next)
        cl->next->prev = cl;
    ctx->clients = cl;
}

static void clients_refused_cb (struct listener *l, const char *peer,
                                const char *why, void *arg)
{
    log_security ("connection from %s refused: %s", *peer ? peer : "?",
                  why);
}

static const struct listen_ops clients_listen_ops = {
    .accepted = clients_accepted_cb,
    .refused = clients_refused_cb,
};

int clients_listen (struct ctld *ctx, int fd)
{
    ctx->listener = listener_create (ctx->loop, fd, CONN_AUTH_MUNGE,
                                     ctx->auth, NULL, &client_ops,
                                     &clients_listen_ops, ctx);
    if (!ctx->listener) {
        int e = errno;
        close (fd);
        errno = e;
        return -1;
    }
    return 0;
}

void clients_fini (struct ctld *ctx)
{
    listener_destroy (ctx->listener);
    ctx->listener = NULL;
    while (ctx->clients) {
        struct client *cl = ctx->clients;
        ctx->clients = cl->next;
        conn_destroy (cl->conn);
        free (cl);
    }
}
