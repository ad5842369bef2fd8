/* local.c - the node's local socket, <spool>/noded.sock (mode 0666).
 *
 * Programs on this node that are not daemons ask the noded here, with no
 * round trip to the controller; the kernel names the caller (SO_PEERCRED):
 *   NODE_JOBS  which of a user's jobs have stepds on this node, newest
 *              first, and which of them have their extern step here
 *              (pam_arbor_adopt, at each ssh login). Any local user may
 *              ask about themselves; root and ArborUser about anyone.
 * The answer comes from the stepd table (ours and those of a previous
 * noded, stepd_each_of_user), so a job whose only stepds here ended is
 * not listed: a login is adopted into a running extern step, and a job
 * without PrologFlags=Contain has one only while a step runs here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "listen.h"
#include "local.h"
#include "log.h"
#include "net.h"
#include "noded_base.h"
#include "rpc.h"
#include "stepd_table.h"
#include "stepd_track.h"

/* How many local clients may be connected at once: logins are short.
 * The socket is open to every local user, so one user must not be able to
 * hold it: each uid may hold LOCAL_PER_UID connections that have not asked
 * yet (a newcomer closes its own oldest silent one) and LOCAL_PER_UID
 * answered ones; an answered connection idle for LOCAL_IDLE_TIMEOUT s is
 * closed; LOCAL_RESERVE connections are kept for root (pam_arbor_adopt
 * asks as root) and ArborUser, who are exempt from the per-uid caps. */
#define LOCAL_MAX_CONNS 256
#define LOCAL_PER_UID 8
#define LOCAL_RESERVE 32
#define LOCAL_AUTH_TIMEOUT 5.0
#define LOCAL_IDLE_TIMEOUT 10.0
#define LOCAL_FRAME_TIMEOUT 10.0

/* The user's jobs, being gathered. */
struct job_list {
    uint32_t *ids, *externs;
    uint64_t *started_ms; /* of the job's first stepd here */
    size_t count, alloc;
    bool nomem;
};

static ssize_t job_list_find (const struct job_list *l, uint32_t job)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->ids[i] == job)
            return (ssize_t)i;
    return -1;
}

static int job_list_grow (struct job_list *l)
{
    size_t n = l->alloc ? l->alloc * 2 : 8;
    uint32_t *ids = realloc (l->ids, n * sizeof (*ids));
    uint32_t *ext = ids ? realloc (l->externs, n * sizeof (*ext)) : NULL;
    uint64_t *st = ext ? realloc (l->started_ms, n * sizeof (*st)) : NULL;

    if (ids)
        l->ids = ids;
    if (ext)
        l->externs = ext;
    if (!st)
        return -1;
    l->started_ms = st;
    l->alloc = n;
    return 0;
}

/* stepd_each_f: a job starts with its first stepd here. */
static void job_list_add (uint32_t job, uint32_t step, uint64_t started_ms,
                          void *arg)
{
    struct job_list *l = arg;
    ssize_t i = job_list_find (l, job);

    if (i < 0) {
        if (l->count == l->alloc && job_list_grow (l) < 0) {
            l->nomem = true;
            return;
        }
        i = (ssize_t)l->count++;
        l->ids[i] = job;
        l->externs[i] = 0;
        l->started_ms[i] = started_ms;
    }
    if (step == STEP_ID_EXTERN)
        l->externs[i] = 1;
    if (started_ms < l->started_ms[i])
        l->started_ms[i] = started_ms;
}

/* Newest first; equal times: the higher job id (submitted later). */
static void job_list_sort (struct job_list *l)
{
    for (size_t i = 1; i < l->count; i++)
        for (size_t j = i; j > 0; j--) {
            size_t a = j - 1, b = j;
            if (l->started_ms[a] > l->started_ms[b]
                || (l->started_ms[a] == l->started_ms[b]
                    && l->ids[a] > l->ids[b]))
                break;
            uint32_t id = l->ids[a], ex = l->externs[a];
            uint64_t st = l->started_ms[a];
            l->ids[a] = l->ids[b];
            l->externs[a] = l->externs[b];
            l->started_ms[a] = l->started_ms[b];
            l->ids[b] = id;
            l->externs[b] = ex;
            l->started_ms[b] = st;
        }
}

static void job_list_free (struct job_list *l)
{
    free (l->ids);
    free (l->externs);
    free (l->started_ms);
}

