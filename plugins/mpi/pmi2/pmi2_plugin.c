/* pmi2_plugin.c - mpi/pmi2: the PMI-1 and PMI-2 wire protocols served by
 * each stepd on its tasks' PMI_FD, as Slurm's mpi/pmi2 does, so that
 * MPICH (whose simple PMI client speaks them) starts without mpiexec.
 *
 * task_env makes a socketpair per local task: the task inherits one end
 * as PMI_FD (with PMI_RANK, PMI_SIZE, PMI_JOBID); the other, nonblocking,
 * is watched by the plugin's epoll descriptor, which the stepd polls for
 * us (progress). Reads are buffered per task until a command is complete
 * (pmi2_wire.c frames it), answers queued if the task does not read them.
 * Commands are answered by pmi2_cmds.c. No threads: all of it runs on the
 * stepd's loop.
 *
 * A fence (PMI-1 barrier_in, PMI-2 kvs-fence) completes on this node
 * when every local task has entered it: the pairs put here since the
 * last one (pmi2_kvs.h) go to the step's all-gather, and when the round
 * is gathered every node's pairs are merged into the KVS and the tasks
 * are answered. Gets read the KVS only: what is not there is not found.
 *
 * task_exited says a task broke the job if it connected (sent init) and
 * did not finalize, or never connected and failed; an abort it sent
 * before it died is read first, so MPI_Abort's code wins that race.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmi2_ctx.h"
#include "pmi2_cmds.h"

/* Reads of one connection per progress call: a task that floods us
 * cannot starve the loop (epoll is level-triggered: we come back). */
#define PMI2_READS_PER_CALL 16

/* The local task of 'rank', or NULL. A node's ranks need not be
 * consecutive (srun -m cyclic): a scan of the node's few tasks. */
static struct pmi2_task *pmi2_task_of (struct pmi2_ctx *ctx, uint32_t rank)
{
    for (uint32_t i = 0; ctx->local && i < ctx->base.nlocal; i++)
        if (ctx->local[i].rank == rank)
            return &ctx->local[i];
    return NULL;
}

/* ---- connections --------------------------------------------------------- */

void pmi2_task_close (struct pmi2_ctx *ctx, struct pmi2_task *t)
{
    if (t->fd < 0)
        return;
    if (ctx->epfd >= 0)
        epoll_ctl (ctx->epfd, EPOLL_CTL_DEL, t->fd, NULL);
    close (t->fd);
    t->fd = -1;
    free (t->out);
    t->out = NULL;
    t->outlen = t->outcap = 0;
    t->epollout = false;
    t->wait_attr = false;
    t->inlen = 0;
}

static void pmi2_watch (struct pmi2_ctx *ctx, struct pmi2_task *t, bool out)
{
    struct epoll_event ev = {
        .events = EPOLLIN | (out ? EPOLLOUT : 0),
        .data.u32 = (uint32_t)(t - ctx->local),
    };

    if (epoll_ctl (ctx->epfd, EPOLL_CTL_MOD, t->fd, &ev) == 0)
        t->epollout = out;
}

/* Write what is queued, as much as the socket takes. */
static void pmi2_flush (struct pmi2_ctx *ctx, struct pmi2_task *t)
{
    while (t->fd >= 0 && t->outlen > 0) {
        ssize_t n = send (t->fd, t->out, t->outlen, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n < 0) { /* the task is gone */
            plugin_log (ctx->base.env, PLUGIN_LOG_DEBUG,
                        "PMI: rank %u: send: %s", t->rank, strerror (errno));
            pmi2_task_close (ctx, t);
            return;
        }
        memmove (t->out, t->out + n, t->outlen - (size_t)n);
        t->outlen -= (size_t)n;
    }
    if (t->fd >= 0 && (t->outlen > 0) != t->epollout)
        pmi2_watch (ctx, t, t->outlen > 0);
}

void pmi2_send (struct pmi2_ctx *ctx, struct pmi2_task *t, struct pmi_resp *r)
{
    size_t need;

    if (pmi_resp_end (r) < 0) {
        plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                    "PMI: rank %u: answer not sent: %s", t->rank,
                    strerror (errno));
        return;
    }
    if (t->fd < 0)
        return;
    need = t->outlen + r->len;
    if (need > PMI2_OUT_MAX) {
        plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                    "PMI: rank %u does not read its answers: closing its "
                    "PMI connection",
                    t->rank);
        pmi2_task_close (ctx, t);
        return;
    }
    if (need > t->outcap) {
        size_t cap = need < 4096 ? 4096 : need * 2;
        char *out = realloc (t->out, cap);
        if (!out) {
            plugin_log (ctx->base.env, PLUGIN_LOG_ERR,
                        "PMI: rank %u: out of memory: closing its PMI "
                        "connection",
                        t->rank);
            pmi2_task_close (ctx, t);
            return;
        }
        t->out = out;
        t->outcap = cap;
    }
    memcpy (t->out + t->outlen, r->buf, r->len);
    t->outlen = need;
    pmi2_flush (ctx, t);
}

