/* pmix_nspace.c - the step's namespace: what the clients learn at start.
 *
 * One namespace per step ("arbor.<job>.<step>"), registered in every
 * stepd's server with the whole step in it: the job (sizes, application
 * number, the nodes and which ranks each runs, as PMIx's regular
 * expressions), this node (its name, index, local peers and leader, the
 * step's directory) and, for every rank, its node, its local and node
 * rank and its application rank. That is what Open MPI's direct launch
 * reads in MPI_Init (its ess/pmi component): without the local peers
 * and the maps it cannot tell which ranks share a node. The ranks of a
 * node are those srun -m gave it (ctx->ranks), not always consecutive.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmix_ctx.h"
#include "pmix_nspace.h"

uint32_t pmix_rank_node (const struct pmix_ctx *ctx, uint32_t rank)
{
    return rank < ctx->base.ntasks ? ctx->node_of[rank] : ctx->base.nnodes;
}

int64_t pmix_rank_local (const struct pmix_ctx *ctx, uint32_t rank)
{
    if (rank >= ctx->base.ntasks || ctx->node_of[rank] != ctx->base.node_id)
        return -1;
    return ctx->local_of[rank];
}

/* "a,b,c" of the step's nodes, and "0,1;2,3" of their ranks, for
 * PMIx_generate_regex and PMIx_generate_ppn. Caller frees; NULL on
 * ENOMEM. */
static char *pmix_node_csv (const struct pmix_ctx *ctx)
{
    size_t len = 1;
    char *s, *p;

    for (uint32_t i = 0; i < ctx->base.nnodes; i++)
        len += strlen (ctx->nodes[i]) + 1;
    if (!(s = p = malloc (len)))
        return NULL;
    for (uint32_t i = 0; i < ctx->base.nnodes; i++)
        p += sprintf (p, "%s%s", i ? "," : "", ctx->nodes[i]);
    *p = '\0';
    return s;
}

static char *pmix_ppn_csv (const struct pmix_ctx *ctx)
{
    size_t len = (size_t)ctx->base.ntasks * 11 + ctx->base.nnodes + 1;
    char *s, *p;
    uint32_t r = 0;

    if (!(s = p = malloc (len)))
        return NULL;
    *p = '\0';
    for (uint32_t i = 0; i < ctx->base.nnodes; i++) {
        if (i)
            *p++ = ';';
        for (uint32_t k = 0; k < ctx->tasks[i]; k++, r++)
            p += sprintf (p, "%s%u", k ? "," : "", ctx->ranks[r]);
    }
    *p = '\0';
    return s;
}

/* This node's ranks, "4,5,6". */
static char *pmix_local_peers (const struct pmix_ctx *ctx)
{
    char *s = malloc ((size_t)ctx->base.nlocal * 11 + 1), *p = s;

    if (!s)
        return NULL;
    *p = '\0';
    for (uint32_t k = 0; k < ctx->base.nlocal; k++)
        p +=
            sprintf (p, "%s%u", k ? "," : "", ctx->ranks[ctx->local_first + k]);
    return s;
}

#define ADD(list, key, val, type)                                              \
    do {                                                                       \
        if (PMIx_Info_list_add ((list), (key), (val), (type)) != PMIX_SUCCESS) \
            goto nomem;                                                        \
    } while (0)

/* The per-rank data of every rank of the step. */
static int pmix_add_procs (struct pmix_ctx *ctx, void *list)
{
    uint32_t at = 0, appnum = 0;

    for (uint32_t n = 0; n < ctx->base.nnodes; n++) {
        for (uint32_t k = 0; k < ctx->tasks[n]; k++, at++) {
            void *proc = PMIx_Info_list_start ();
            pmix_data_array_t arr = { 0 };
            pmix_rank_t r = ctx->ranks[at];
            uint16_t local = (uint16_t)k;
            pmix_status_t rc;
            if (!proc)
                return -1;
            ADD (proc, PMIX_RANK, &r, PMIX_PROC_RANK);
            ADD (proc, PMIX_APPNUM, &appnum, PMIX_UINT32);
            ADD (proc, PMIX_APP_RANK, &r, PMIX_PROC_RANK);
            ADD (proc, PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK);
            ADD (proc, PMIX_LOCAL_RANK, &local, PMIX_UINT16);
            ADD (proc, PMIX_NODE_RANK, &local, PMIX_UINT16);
            ADD (proc, PMIX_NODEID, &n, PMIX_UINT32);
            ADD (proc, PMIX_HOSTNAME, ctx->nodes[n], PMIX_STRING);
            rc = PMIx_Info_list_convert (proc, &arr);
            PMIx_Info_list_release (proc);
            if (rc != PMIX_SUCCESS)
                return -1;
            rc = PMIx_Info_list_add (list, PMIX_PROC_DATA, &arr,
                                     PMIX_DATA_ARRAY);
            PMIx_Data_array_destruct (&arr);
            if (rc != PMIX_SUCCESS)
                return -1;
            continue;
        nomem:
            PMIx_Info_list_release (proc);
            return -1;
        }
    }
    return 0;
}

