/* pmix_plugin.c - mpi/pmix: a PMIx server in each stepd.
 *
 * prepare starts the server (PMIx_server_init, its files in the step's
 * MPI directory) and registers the step's namespace (pmix_nspace.c);
 * task_env registers each local task as a client and gives it the
 * variables of PMIx_server_setup_fork, which is all Open MPI needs to
 * start without mpirun. What the clients ask the server for that crosses
 * nodes comes to the loop thread as events (pmix_upcall.c) and is done
 * with the stepd's services:
 *   fence_nb      an all-gather round (coll.c); its result, every node's
 *                 data concatenated, is what PMIx expects back;
 *   direct_modex  a request to the node that runs the rank (host send),
 *                 whose plugin asks its server (PMIx_server_dmodex_request)
 *                 and sends the answer back;
 *   abort         the step's abort, with the client's status and message.
 * task_exited says a task broke the job if it connected and did not
 * finalize, or never connected and failed. The cross-node half (events,
 * fences, modex requests) is pmix_exchange.c.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmix_ctx.h"
#include "pmix_exchange.h"
#include "pmix_nspace.h"
#include "pmix_topo.h"
#include "pmix_upcall.h"

/* ---- the ops ------------------------------------------------------------ */

static int pmix_init (const struct plugin_env *env, void **ctxp,
                      arbor_error_t *err)
{
    struct pmix_ctx *ctx = mpi_base_create (sizeof (*ctx), env, err);

    if (!ctx)
        return -1;
    ctx->efd = -1;
    pthread_mutex_init (&ctx->lock, NULL);
    ctx->evs_tail = &ctx->evs;
    *ctxp = ctx;
    return 0;
}

/* Each rank's node and local index, from the ranks node by node. */
static void pmix_index_ranks (struct pmix_ctx *ctx)
{
    uint32_t at = 0;

    for (uint32_t n = 0; n < ctx->base.nnodes; n++) {
        if (n == ctx->base.node_id)
            ctx->local_first = at;
        for (uint32_t k = 0; k < ctx->tasks[n]; k++, at++) {
            ctx->node_of[ctx->ranks[at]] = n;
            ctx->local_of[ctx->ranks[at]] = k;
        }
    }
}

/* Copy what the plugin keeps of the step. */
static int pmix_copy_step (struct pmix_ctx *ctx, const struct mpi_step *s)
{
    size_t nt = s->ntasks ? s->ntasks : 1;

    ctx->uid = s->uid;
    ctx->gid = s->gid;
    ctx->shared_host = s->shared_host;
    snprintf (ctx->nspace, sizeof (ctx->nspace), "arbor.%u.%u", s->job_id,
              s->step_id);
    if (!(ctx->tmpdir = strdup (s->tmpdir))
        || !(ctx->srvdir = strdup (s->srvdir))
        || !(ctx->nodes = calloc (s->nnodes, sizeof (char *)))
        || !(ctx->tasks = calloc (s->nnodes, sizeof (uint32_t)))
        || !(ctx->ranks = calloc (nt, sizeof (uint32_t)))
        || !(ctx->node_of = calloc (nt, sizeof (uint32_t)))
        || !(ctx->local_of = calloc (nt, sizeof (uint32_t)))
        || !(ctx->local =
                 calloc (s->nlocal ? s->nlocal : 1, sizeof (*ctx->local))))
        return -1;
    for (uint32_t i = 0; i < s->nnodes; i++) {
        if (!(ctx->nodes[i] = strdup (s->nodes[i])))
            return -1;
        ctx->tasks[i] = s->tasks[i];
    }
    memcpy (ctx->ranks, s->ranks, s->ntasks * sizeof (uint32_t));
    pmix_index_ranks (ctx);
    return 0;
}

struct pmix_kv {
    const char *key;
    const void *val;
    pmix_data_type_t type;
};

/* The server's settings as a PMIx info array in *arr. */
static pmix_status_t pmix_info_array (const struct pmix_kv *kv, size_t n,
                                      pmix_data_array_t *arr)
{
    void *list = PMIx_Info_list_start ();
    pmix_status_t rc = list ? PMIX_SUCCESS : PMIX_ERR_NOMEM;

    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++)
        rc = PMIx_Info_list_add (list, kv[i].key, kv[i].val, kv[i].type);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Info_list_convert (list, arr);
    if (list)
        PMIx_Info_list_release (list);
    return rc;
}