/* Handle every complete command in t's buffer; keep the rest. A framing
 * error loses the stream: the connection is closed. */
static void pmi2_task_parse (struct pmi2_ctx *ctx, struct pmi2_task *t)
{
    struct pmi_cmd c;
    arbor_error_t err;
    size_t off = 0;
    ssize_t n = 0;

    while (t->fd >= 0
           && (n = pmi_wire_frame (t->proto, t->in + off, t->inlen - off))
                  > 0) {
        if (pmi_wire_parse (t->proto, t->in + off, (size_t)n, &c, &err) < 0) {
            plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                        "PMI: rank %u: malformed command: %s", t->rank,
                        err.text);
            pmi2_reply_error (ctx, t, NULL, err.text);
        } else
            pmi2_cmd_handle (ctx, t, &c);
        off += (size_t)n;
    }
    if (t->fd < 0)
        return;
    if (n < 0) {
        plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                    "PMI: rank %u: %s: closing its PMI connection", t->rank,
                    errno == EMSGSIZE ? "command too long"
                                      : "bad PMI-2 length prefix");
        pmi2_task_close (ctx, t);
        return;
    }
    memmove (t->in, t->in + off, t->inlen - off);
    t->inlen -= off;
}

/* Read and handle what t sent; at EOF (the task closed PMI_FD or died)
 * close our end. */
static void pmi2_task_read (struct pmi2_ctx *ctx, struct pmi2_task *t)
{
    for (int i = 0; i < PMI2_READS_PER_CALL && t->fd >= 0; i++) {
        ssize_t n =
            recv (t->fd, t->in + t->inlen, sizeof (t->in) - t->inlen, 0);
        if (n > 0) {
            t->inlen += (size_t)n;
            pmi2_task_parse (ctx, t);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (t->inlen > 0)
            plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                        "PMI: rank %u: connection ended inside a command",
                        t->rank);
        pmi2_task_close (ctx, t);
    }
}

static void pmi2_progress (void *arg)
{
    struct pmi2_ctx *ctx = arg;
    struct epoll_event evs[16];
    int n;

    if (ctx->epfd < 0)
        return;
    while ((n = epoll_wait (ctx->epfd, evs, 16, 0)) < 0 && errno == EINTR)
        ;
    for (int i = 0; i < n; i++) {
        struct pmi2_task *t = evs[i].data.u32 < ctx->base.nlocal
                                  ? &ctx->local[evs[i].data.u32]
                                  : NULL;
        if (!t || t->fd < 0)
            continue;
        if (evs[i].events & EPOLLOUT)
            pmi2_flush (ctx, t);
        if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
            pmi2_task_read (ctx, t);
    }
}

/* ---- fences -------------------------------------------------------------- */

/* Answer every task waiting in the fence; the next one may start. */
static void pmi2_fence_done (struct pmi2_ctx *ctx, int rc, const char *msg)
{
    ctx->nfence = 0;
    ctx->fence_sent = false;
    for (uint32_t i = 0; i < ctx->base.nlocal; i++) {
        struct pmi2_task *t = &ctx->local[i];
        if (t->in_fence) {
            t->in_fence = false;
            pmi2_fence_reply (ctx, t, rc, msg);
        }
    }
}

void pmi2_fence_enter (struct pmi2_ctx *ctx, struct pmi2_task *t)
{
    const void *blob;
    size_t len = 0;
    int64_t seq = -1;

    t->in_fence = true;
    if (++ctx->nfence < ctx->base.nlocal)
        return;
    if ((blob = pmi_batch_seal (&ctx->batch, &len)))
        seq = mpi_host_allgather (&ctx->base, blob, len);
    plugin_log (ctx->base.env, PLUGIN_LOG_DEBUG,
                "PMI fence %lld: %zu pairs of this node, %zu bytes",
                (long long)seq, ctx->batch.npairs, len);
    pmi_batch_reset (&ctx->batch);
    if (seq < 0) {
        plugin_log (ctx->base.env, PLUGIN_LOG_ERR, "PMI fence: %s",
                    strerror (errno));
        pmi2_fence_done (ctx, -1, "fence failed");
        return;
    }
    ctx->fence_sent = true;
    ctx->fence_seq = seq;
}

