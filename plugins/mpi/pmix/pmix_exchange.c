/* pmix_exchange.c - mpi/pmix: what crosses nodes, on the stepd's loop
 * thread: the events PMIx's thread posts (pmix_upcall.c) are taken by
 * pmix_progress and done with the stepd's services (coll.c's all-gather
 * for fence_nb, host sends for direct modex requests and their answers,
 * the step's abort), and what other nodes' plugins send arrives in
 * pmix_recv and pmix_gathered. See pmix_plugin.c for the server's life.
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
#include "pmix_upcall.h"

/* P2P messages between the plugins: [type u32][id u32][status i32][data]. */
enum { P2P_DMODEX_REQ = 1, P2P_DMODEX_RESP = 2 };

static int pmix_p2p_send (struct pmix_ctx *ctx, uint32_t node, uint32_t type,
                          uint32_t id, int32_t status, const void *data,
                          size_t len)
{
    uint32_t hdr[3] = { htonl (type), htonl (id), htonl ((uint32_t)status) };
    char *buf = malloc (sizeof (hdr) + len);
    int rc;

    if (!buf)
        return -1;
    memcpy (buf, hdr, sizeof (hdr));
    if (len)
        memcpy (buf + sizeof (hdr), data, len);
    rc = mpi_host_send (&ctx->base, node, buf, sizeof (hdr) + len);
    free (buf);
    return rc;
}

/* ---- waits: fences and direct modex requests -------------------------- */

static int pmix_wait_add (struct pmix_wait **list, int64_t key,
                          pmix_modex_cbfunc_t cb, void *cbdata)
{
    struct pmix_wait *w = calloc (1, sizeof (*w));

    if (!w)
        return -1;
    *w = (struct pmix_wait){ *list, key, cb, cbdata };
    *list = w;
    return 0;
}

static struct pmix_wait *pmix_wait_take (struct pmix_wait **list, int64_t key)
{
    for (struct pmix_wait **pp = list; *pp; pp = &(*pp)->next)
        if ((*pp)->key == key) {
            struct pmix_wait *w = *pp;
            *pp = w->next;
            return w;
        }
    return NULL;
}

static void pmix_release_cb (void *cbdata)
{
    free (cbdata);
}

/* Hand 'data' (copied: PMIx keeps it until it calls release) to cb. */
static void pmix_modex_reply (pmix_modex_cbfunc_t cb, void *cbdata,
                              pmix_status_t st, const void *data, size_t len)
{
    char *copy = len ? malloc (len) : NULL;

    if (len && !copy) {
        cb (PMIX_ERR_NOMEM, NULL, 0, cbdata, NULL, NULL);
        return;
    }
    if (len)
        memcpy (copy, data, len);
    cb (st, copy, len, cbdata, copy ? pmix_release_cb : NULL, copy);
}

/* ---- events from PMIx's thread ---------------------------------------- */

static void pmix_on_fence (struct pmix_ctx *ctx, struct pmix_ev *ev)
{
    int64_t seq = mpi_host_allgather (&ctx->base, ev->data, ev->len);

    plugin_log (ctx->base.env, PLUGIN_LOG_DEBUG,
                "fence %lld: %zu bytes from here", (long long)seq, ev->len);
    if (seq < 0
        || pmix_wait_add (&ctx->fences, seq, ev->modex_cb, ev->cbdata) < 0) {
        plugin_log (ctx->base.env, PLUGIN_LOG_ERR, "PMIx fence: %s",
                    strerror (errno));
        ev->modex_cb (PMIX_ERROR, NULL, 0, ev->cbdata, NULL, NULL);
    }
}

static void pmix_on_dmodex (struct pmix_ctx *ctx, struct pmix_ev *ev)
{
    uint32_t node = pmix_rank_node (ctx, ev->rank);
    uint32_t id = ctx->next_dmodex++;

    if (node >= ctx->base.nnodes
        || pmix_wait_add (&ctx->dmodex, id, ev->modex_cb, ev->cbdata) < 0) {
        ev->modex_cb (PMIX_ERR_NOT_FOUND, NULL, 0, ev->cbdata, NULL, NULL);
        return;
    }
    if (pmix_p2p_send (ctx, node, P2P_DMODEX_REQ, id, (int32_t)ev->rank, NULL,
                       0)
        < 0) {
        free (pmix_wait_take (&ctx->dmodex, id));
        ev->modex_cb (PMIX_ERROR, NULL, 0, ev->cbdata, NULL, NULL);
    }
}

static void pmix_on_abort (struct pmix_ctx *ctx, struct pmix_ev *ev)
{
    /* Open MPI says "N/A" when MPI_Abort has no message. */
    bool msg = ev->msg && *ev->msg && strcmp (ev->msg, "N/A") != 0;
    char text[600];

    snprintf (text, sizeof (text),
              "rank %u called MPI_Abort with status %d%s%.500s", ev->rank,
              ev->status, msg ? ": " : "", msg ? ev->msg : "");
    mpi_host_abort (&ctx->base, ev->rank, ev->status ? ev->status : 1, text);
    if (ev->op_cb)
        ev->op_cb (PMIX_SUCCESS, ev->cbdata);
}