/* Job and node level. The regular expressions are PMIx's own. */
static int pmix_add_job (struct pmix_ctx *ctx, void *list, char *node_map,
                         char *proc_map, char *peers)
{
    uint32_t size = ctx->base.ntasks, zero = 0, nlocal = ctx->base.nlocal;
    uint32_t nnodes = ctx->base.nnodes, node = ctx->base.node_id;
    pmix_rank_t leader = nlocal ? ctx->ranks[ctx->local_first] : 0;

    ADD (list, PMIX_JOBID, ctx->nspace, PMIX_STRING);
    ADD (list, PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    ADD (list, PMIX_JOB_SIZE, &size, PMIX_UINT32);
    ADD (list, PMIX_MAX_PROCS, &size, PMIX_UINT32);
    ADD (list, PMIX_APP_SIZE, &size, PMIX_UINT32);
    ADD (list, PMIX_APPNUM, &zero, PMIX_UINT32);
    ADD (list, PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
    ADD (list, PMIX_NODE_MAP, node_map, PMIX_REGEX);
    ADD (list, PMIX_PROC_MAP, proc_map, PMIX_REGEX);
    ADD (list, PMIX_HOSTNAME, ctx->nodes[node], PMIX_STRING);
    ADD (list, PMIX_NODEID, &node, PMIX_UINT32);
    ADD (list, PMIX_LOCAL_SIZE, &nlocal, PMIX_UINT32);
    ADD (list, PMIX_NODE_SIZE, &nlocal, PMIX_UINT32);
    ADD (list, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    ADD (list, PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
    ADD (list, PMIX_TMPDIR, ctx->tmpdir, PMIX_STRING);
    ADD (list, PMIX_NSDIR, ctx->tmpdir, PMIX_STRING);
    /* Open MPI loads this instead of discovering the node again */
    if (ctx->topo_xml)
        ADD (list, PMIX_HWLOC_XML_V2, ctx->topo_xml, PMIX_STRING);
    return 0;
nomem:
    return -1;
}

/* A registration PMIx's thread completes, awaited by the loop thread for
 * a bounded time: PMIx 4 reads a new connection's first message on its
 * one thread, blocking, so a peer that connects and sends nothing (any
 * local user can reach the port) holds every call we make until it
 * closes. A wait that gives up leaves the record to the callback, which
 * may still come (the 'abandoned' flag, under the lock). */
struct pmix_done {
    pthread_mutex_t *lock;
    pthread_cond_t cond;
    bool done, abandoned;
    pmix_status_t status;
};

static struct pmix_done *pmix_done_new (struct pmix_ctx *ctx)
{
    struct pmix_done *d = calloc (1, sizeof (*d));

    if (d) {
        d->lock = &ctx->lock;
        pthread_cond_init (&d->cond, NULL);
    }
    return d;
}

static void pmix_done_free (struct pmix_done *d)
{
    pthread_cond_destroy (&d->cond);
    free (d);
}

static void pmix_registered_cb (pmix_status_t status, void *cbdata)
{
    struct pmix_done *d = cbdata;
    bool abandoned;

    pthread_mutex_lock (d->lock);
    d->status = status;
    d->done = true;
    if (!(abandoned = d->abandoned))
        pthread_cond_signal (&d->cond);
    pthread_mutex_unlock (d->lock);
    if (abandoned)
        pmix_done_free (d);
}

/* Wait up to 'secs' for PMIx's thread to complete the call that returned
 * 'rc' with pmix_registered_cb and d (taken). PMIX_ERR_TIMEOUT when it
 * did not. */
static pmix_status_t pmix_done_wait (struct pmix_done *d, pmix_status_t rc,
                                     int secs)
{
    struct timespec until;

    if (rc != PMIX_SUCCESS) {
        pmix_done_free (d); /* no callback: done or failed at once */
        return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
    }
    clock_gettime (CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    pthread_mutex_lock (d->lock);
    while (!d->done)
        if (pthread_cond_timedwait (&d->cond, d->lock, &until) == ETIMEDOUT)
            break;
    if (!d->done) {
        d->abandoned = true;
        pthread_mutex_unlock (d->lock);
        return PMIX_ERR_TIMEOUT;
    }
    rc = d->status;
    pthread_mutex_unlock (d->lock);
    pmix_done_free (d);
    return rc;
}

/* Why a registration failed, for the launch's error. */
static const char *pmix_done_why (pmix_status_t rc)
{
    return rc == PMIX_ERR_TIMEOUT
               ? "the PMIx server did not answer within " PMIX_STR (
                   PMIX_REGISTER_TIMEOUT) " s (a connection to its port "
                                          "that sends nothing holds it)"
               : PMIx_Error_string (rc);
}

int pmix_client_register (struct pmix_ctx *ctx, uint32_t rank,
                          arbor_error_t *err)
{
    struct pmix_done *d = pmix_done_new (ctx);
    pmix_proc_t proc;
    pmix_status_t rc = PMIX_ERR_NOMEM;

    PMIX_PROC_LOAD (&proc, ctx->nspace, rank);
    if (d) {
        rc = PMIx_server_register_client (&proc, ctx->uid, ctx->gid, NULL,
                                          pmix_registered_cb, d);
        rc = pmix_done_wait (d, rc, PMIX_REGISTER_TIMEOUT);
    }
    if (rc != PMIX_SUCCESS) {
        ctx->stuck = rc == PMIX_ERR_TIMEOUT;
        errno = rc == PMIX_ERR_TIMEOUT ? ETIMEDOUT : EIO;
        return errprintf (err, "PMIx: client %s:%u: %s", ctx->nspace, rank,
                          pmix_done_why (rc));
    }
    return 0;
}

int pmix_nspace_register (struct pmix_ctx *ctx, arbor_error_t *err)
{
    char *nodes = pmix_node_csv (ctx), *ppn = pmix_ppn_csv (ctx);
    char *peers = pmix_local_peers (ctx), *node_map = NULL, *proc_map = NULL;
    void *list = PMIx_Info_list_start ();
    pmix_data_array_t arr = { 0 };
    pmix_status_t rc = PMIX_ERR_NOMEM;

    if (!nodes || !ppn || !peers || !list)
        goto out;
    if ((rc = PMIx_generate_regex (nodes, &node_map)) != PMIX_SUCCESS
        || (rc = PMIx_generate_ppn (ppn, &proc_map)) != PMIX_SUCCESS)
        goto out;
    rc = PMIX_ERR_NOMEM;
    if (pmix_add_job (ctx, list, node_map, proc_map, peers) < 0
        || pmix_add_procs (ctx, list) < 0)
        goto out;
    if ((rc = PMIx_Info_list_convert (list, &arr)) != PMIX_SUCCESS)
        goto out;
    {
        struct pmix_done *d = pmix_done_new (ctx);
        rc = PMIX_ERR_NOMEM;
        if (d) {
            rc = PMIx_server_register_nspace (ctx->nspace,
                                              (int)ctx->base.nlocal, arr.array,
                                              arr.size, pmix_registered_cb, d);
            rc = pmix_done_wait (d, rc, PMIX_REGISTER_TIMEOUT);
        }
    }
    /* PMIx copied what it keeps; a timed-out call has it too */
    PMIx_Data_array_destruct (&arr);
out:
    if (list)
        PMIx_Info_list_release (list);
    free (nodes);
    free (ppn);
    free (peers);
    free (node_map);
    free (proc_map);
    if (rc != PMIX_SUCCESS) {
        ctx->stuck = rc == PMIX_ERR_TIMEOUT;
        errno = rc == PMIX_ERR_NOMEM     ? ENOMEM
                : rc == PMIX_ERR_TIMEOUT ? ETIMEDOUT
                                         : EIO;
        return errprintf (err, "PMIx: namespace %s: %s", ctx->nspace,
                          pmix_done_why (rc));
    }
    ctx->nspace_up = true;
    return 0;
}

int pmix_nspace_deregister (struct pmix_ctx *ctx)
{
    struct pmix_done *d = pmix_done_new (ctx);

    if (!d)
        return -1;
    PMIx_server_deregister_nspace (ctx->nspace, pmix_registered_cb, d);
    if (pmix_done_wait (d, PMIX_SUCCESS, PMIX_FINISH_TIMEOUT)
        == PMIX_ERR_TIMEOUT) {
        ctx->stuck = true;
        return -1;
    }
    return 0;
}