static void pmi2_gathered (void *arg, int64_t seq, const void *data, size_t len,
                           int errnum)
{
    struct pmi2_ctx *ctx = arg;
    size_t nodes = 0;

    if (!ctx->fence_sent || seq != ctx->fence_seq)
        return;
    if (errnum) {
        plugin_log (ctx->base.env, PLUGIN_LOG_ERR, "PMI fence %lld: %s",
                    (long long)seq, strerror (errnum));
        pmi2_fence_done (ctx, -1, "a node could not be reached");
        return;
    }
    if (pmi_kvs_merge (ctx->kvs, data, len, &nodes) < 0) {
        plugin_log (ctx->base.env, PLUGIN_LOG_ERR, "PMI fence %lld: %s",
                    (long long)seq,
                    errno == EPROTO ? "malformed data from the other nodes"
                                    : strerror (errno));
        pmi2_fence_done (ctx, -1, "fence data could not be merged");
        return;
    }
    plugin_log (ctx->base.env, PLUGIN_LOG_DEBUG,
                "PMI fence %lld done: %zu nodes, %zu keys", (long long)seq,
                nodes, pmi_kvs_count (ctx->kvs));
    pmi2_fence_done (ctx, 0, NULL);
}

/* No direct messages between the plugins: gets are answered locally. */
static void pmi2_recv (void *arg, uint32_t from, const void *data, size_t len)
{
    struct pmi2_ctx *ctx = arg;

    plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                "PMI: unexpected message of %zu bytes from node %u", len, from);
}

/* ---- the ops ------------------------------------------------------------- */

static int pmi2_init (const struct plugin_env *env, void **ctxp,
                      arbor_error_t *err)
{
    struct pmi2_ctx *ctx = mpi_base_create (sizeof (*ctx), env, err);

    if (!ctx)
        return -1;
    ctx->epfd = -1;
    *ctxp = ctx;
    return 0;
}

/* Copy the step, and make what serves it. */
static int pmi2_setup (struct pmi2_ctx *ctx, const struct mpi_step *s)
{
    char map[PMI_MAX_VALLEN + 1];

    snprintf (ctx->jobid, sizeof (ctx->jobid), "%u.%u", s->job_id, s->step_id);
    pmi_batch_init (&ctx->batch, PMI2_BATCH_MAX);
    if (!(ctx->local = calloc (s->nlocal ? s->nlocal : 1, sizeof (*ctx->local)))
        || !(ctx->kvs = pmi_kvs_create (PMI2_KVS_MAX))
        || !(ctx->attrs = pmi_kvs_create (PMI2_NODEATTR_MAX)))
        return -1;
    for (uint32_t i = 0; i < s->nlocal; i++) {
        ctx->local[i].rank = s->local_ranks[i];
        ctx->local[i].fd = ctx->local[i].task_fd = -1;
    }
    /* Too long a mapping (many uneven nodes) is left out: MPICH then
     * finds the nodes from the hosts' names. PMI-1 clients read it from
     * the KVS, as from Slurm's. */
    if (pmi_wire_mapping_ranks (map, sizeof (map), s->tasks, s->nnodes,
                                s->ranks)
        == 0) {
        if (!(ctx->mapping = strdup (map))
            || pmi_kvs_put (ctx->kvs, "PMI_process_mapping", map) < 0)
            return -1;
    } else
        plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                    "PMI_process_mapping of %u nodes does not fit a PMI "
                    "value: left out",
                    s->nnodes);
    return 0;
}

static int pmi2_prepare (void *arg, const struct mpi_step *s,
                         const struct mpi_host *host, arbor_error_t *err)
{
    struct pmi2_ctx *ctx = arg;

    mpi_base_prepare (&ctx->base, s, host);
    if (pmi2_setup (ctx, s) < 0) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    if ((ctx->epfd = epoll_create1 (EPOLL_CLOEXEC)) < 0)
        return errprintf (err, "epoll_create1: %s", strerror (errno));
    ctx->prepared = true;
    plugin_log (ctx->base.env, PLUGIN_LOG_DEBUG,
                "PMI: step %s, %u of %u ranks here (first %u), mapping %s",
                ctx->jobid, ctx->base.nlocal, ctx->base.ntasks,
                ctx->base.nlocal ? ctx->local[0].rank : 0,
                ctx->mapping ? ctx->mapping : "(none)");
    return 0;
}

/* PMI_FD, PMI_RANK, PMI_SIZE, PMI_JOBID: what Slurm's mpi/pmi2 sets
 * (PMI_SPAWNED only for spawned steps, which Arbor has not). A
 * NULL-terminated array, or NULL. */
static char **pmi2_vars (const struct pmi2_ctx *ctx, uint32_t rank, int fd)
{
    char **v = NULL;

    if (mpi_env_add (&v, "PMI_FD", "%d", fd) < 0
        || mpi_env_add (&v, "PMI_RANK", "%u", rank) < 0
        || mpi_env_add (&v, "PMI_SIZE", "%u", ctx->base.ntasks) < 0
        || mpi_env_add (&v, "PMI_JOBID", "%s", ctx->jobid) < 0) {
        mpi_env_free (v);
        return NULL;
    }
    return v;
}

