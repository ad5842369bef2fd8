/* fixture.c - see fixture.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"
#include "log.h"

static void outbox_record (struct ctld *ctx, size_t node, int type,
                           const void *msg, void *arg)
{
    struct outbox *o = arg;

    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 16;
        struct sent *v = realloc (o->v, cap * sizeof (*v));
        if (!v)
            abort ();
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n].node = node;
    o->v[o->n].type = type;
    if (proto_copy (type, msg, &o->v[o->n].msg) < 0)
        abort ();
    o->n++;
    (void)ctx;
}

void outbox_clear (struct outbox *o)
{
    for (size_t i = 0; i < o->n; i++)
        proto_clear (o->v[i].type, &o->v[i].msg);
    free (o->v);
    memset (o, 0, sizeof (*o));
}

size_t outbox_count (const struct outbox *o, int type)
{
    size_t n = 0;

    for (size_t i = 0; i < o->n; i++)
        if (type == 0 || o->v[i].type == type)
            n++;
    return n;
}

const struct sent *outbox_nth (const struct outbox *o, int type, size_t i)
{
    for (size_t k = 0; k < o->n; k++)
        if ((type == 0 || o->v[k].type == type) && i-- == 0)
            return &o->v[k];
    return NULL;
}

struct ctld *fixture_ctld (const char *conf_text, struct outbox *out)
{
    struct ctld *ctx = calloc (1, sizeof (*ctx));
    arbor_error_t err;

    if (!ctx || !(ctx->conf = conf_parse (conf_text, "test.conf", &err))) {
        free (ctx);
        return NULL;
    }
    log_open ("ctld_test", LOG_LVL_WARN, NULL);
    ctx->loop = ev_loop_new (EVFLAG_AUTO);
    ctx->next_job_id = 1;
    ctx->priv_uid = 0;
    ctx->node_send = outbox_record;
    ctx->node_send_arg = out;
    if (nodes_init (ctx, &err) < 0 || parts_init (ctx, &err) < 0) {
        fixture_free (ctx);
        return NULL;
    }
    for (size_t i = 0; i < ctx->nnodes; i++)
        node_register (&ctx->nodes[i], ctx->nodes[i].cpus,
                       ctx->nodes[i].real_memory, time (NULL));
    return ctx;
}

void fixture_free (struct ctld *ctx)
{
    if (!ctx)
        return;
    nodecomm_fini (ctx);
    jobs_purge (ctx, 0, true);
    parts_fini (ctx);
    nodes_fini (ctx);
    conf_destroy (ctx->conf);
    if (ctx->loop)
        ev_loop_destroy (ctx->loop);
    free (ctx);
}

struct job *fixture_submit (struct ctld *ctx, const struct msg_job_alloc *r,
                            uid_t uid, arbor_error_t *err)
{
    struct job *j = job_create (ctx, r, uid, uid, err);

    if (!j)
        return NULL;
    if (sched_submit (ctx, j, err) < 0) {
        int e = errno;
        job_destroy (j);
        errno = e;
        return NULL;
    }
    return j;
}

size_t fixture_epilogs (struct ctld *ctx, struct job *j)
{
    size_t n = 0, count = j->nnodes;
    size_t *idx = calloc (count + 1, sizeof (*idx));

    if (!idx)
        abort ();
    for (size_t k = 0; k < count; k++)
        idx[k] = j->nodes[k].node;
    for (size_t k = 0; k < count; k++) {
        struct msg_epilog_complete m = {
            .job_id = j->id, .node = ctx->nodes[idx[k]].name, .rc = 0,
            .drain_reason = "",
        };
        arbor_error_t err;
        if (term_epilog_complete (ctx, &m, &err) == 0)
            n++;
    }
    free (idx);
    return n;
}