void pmix_progress (void *arg)
{
    struct pmix_ctx *ctx = arg;
    struct pmix_ev *ev = pmix_ev_take (ctx), *next;

    for (; ev; ev = next) {
        next = ev->next;
        switch (ev->kind) {
        case PEV_FENCE: pmix_on_fence (ctx, ev); break;
        case PEV_DMODEX: pmix_on_dmodex (ctx, ev); break;
        case PEV_DMDX_DONE:
            if (pmix_p2p_send (ctx, ev->node, P2P_DMODEX_RESP, ev->id,
                               ev->status, ev->data, ev->len)
                < 0)
                plugin_log (ctx->base.env, PLUGIN_LOG_ERR,
                            "direct modex answer to node %u: %s", ev->node,
                            strerror (errno));
            break;
        case PEV_ABORT: pmix_on_abort (ctx, ev); break;
        }
        pmix_ev_free (ev);
    }
}

/* ---- what other nodes send -------------------------------------------- */

struct dmdx_req {
    struct pmix_ctx *ctx;
    uint32_t node, id;
};

/* PMIx's thread: our server has the rank's data (or not): post it. */
static void pmix_dmdx_done_cb (pmix_status_t status, char *data, size_t ndata,
                               void *cbdata)
{
    struct dmdx_req *r = cbdata;
    struct pmix_ev *ev = calloc (1, sizeof (*ev));

    if (ev && ndata && (ev->data = malloc (ndata)))
        memcpy (ev->data, data, ev->len = ndata);
    if (ev) {
        ev->kind = PEV_DMDX_DONE;
        ev->status = ev->len == ndata ? status : PMIX_ERR_NOMEM;
        ev->node = r->node;
        ev->id = r->id;
        pmix_ev_post (r->ctx, ev);
    }
    free (r);
}

static void pmix_dmodex_serve (struct pmix_ctx *ctx, uint32_t from, uint32_t id,
                               uint32_t rank)
{
    struct dmdx_req *r = calloc (1, sizeof (*r));
    pmix_proc_t proc;
    pmix_status_t rc = PMIX_ERR_NOMEM;

    PMIX_PROC_LOAD (&proc, ctx->nspace, rank);
    plugin_log (ctx->base.env, PLUGIN_LOG_DEBUG,
                "direct modex: rank %u's data for node %u", rank, from);
    if (r) {
        *r = (struct dmdx_req){ ctx, from, id };
        rc = PMIx_server_dmodex_request (&proc, pmix_dmdx_done_cb, r);
    }
    if (rc != PMIX_SUCCESS) {
        free (r);
        pmix_p2p_send (ctx, from, P2P_DMODEX_RESP, id, rc, NULL, 0);
    }
}

void pmix_recv (void *arg, uint32_t from, const void *data, size_t len)
{
    struct pmix_ctx *ctx = arg;
    uint32_t hdr[3];
    struct pmix_wait *w;

    if (len < sizeof (hdr))
        return;
    memcpy (hdr, data, sizeof (hdr));
    if (ntohl (hdr[0]) == P2P_DMODEX_REQ)
        pmix_dmodex_serve (ctx, from, ntohl (hdr[1]), ntohl (hdr[2]));
    else if (ntohl (hdr[0]) == P2P_DMODEX_RESP
             && (w = pmix_wait_take (&ctx->dmodex, ntohl (hdr[1])))) {
        pmix_modex_reply (w->cb, w->cbdata, (pmix_status_t)ntohl (hdr[2]),
                          (const char *)data + sizeof (hdr),
                          len - sizeof (hdr));
        free (w);
    }
}

void pmix_gathered (void *arg, int64_t seq, const void *data, size_t len,
                    int errnum)
{
    struct pmix_ctx *ctx = arg;
    struct pmix_wait *w = pmix_wait_take (&ctx->fences, seq);

    if (!w)
        return;
    plugin_log (ctx->base.env, PLUGIN_LOG_DEBUG,
                "fence %lld: %zu bytes in all%s", (long long)seq, len,
                errnum ? " (failed)" : "");
    if (errnum)
        w->cb (PMIX_ERR_UNREACH, NULL, 0, w->cbdata, NULL, NULL);
    else
        pmix_modex_reply (w->cb, w->cbdata, PMIX_SUCCESS, data, len);
    free (w);
}

void pmix_waits_free (struct pmix_ctx *ctx)
{
    struct pmix_wait *lists[] = { ctx->fences, ctx->dmodex };

    ctx->fences = ctx->dmodex = NULL;
    for (size_t i = 0; i < 2; i++)
        while (lists[i]) {
            struct pmix_wait *w = lists[i];
            lists[i] = w->next;
            free (w);
        }
}