/* libmunge's own socket: the one PMIx's psec/munge talks to (it gives
 * libmunge no other), in the server and in the clients alike. */
#define PMIX_MUNGE_DEFAULT_SOCKET "/run/munge/munge.socket.2"

/* Do paths a and b name one socket (the same name, or the same file:
 * arbor local links the default socket to its munged's)? */
static bool pmix_same_socket (const char *a, const char *b)
{
    struct stat sa, sb;

    if (!strcmp (a, b))
        return true;
    return stat (a, &sa) == 0 && stat (b, &sb) == 0 && sa.st_dev == sb.st_dev
           && sa.st_ino == sb.st_ino;
}

/* How the server authenticates its clients (PMIx's psec): "munge" unless
 * MpiParams=pmix_psec=native says otherwise, or the cluster's munged is
 * not on libmunge's default socket (MungeSocket elsewhere), which PMIx
 * cannot reach. Over TCP, PMIx 4's only transport, "native" believes the
 * uid and gid the client claims: any local user can then join the step
 * as one of its ranks (docs/mpi.md). */
static const char *pmix_psec_choose (struct pmix_ctx *ctx)
{
    const char *params =
        ctx->base.env->conf_get
            ? ctx->base.env->conf_get (ctx->base.env->arg, "MpiParams")
            : NULL;
    const char *sock =
        ctx->base.env->conf_get
            ? ctx->base.env->conf_get (ctx->base.env->arg, "MungeSocket")
            : NULL;
    const char *p = params ? strstr (params, "pmix_psec=") : NULL;

    if (p) {
        p += strlen ("pmix_psec=");
        if (!strncmp (p, "munge", 5) && (!p[5] || p[5] == ','))
            return "munge";
        if (!strncmp (p, "native", 6) && (!p[6] || p[6] == ','))
            return "native";
        plugin_log (ctx->base.env, PLUGIN_LOG_ERR,
                    "MpiParams: pmix_psec=%.20s is neither munge nor native: "
                    "munge it is",
                    p);
        return "munge";
    }
    if (sock && *sock && !pmix_same_socket (sock, PMIX_MUNGE_DEFAULT_SOCKET)
        && !pmix_same_socket (sock, "/var" PMIX_MUNGE_DEFAULT_SOCKET)) {
        plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                    "MungeSocket=%s is not libmunge's default socket, which "
                    "is the only one PMIx can use: PMIx clients are not "
                    "authenticated (psec native) on this node",
                    sock);
        return "native";
    }
    return "munge";
}

/* The server, its files in the step's server directory (root's: the
 * stepd seals it after prepare): several stepds of one host (emulated
 * nodes, or steps side by side) never share them, and the job's user can
 * plant no link where the server creates or removes files. */
static int pmix_server_start (struct pmix_ctx *ctx, arbor_error_t *err)
{
    uint32_t uid = ctx->uid, gid = ctx->gid;
    bool no = false;
    pmix_topology_t topo = { .source = "hwloc", .topology = ctx->topo };
    const struct pmix_kv kv[] = {
        { PMIX_SERVER_TMPDIR, ctx->srvdir, PMIX_STRING },
        { PMIX_SYSTEM_TMPDIR, ctx->srvdir, PMIX_STRING },
        /* the clients' identity: PMIx gives them its shared-memory
         * store */
        { PMIX_USERID, &uid, PMIX_UINT32 },
        { PMIX_GRPID, &gid, PMIX_UINT32 },
        /* node-level keys are filed under the server's host name: each
         * emulated node of a host needs its own */
        { PMIX_HOSTNAME, ctx->nodes[ctx->base.node_id], PMIX_STRING },
        { PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL },
        /* ours (pmix_topo.c): PMIx's own discovery costs 13-100 ms */
        { PMIX_TOPOLOGY2, &topo, PMIX_TOPO },
    };
    pmix_data_array_t arr = { 0 };
    pmix_status_t rc;

    /* PMIx reads its MCA parameters from the environment at init: only
     * the chosen psec component is then available to a connecting client
     * (the server takes the one the client names). */
    ctx->psec = pmix_psec_choose (ctx);
    if (setenv ("PMIX_MCA_psec", ctx->psec, 1) < 0)
        return errprintf (err, "setenv: %s", strerror (errno));
    if ((rc = pmix_info_array (kv, sizeof (kv) / sizeof (kv[0]), &arr))
        == PMIX_SUCCESS) {
        pmix_upcall_bind (ctx);
        rc = PMIx_server_init (&pmix_arbor_module, arr.array, arr.size);
        PMIx_Data_array_destruct (&arr);
    }
    if (rc != PMIX_SUCCESS) {
        errno = EIO;
        return errprintf (err, "PMIx_server_init (psec %s%s): %s", ctx->psec,
                          strcmp (ctx->psec, "munge")
                              ? ""
                              : ", needs munged on " PMIX_MUNGE_DEFAULT_SOCKET,
                          PMIx_Error_string (rc));
    }
    ctx->server_up = true;
    return 0;
}