static void local_node_jobs_cb (struct conn *c, const struct frame *f,
                                void *msg, void *arg)
{
    struct noded *nd = arg;
    const struct msg_node_jobs *m = msg;
    struct job_list l = { 0 };
    struct msg_node_jobs_reply r = { .node = (char *)nd->name };

    if (f->uid != 0 && f->uid != nd->arbor_uid && f->uid != m->uid) {
        log_security ("local socket: uid %u asked for the jobs of uid %u",
                      (unsigned)f->uid, m->uid);
        conn_send_rc (c, f->matchtag, EPERM,
                      "only root may ask about another user's jobs");
        return;
    }
    stepd_each_of_user (nd, (uid_t)m->uid, job_list_add, &l);
    if (l.nomem) {
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
        job_list_free (&l);
        return;
    }
    job_list_sort (&l);
    r.job_ids = l.ids;
    r.job_ids_count = (uint32_t)l.count;
    r.extern_steps = l.externs;
    r.extern_steps_count = (uint32_t)l.count;
    log_debug ("local socket: uid %u has %zu job%s here", m->uid, l.count,
               l.count == 1 ? "" : "s");
    if (conn_send (c, MSG_NODE_JOBS_REPLY, f->matchtag, FRAME_F_RESPONSE, &r)
        < 0)
        log_info ("local socket: cannot answer: %s", strerror (errno));
    job_list_free (&l);
}

static const struct rpc_handler local_handlers[] = {
    { MSG_NODE_JOBS, local_node_jobs_cb, RPC_ANY },
    { 0, NULL, 0 },
};

static void local_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct noded *nd = arg;
    arbor_error_t err;

    if (f->flags & FRAME_F_RESPONSE)
        return;
    if (rpc_dispatch (local_handlers, c, f, nd->arbor_uid, nd, &err) < 0)
        log_security ("local socket: request from uid %u refused: %s",
                      (unsigned)f->uid, err.text);
}

static void local_closed_cb (struct conn *c, const arbor_error_t *err,
                             void *arg)
{
    if (conn_refused (c))
        log_security ("local socket: connection refused: %s",
                      err && err->text[0] ? err->text : "protocol violation");
}

static const struct conn_ops local_conn_ops = {
    .frame = local_frame_cb,
    .closed = local_closed_cb,
};

static void local_refused_cb (struct listener *l, const char *peer,
                              const char *why, void *arg)
{
    log_security ("local socket: connection refused: %s", why);
}

/* Every question here is answered at once, so an idle connection holds
 * nothing: all may go. */
static void local_idle_cb (struct listener *l, struct conn **conns, size_t n,
                           void *arg)
{
}

static const struct listen_ops local_listen_ops = {
    .refused = local_refused_cb,
    .idle = local_idle_cb,
};

int local_start (struct noded *nd, arbor_error_t *err)
{
    struct listen_limits lim = {
        .max_conns = LOCAL_MAX_CONNS,
        .max_unauth = LOCAL_MAX_CONNS,
        .max_unauth_peer = LOCAL_PER_UID, /* the "address" is the uid */
        .auth_timeout = LOCAL_AUTH_TIMEOUT,
        .frame_timeout = LOCAL_FRAME_TIMEOUT,
        .reserve = LOCAL_RESERVE,
        .max_uid_sessions = LOCAL_PER_UID,
        .priv_uid = nd->arbor_uid,
        .idle_timeout = LOCAL_IDLE_TIMEOUT,
        .name = "arbor-noded",
    };
    int fd;

    if (asprintf (&nd->local_path, "%s/noded.sock", nd->spool) < 0) {
        nd->local_path = NULL;
        return errprintf (err, "out of memory");
    }
    if ((fd = net_listen_unix (nd->local_path, 0666, err)) < 0)
        return -1;
    nd->local = listener_create (nd->loop, fd, NULL, &lim, &local_conn_ops,
                                 &local_listen_ops, nd);
    if (!nd->local) {
        close (fd);
        return errprintf (err, "%s: %s", nd->local_path, strerror (errno));
    }
    return 0;
}

void local_stop (struct noded *nd)
{
    if (nd->local) {
        listener_destroy (nd->local);
        nd->local = NULL;
        unlink (nd->local_path);
    }
    free (nd->local_path);
    nd->local_path = NULL;
}
