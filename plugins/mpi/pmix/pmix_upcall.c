/* pmix_upcall.c - the PMIx server module: what PMIx asks of the host.
 *
 * PMIx calls these on its progress thread. The stepd's state belongs to
 * its loop thread, so each call only copies what it was given into an
 * event, queues it under the lock and writes the eventfd the loop
 * watches; the plugin's progress op does the work (pmix_plugin.c). The
 * flags of the clients (connected, finalized) are the exception: they
 * are set here, under the lock, and read by task_exited.
 *
 * PMIx runs one server per process and the module's functions carry no
 * pointer of ours, so the module is bound to the plugin's ctx through
 * one file-scope pointer (pmix_upcall_bind): the one exception to "state
 * in ctx" that PMIx's interface forces.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "pmix_ctx.h"
#include "pmix_nspace.h"
#include "pmix_upcall.h"

static struct pmix_ctx *bound;

void pmix_upcall_bind (struct pmix_ctx *ctx)
{
    bound = ctx;
}

void pmix_ev_post (struct pmix_ctx *ctx, struct pmix_ev *ev)
{
    uint64_t one = 1;

    pthread_mutex_lock (&ctx->lock);
    *ctx->evs_tail = ev;
    ctx->evs_tail = &ev->next;
    pthread_mutex_unlock (&ctx->lock);
    if (write (ctx->efd, &one, sizeof (one)) < 0) {
        /* EAGAIN: the counter is already non-zero, the loop will wake */
    }
}

struct pmix_ev *pmix_ev_take (struct pmix_ctx *ctx)
{
    struct pmix_ev *list;
    uint64_t n;

    if (read (ctx->efd, &n, sizeof (n)) < 0) {
        /* EAGAIN: nothing was posted since the last take */
    }
    pthread_mutex_lock (&ctx->lock);
    list = ctx->evs;
    ctx->evs = NULL;
    ctx->evs_tail = &ctx->evs;
    pthread_mutex_unlock (&ctx->lock);
    return list;
}

void pmix_ev_free (struct pmix_ev *ev)
{
    if (!ev)
        return;
    free (ev->data);
    free (ev->msg);
    free (ev);
}

/* A new event of 'kind' with a copy of data; NULL when out of memory. */
static struct pmix_ev *pmix_ev_new (enum pmix_ev_kind kind, const char *data,
                                    size_t len)
{
    struct pmix_ev *ev = calloc (1, sizeof (*ev));

    if (!ev)
        return NULL;
    ev->kind = kind;
    if (len) {
        if (!(ev->data = malloc (len))) {
            free (ev);
            return NULL;
        }
        memcpy (ev->data, data, len);
        ev->len = len;
    }
    return ev;
}

/* The local task of a rank of our namespace, or NULL. */
static struct pmix_task *pmix_local_task (const pmix_proc_t *proc)
{
    struct pmix_ctx *c = bound;

    int64_t k;

    if (!c || !proc || strcmp (proc->nspace, c->nspace) != 0
        || (k = pmix_rank_local (c, proc->rank)) < 0)
        return NULL;
    return &c->local[k];
}

static pmix_status_t up_connected (const pmix_proc_t *proc, void *obj,
                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct pmix_task *t;

    pthread_mutex_lock (&bound->lock);
    if ((t = pmix_local_task (proc)))
        t->connected = true;
    pthread_mutex_unlock (&bound->lock);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t up_finalized (const pmix_proc_t *proc, void *obj,
                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct pmix_task *t;

    pthread_mutex_lock (&bound->lock);
    if ((t = pmix_local_task (proc)))
        t->finalized = true;
    pthread_mutex_unlock (&bound->lock);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t up_abort (const pmix_proc_t *proc, void *obj, int status,
                               const char msg[], pmix_proc_t procs[],
                               size_t nprocs, pmix_op_cbfunc_t cbfunc,
                               void *cbdata)
{
    struct pmix_ev *ev = pmix_ev_new (PEV_ABORT, NULL, 0);

    if (!ev || (msg && !(ev->msg = strdup (msg)))) {
        pmix_ev_free (ev);
        return PMIX_ERR_NOMEM;
    }
    ev->rank = proc ? proc->rank : 0;
    ev->status = status;
    ev->op_cb = cbfunc;
    ev->cbdata = cbdata;
    pmix_ev_post (bound, ev);
    return PMIX_SUCCESS;
}

/* Only fences over the whole namespace: every node's server is then
 * called for every fence, in the same order, which is what makes the
 * stepds' rounds line up (coll.c). Open MPI's MPI_Init and MPI_Finalize
 * fence the whole job. */
static bool up_whole_job (const pmix_proc_t procs[], size_t nprocs)
{
    struct pmix_ctx *c = bound;

    if (nprocs == 0)
        return true;
    return nprocs == 1 && !strcmp (procs[0].nspace, c->nspace)
           && procs[0].rank == PMIX_RANK_WILDCARD;
}

static pmix_status_t up_fence (const pmix_proc_t procs[], size_t nprocs,
                               const pmix_info_t info[], size_t ninfo,
                               char *data, size_t ndata,
                               pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    struct pmix_ev *ev;

    if (!up_whole_job (procs, nprocs))
        return PMIX_ERR_NOT_SUPPORTED;
    if (!(ev = pmix_ev_new (PEV_FENCE, data, ndata)))
        return PMIX_ERR_NOMEM;
    ev->modex_cb = cbfunc;
    ev->cbdata = cbdata;
    pmix_ev_post (bound, ev);
    return PMIX_SUCCESS;
}

static pmix_status_t up_dmodex (const pmix_proc_t *proc,
                                const pmix_info_t info[], size_t ninfo,
                                pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    struct pmix_ctx *c = bound;
    struct pmix_ev *ev;

    if (strcmp (proc->nspace, c->nspace) != 0 || proc->rank >= c->base.ntasks)
        return PMIX_ERR_NOT_FOUND;
    if (!(ev = pmix_ev_new (PEV_DMODEX, NULL, 0)))
        return PMIX_ERR_NOMEM;
    ev->rank = proc->rank;
    ev->modex_cb = cbfunc;
    ev->cbdata = cbdata;
    pmix_ev_post (c, ev);
    return PMIX_SUCCESS;
}

pmix_server_module_t pmix_arbor_module = {
    .client_connected = up_connected,
    .client_finalized = up_finalized,
    .abort = up_abort,
    .fence_nb = up_fence,
    .direct_modex = up_dmodex,
};
