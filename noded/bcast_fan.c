/* bcast_fan.c - forward one BCAST_BLOCK down the launch tree.
 *
 * Each chunk tries its nodes in turn (chunk_try): the head gets the
 * block as one request (common/wire/request.h) awaiting BCAST_REPLY within
 * its budget. Anything but a BCAST_REPLY fails the head alone and the
 * chunk moves on; a reply finishes the chunk, its failed nodes reported
 * one by one. The last chunk to finish calls ops->done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcast_fan.h"
#include "fanout.h"
#include "log.h"
#include "noded_base.h"
#include "request.h"

struct bcast_chunk {
    struct bcast_fan *f;
    size_t first, end; /* slice indexes: current head, one past the last */
    struct request *req;
    uint32_t budget;
    bool finished;
};

struct bcast_fan {
    struct noded *nd;
    const struct msg_bcast_block *m;
    double end;
    uint32_t margin, width;
    const struct bcast_fan_ops *ops;
    void *arg;
    struct bcast_chunk *chunks;
    size_t nchunks, unfinished;
    bool starting;
};

static void chunk_try (struct bcast_chunk *ch);

static const char *chunk_head (const struct bcast_chunk *ch)
{
    return ch->f->m->slice[ch->first];
}

static void chunk_finish (struct bcast_chunk *ch)
{
    struct bcast_fan *f = ch->f;

    request_cancel (ch->req);
    ch->req = NULL;
    ch->finished = true;
    if (--f->unfinished == 0 && !f->starting)
        f->ops->done (f->arg); /* may destroy f */
}

static void chunk_head_failed (struct bcast_chunk *ch, int errnum,
                               const char *error)
{
    struct bcast_fan *f = ch->f;

    log_info ("bcast %u: %s: %s", f->m->job_id, chunk_head (ch), error);
    f->ops->failed (chunk_head (ch), errnum, error, f->arg);
    ch->first++;
    chunk_try (ch);
}

static void chunk_reply (struct bcast_chunk *ch,
                         const struct msg_bcast_reply *r)
{
    struct bcast_fan *f = ch->f;

    for (uint32_t i = 0; i < r->failed_nodes_count; i++)
        f->ops->failed (r->failed_nodes[i], r->errnum ? r->errnum : EIO,
                        i < r->failed_errors_count ? r->failed_errors[i]
                                                   : "failed",
                        f->arg);
    if (r->errnum && r->failed_nodes_count == 0)
        f->ops->failed (chunk_head (ch), r->errnum, r->text ? r->text : "",
                        f->arg);
    ch->first = ch->end;
    chunk_finish (ch);
}

static void chunk_done_cb (const struct request_result *res, void *arg)
{
    struct bcast_chunk *ch = arg;
    const struct msg_rc *rc = res->msg;
    char text[64];

    ch->req = NULL; /* freed by request.c after this returns */
    switch (res->outcome) {
    case REQUEST_ANSWERED: chunk_reply (ch, res->msg); break;
    case REQUEST_REFUSED:
        chunk_head_failed (ch, res->errnum, rc->text ? rc->text : "refused");
        break;
    case REQUEST_TIMEDOUT:
        snprintf (text, sizeof (text), "no answer within %u ms", ch->budget);
        chunk_head_failed (ch, ETIMEDOUT, text);
        break;
    default: chunk_head_failed (ch, res->errnum, res->err.text); break;
    }
}

static int chunk_send (struct bcast_chunk *ch, const struct conf_node *node)
{
    struct bcast_fan *f = ch->f;
    struct msg_bcast_block fwd = *f->m; /* shallow: the request copies */
    struct request_opts opts;

    noded_peer_opts (f->nd, ch->budget / 1000.0, &opts);
    opts.resp_type = MSG_BCAST_REPLY;
    fwd.slice = f->m->slice + ch->first;
    fwd.slice_count = (uint32_t)(ch->end - ch->first);
    fwd.budget_ms = ch->budget;
    ch->req = request_tcp (f->nd->loop, node->addr, f->nd->conf->noded_port,
                           MSG_BCAST_BLOCK, &fwd, &opts, chunk_done_cb, ch);
    return ch->req ? 0 : -1;
}

static void chunk_try (struct bcast_chunk *ch)
{
    struct bcast_fan *f = ch->f;
    const struct conf_node *node;
    double left;

    while (ch->first < ch->end) {
        left = (f->end - ev_now (f->nd->loop)) * 1000.0;
        ch->budget =
            fanout_child_budget ((int64_t)left, f->margin,
                                 fanout_depth (ch->end - ch->first, f->width));
        if (ch->budget == 0) {
            for (; ch->first < ch->end; ch->first++)
                f->ops->failed (chunk_head (ch), ETIMEDOUT,
                                "not reached: no time left", f->arg);
            break;
        }
        if (!(node = conf_node_find (f->nd->conf, chunk_head (ch)))) {
            f->ops->failed (chunk_head (ch), EINVAL, "not in the configuration",
                            f->arg);
            ch->first++;
            continue;
        }
        if (chunk_send (ch, node) == 0)
            return;
        f->ops->failed (chunk_head (ch), errno, strerror (errno), f->arg);
        ch->first++;
    }
    chunk_finish (ch);
}

struct bcast_fan *bcast_fan_start (struct noded *nd,
                                   const struct msg_bcast_block *m, double end,
                                   uint32_t margin_ms,
                                   const struct bcast_fan_ops *ops, void *arg)
{
    size_t n = m->slice_count > 1 ? m->slice_count - 1 : 0;
    uint32_t width = m->width && m->width < nd->conf->tree_width
                         ? m->width
                         : nd->conf->tree_width;
    size_t k = n < width ? n : width;
    size_t start[k ? k : 1], size[k ? k : 1];
    struct bcast_fan *f = calloc (1, sizeof (*f));

    if (!f || (k && !(f->chunks = calloc (k, sizeof (f->chunks[0]))))) {
        free (f);
        errno = ENOMEM;
        return NULL;
    }
    *f = (struct bcast_fan){ .nd = nd,
                             .m = m,
                             .end = end,
                             .margin = margin_ms,
                             .width = width,
                             .ops = ops,
                             .arg = arg,
                             .chunks = f->chunks,
                             .starting = true };
    f->nchunks = f->unfinished = fanout_split (n, width, start, size);
    for (size_t i = 0; i < f->nchunks; i++) {
        f->chunks[i].f = f;
        f->chunks[i].first = 1 + start[i];
        f->chunks[i].end = 1 + start[i] + size[i];
    }
    for (size_t i = 0; i < f->nchunks; i++)
        chunk_try (&f->chunks[i]);
    f->starting = false;
    return f;
}

bool bcast_fan_finished (const struct bcast_fan *f)
{
    return f->unfinished == 0;
}

void bcast_fan_expire (struct bcast_fan *f)
{
    for (size_t i = 0; i < f->nchunks; i++) {
        struct bcast_chunk *ch = &f->chunks[i];
        if (ch->finished)
            continue;
        request_cancel (ch->req);
        ch->req = NULL;
        for (; ch->first < ch->end; ch->first++)
            f->ops->failed (chunk_head (ch), ETIMEDOUT, "no answer in time",
                            f->arg);
        ch->finished = true;
        f->unfinished--;
    }
}

void bcast_fan_destroy (struct bcast_fan *f)
{
    int saved = errno;

    if (f) {
        for (size_t i = 0; i < f->nchunks; i++)
            request_cancel (f->chunks[i].req);
        free (f->chunks);
        free (f);
    }
    errno = saved;
}