static int pmi2_task_env (void *arg, uint32_t rank, char ***vars, int *keep_fd,
                          arbor_error_t *err)
{
    struct pmi2_ctx *ctx = arg;
    struct pmi2_task *t = pmi2_task_of (ctx, rank);
    struct epoll_event ev = { .events = EPOLLIN };
    int sv[2];
    char **v;

    mpi_task_env_clear (vars, keep_fd);
    if (!t || !ctx->prepared) {
        errno = EINVAL;
        return errprintf (err, "rank %u does not run on this node", rank);
    }
    if (t->fd >= 0 || t->task_fd >= 0) {
        errno = EBUSY;
        return errprintf (err, "rank %u has its PMI connection already", rank);
    }
    if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return errprintf (err, "socketpair: %s", strerror (errno));
    ev.data.u32 = (uint32_t)(t - ctx->local);
    if (fcntl (sv[0], F_SETFL, O_NONBLOCK) < 0
        || epoll_ctl (ctx->epfd, EPOLL_CTL_ADD, sv[0], &ev) < 0) {
        int e = errno;
        close (sv[0]);
        close (sv[1]);
        errno = e;
        return errprintf (err, "PMI connection of rank %u: %s", rank,
                          strerror (e));
    }
    if (!(v = pmi2_vars (ctx, rank, sv[1]))) {
        epoll_ctl (ctx->epfd, EPOLL_CTL_DEL, sv[0], NULL);
        close (sv[0]);
        close (sv[1]);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    t->fd = sv[0];
    t->task_fd = sv[1];
    *keep_fd = sv[1];
    *vars = v;
    return 0;
}

/* The task has its end of the socketpair (or never will: pid 0). */
static void pmi2_task_started (void *arg, uint32_t rank, pid_t pid)
{
    struct pmi2_ctx *ctx = arg;
    struct pmi2_task *t = pmi2_task_of (ctx, rank);

    if (!t)
        return;
    if (t->task_fd >= 0) {
        close (t->task_fd);
        t->task_fd = -1;
    }
    if (pid == 0)
        pmi2_task_close (ctx, t);
}

static int pmi2_poll_fd (void *arg)
{
    return ((struct pmi2_ctx *)arg)->epfd;
}

static bool pmi2_task_exited (void *arg, uint32_t rank, int status, char *why,
                              size_t whylen)
{
    struct pmi2_ctx *ctx = arg;
    struct pmi2_task *t = pmi2_task_of (ctx, rank);

    if (!t)
        return false;
    /* What it sent before it died: an abort may be there (MPICH's
     * MPI_Abort sends it, and the task is killed or exits at once). */
    pmi2_task_read (ctx, t);
    if (t->aborted)
        return false; /* its abort ends the step, with its code */
    return mpi_task_breaks_job (rank, status, t->connected, t->finalized, why,
                                whylen);
}

/* Close every connection and free the step's state; idempotent. */
static void pmi2_finish (void *arg)
{
    struct pmi2_ctx *ctx = arg;

    for (uint32_t i = 0; ctx->local && i < ctx->base.nlocal; i++) {
        struct pmi2_task *t = &ctx->local[i];
        pmi2_task_close (ctx, t);
        if (t->task_fd >= 0) {
            close (t->task_fd);
            t->task_fd = -1;
        }
    }
    if (ctx->epfd >= 0) {
        close (ctx->epfd);
        ctx->epfd = -1;
    }
    pmi_kvs_destroy (ctx->kvs);
    pmi_kvs_destroy (ctx->attrs);
    ctx->kvs = ctx->attrs = NULL;
    pmi_batch_free (&ctx->batch);
    ctx->nfence = 0;
    ctx->fence_sent = false;
    ctx->prepared = false;
}

static void pmi2_fini (void *arg)
{
    struct pmi2_ctx *ctx = arg;

    if (!ctx)
        return;
    pmi2_finish (ctx);
    free (ctx->local);
    free (ctx->mapping);
    free (ctx);
}

static const struct mpi_ops mpi_pmi2_ops = {
    .init = pmi2_init,
    .fini = pmi2_fini,
    .prepare = pmi2_prepare,
    .task_env = pmi2_task_env,
    .task_started = pmi2_task_started,
    .poll_fd = pmi2_poll_fd,
    .progress = pmi2_progress,
    .gathered = pmi2_gathered,
    .recv = pmi2_recv,
    .task_exited = pmi2_task_exited,
    .finish = pmi2_finish,
};

ARBOR_PLUGIN_EXPORT const struct arbor_plugin arbor_plugin =
    MPI_PLUGIN ("pmi2", mpi_pmi2_ops);