static int pmix_prepare (void *arg, const struct mpi_step *s,
                         const struct mpi_host *host, arbor_error_t *err)
{
    struct pmix_ctx *ctx = arg;

    mpi_base_prepare (&ctx->base, s, host);
    if (pmix_copy_step (ctx, s) < 0) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    if ((ctx->efd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
        return errprintf (err, "eventfd: %s", strerror (errno));
    if (pmix_topo_load (ctx, err) < 0 || pmix_server_start (ctx, err) < 0
        || pmix_nspace_register (ctx, err) < 0)
        return -1;
    return 0;
}

static int pmix_task_env (void *arg, uint32_t rank, char ***vars, int *keep_fd,
                          arbor_error_t *err)
{
    struct pmix_ctx *ctx = arg;
    pmix_proc_t proc;
    pmix_status_t rc;
    char **env = NULL;

    mpi_task_env_clear (vars, keep_fd);
    if (pmix_client_register (ctx, rank, err) < 0)
        return -1;
    PMIX_PROC_LOAD (&proc, ctx->nspace, rank);
    if ((rc = PMIx_server_setup_fork (&proc, &env)) != PMIX_SUCCESS) {
        mpi_env_free (env);
        errno = EIO;
        return errprintf (err, "PMIx_server_setup_fork (rank %u): %s", rank,
                          PMIx_Error_string (rc));
    }
    /* Open MPI names its shared-memory segments (btl/vader, in
     * /dev/shm) after the host: ranks of two emulated nodes with the
     * same local rank would share one. Keep them in the node's step
     * directory instead. The client's psec is the server's (PMIx also
     * says so in PMIX_SECURITY_MODE). */
    if ((ctx->shared_host
         && mpi_env_add (&env, "OMPI_MCA_btl_vader_backing_directory", "%s",
                         ctx->tmpdir)
                < 0)
        || mpi_env_add (&env, "PMIX_MCA_psec", "%s", ctx->psec) < 0) {
        mpi_env_free (env);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    *vars = env;
    return 0;
}

static int pmix_poll_fd (void *arg)
{
    return ((struct pmix_ctx *)arg)->efd;
}

static bool pmix_task_exited (void *arg, uint32_t rank, int status, char *why,
                              size_t whylen)
{
    struct pmix_ctx *ctx = arg;
    struct pmix_task t = { 0 };
    int64_t k = pmix_rank_local (ctx, rank);

    if (k < 0)
        return false;
    pthread_mutex_lock (&ctx->lock);
    t = ctx->local[k];
    pthread_mutex_unlock (&ctx->lock);
    return mpi_task_breaks_job (rank, status, t.connected, t.finalized, why,
                                whylen);
}

/* Did every client that connected finalize? */
static bool pmix_clients_clean (struct pmix_ctx *ctx)
{
    bool clean = true;

    pthread_mutex_lock (&ctx->lock);
    for (uint32_t i = 0; i < ctx->base.nlocal; i++)
        if (ctx->local[i].connected && !ctx->local[i].finalized)
            clean = false;
    pthread_mutex_unlock (&ctx->lock);
    return clean;
}

/* PMIx_server_finalize, on a thread of its own, awaited at most
 * PMIX_FINISH_TIMEOUT s: it stops PMIx's thread, which a connection that
 * sends nothing may hold (pmix_nspace.c). 0 if it returned in time; else
 * -1, and the thread is left to the stepd's exit. */
struct pmix_fin {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done, abandoned;
};

static void *pmix_fin_thread (void *arg)
{
    struct pmix_fin *f = arg;
    bool abandoned;

    PMIx_server_finalize ();
    pthread_mutex_lock (&f->lock);
    f->done = true;
    if (!(abandoned = f->abandoned))
        pthread_cond_signal (&f->cond);
    pthread_mutex_unlock (&f->lock);
    if (abandoned)
        free (f);
    return NULL;
}

static int pmix_server_stop (void)
{
    struct pmix_fin *f = calloc (1, sizeof (*f));
    struct timespec until;
    pthread_t t;
    bool done;

    if (!f)
        return -1;
    pthread_mutex_init (&f->lock, NULL);
    pthread_cond_init (&f->cond, NULL);
    if (pthread_create (&t, NULL, pmix_fin_thread, f) != 0) {
        free (f);
        return -1;
    }
    pthread_detach (t);
    clock_gettime (CLOCK_REALTIME, &until);
    until.tv_sec += PMIX_FINISH_TIMEOUT;
    pthread_mutex_lock (&f->lock);
    while (!f->done)
        if (pthread_cond_timedwait (&f->cond, &f->lock, &until) == ETIMEDOUT)
            break;
    if (!(done = f->done))
        f->abandoned = true;
    pthread_mutex_unlock (&f->lock);
    if (done)
        free (f);
    return done ? 0 : -1;
}

/* The namespace goes first (PMIx drops its clients, and the fences and
 * modex requests still waiting for the other nodes), then the server
 * with its thread, each awaited a bounded time: no client, nor any
 * local user connecting to the port, can hold the step's end. When
 * clients died in the middle (the step was aborted),
 * PMIx_server_finalize may wait forever for a lock its thread left held
 * (seen with clients killed in a fence), and when PMIx's thread did not
 * answer in time: then the server is left to the stepd's exit, which is
 * near, and the step's directories are removed by the stepd all the
 * same. */
static void pmix_finish (void *arg)
{
    struct pmix_ctx *ctx = arg;
    bool clean = pmix_clients_clean (ctx);

    pmix_waits_free (ctx);
    if (!clean || ctx->stuck) {
        plugin_log (ctx->base.env, PLUGIN_LOG_DEBUG,
                    "%s: the PMIx server ends with the stepd",
                    ctx->stuck ? "PMIx's thread did not answer in time"
                               : "clients died before PMIx_Finalize");
        return;
    }
    if (ctx->nspace_up && pmix_nspace_deregister (ctx) < 0) {
        plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                    "PMIx did not deregister the step within %d s (a "
                    "connection to its port holds it?): the PMIx server ends "
                    "with the stepd",
                    PMIX_FINISH_TIMEOUT);
        return;
    }
    ctx->nspace_up = false;
    if (ctx->server_up && pmix_server_stop () < 0) {
        ctx->stuck = true;
        plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                    "PMIx_server_finalize did not return within %d s: the "
                    "PMIx server ends with the stepd",
                    PMIX_FINISH_TIMEOUT);
        return;
    }
    ctx->server_up = false;
    /* What the thread posted before it ended is moot now. */
    for (struct pmix_ev *ev = pmix_ev_take (ctx), *next; ev; ev = next) {
        next = ev->next;
        pmix_ev_free (ev);
    }
    pmix_upcall_bind (NULL);
}

static void pmix_fini (void *arg)
{
    struct pmix_ctx *ctx = arg;

    if (!ctx)
        return;
    if (ctx->server_up)
        pmix_finish (ctx);
    if (ctx->server_up)
        return; /* its thread still uses ctx: both end with the stepd */
    for (uint32_t i = 0; ctx->nodes && i < ctx->base.nnodes; i++)
        free (ctx->nodes[i]);
    free (ctx->nodes);
    free (ctx->tasks);
    free (ctx->ranks);
    free (ctx->node_of);
    free (ctx->local_of);
    free (ctx->local);
    free (ctx->tmpdir);
    free (ctx->srvdir);
    pmix_topo_free (ctx);
    while (ctx->evs) {
        struct pmix_ev *ev = ctx->evs;
        ctx->evs = ev->next;
        pmix_ev_free (ev);
    }
    if (ctx->efd >= 0)
        close (ctx->efd);
    pthread_mutex_destroy (&ctx->lock);
    free (ctx);
}

static const struct mpi_ops mpi_pmix_ops = {
    .init = pmix_init,
    .fini = pmix_fini,
    .prepare = pmix_prepare,
    .task_env = pmix_task_env,
    .poll_fd = pmix_poll_fd,
    .progress = pmix_progress,
    .gathered = pmix_gathered,
    .recv = pmix_recv,
    .task_exited = pmix_task_exited,
    .finish = pmix_finish,
};

ARBOR_PLUGIN_EXPORT const struct arbor_plugin arbor_plugin =
    MPI_PLUGIN ("pmix", mpi_pmix_ops);
