/* fanout.c - forward a launch to the heads of the chunks of a slice.
 *
 * Each chunk of slice[1..] tries its nodes in turn: the head gets the
 * LAUNCH as one request (common/wire/request.h) awaiting LAUNCH_REPLY within
 * the head's budget. A connect error, a close, an RC refusal or the budget
 * running out fails the head and moves the chunk on to its next node with
 * the time left (chunk_try); a LAUNCH_REPLY finishes the chunk. When the last
 * chunk finishes, ops->done runs, always as the last thing a callback does,
 * because the launch may destroy the fanout from it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fanout.h"
#include "hostlist.h"
#include "log.h"
#include "noded_base.h"
#include "request.h"

struct chunk {
    struct fanout *f;
    size_t first;        /* index in req->slice of the head being tried */
    size_t end;          /* one past the chunk's last node */
    struct request *req; /* LAUNCH to the current head */
    double tried_at;     /* ev time the current head was tried */
    uint32_t budget;     /* ms given to the current head */
    bool finished;
};

struct fanout {
    struct noded *nd;
    const struct msg_launch *req;
    double end; /* ev time at which our own budget ends */
    uint32_t margin;
    const struct fanout_ops *ops;
    void *arg;
    struct chunk *chunks;
    size_t nchunks;
    size_t unfinished;
    bool starting; /* inside fanout_start: hold back ops->done */
};

static void chunk_try (struct chunk *ch);

size_t fanout_split (size_t n, uint32_t width, size_t *start, size_t *size)
{
    size_t k, base, extra, pos = 0;

    if (n == 0)
        return 0;
    k = width == 0 ? 1 : width;
    if (k > n)
        k = n;
    base = n / k;
    extra = n % k;
    for (size_t i = 0; i < k; i++) {
        start[i] = pos;
        size[i] = base + (i < extra ? 1 : 0);
        pos += size[i];
    }
    return k;
}

uint32_t fanout_margin (uint32_t budget_ms)
{
    uint32_t tenth = budget_ms / 10;

    return tenth < FANOUT_MAX_MARGIN_MS ? tenth : FANOUT_MAX_MARGIN_MS;
}

uint32_t fanout_depth (size_t n, uint32_t width)
{
    uint32_t depth = 0;
    size_t k = width == 0 ? 1 : width;

    while (n > 1) {
        n = (n - 1 + k - 1) / k; /* the largest part of the others */
        depth++;
    }
    return depth;
}

uint32_t fanout_child_budget (int64_t remaining_ms, uint32_t margin_ms,
                              uint32_t depth)
{
    int64_t avail = remaining_ms - (int64_t)margin_ms;
    int64_t reserve;

    if (avail <= 0)
        return 0;
    reserve =
        (avail + 4 * ((int64_t)depth + 1) - 1) / (4 * ((int64_t)depth + 1));
    return (uint32_t)(avail - reserve);
}

char *fanout_ranged (char *const *names, size_t n)
{
    struct hostlist *hl = hostlist_create (NULL, NULL);
    char *s = NULL;

    if (!hl)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (hostlist_append (hl, names[i]) < 0)
            goto out;
    }
    s = hostlist_ranged (hl);
out:
    hostlist_destroy (hl);
    return s;
}

/* Seconds to the nearest millisecond (no libm for one llround: it is a
 * quarter of a MiB of the noded's resident memory). */
static int64_t ms_of (double s)
{
    return (int64_t)(s * 1000.0 + (s < 0 ? -0.5 : 0.5));
}

static int64_t fanout_remaining_ms (const struct fanout *f)
{
    return ms_of (f->end - ev_now (f->nd->loop));
}

static const char *chunk_head (const struct chunk *ch)
{
    return ch->f->req->slice[ch->first];
}

/* Stop whatever is pending for the current head. */
static void chunk_reset (struct chunk *ch)
{
    request_cancel (ch->req);
    ch->req = NULL;
}

static void chunk_finish (struct chunk *ch)
{
    struct fanout *f = ch->f;

    chunk_reset (ch);
    ch->finished = true;
    if (--f->unfinished == 0 && !f->starting)
        f->ops->done (f->arg); /* may destroy f: nothing after this */
}

/* The current head failed: report it, then try the rest of the chunk. */
static void chunk_head_failed (struct chunk *ch, int errnum, const char *error)
{
    struct fanout *f = ch->f;

    chunk_reset (ch);
    log_info ("launch %u.%u: %s: %s", f->req->job_id, f->req->step_id,
              chunk_head (ch), error);
    f->ops->failed (chunk_head (ch), errnum, error, f->arg);
    ch->first++;
    chunk_try (ch);
}

/* Report every node from the current head on as failed. */
static void chunk_fail_rest (struct chunk *ch, int errnum, const char *error)
{
    struct fanout *f = ch->f;

    for (size_t i = ch->first; i < ch->end; i++)
        f->ops->failed (f->req->slice[i], errnum, error, f->arg);
    ch->first = ch->end;
}

/* A LAUNCH_REPLY covers the whole chunk. */
static void chunk_reply (struct chunk *ch, const struct msg_launch_reply *r)
{
    struct fanout *f = ch->f;

    if (r->errnum != 0 && r->failed_nodes_count == 0)
        f->ops->failed (chunk_head (ch), r->errnum,
                        r->text ? r->text : "launch failed", f->arg);
    else
        f->ops->reply (r, f->arg);
    ch->first = ch->end;
    chunk_finish (ch);
}

/* The head answered, or could not be reached in time. Anything but a
 * LAUNCH_REPLY fails the head only (an RC error: the request was refused
 * before reaching the launch handler), and the chunk goes on through its
 * next node. */
static void chunk_done_cb (const struct request_result *res, void *arg)
{
    struct chunk *ch = arg;
    const struct msg_rc *rc = res->msg;
    char text[64];

    ch->req = NULL; /* freed by request.c after this returns */
    switch (res->outcome) {
    case REQUEST_ANSWERED: chunk_reply (ch, res->msg); break;
    case REQUEST_REFUSED:
        chunk_head_failed (ch, res->errnum,
                           rc->text ? rc->text : "launch refused");
        break;
    case REQUEST_TIMEDOUT:
        snprintf (text, sizeof (text), "no answer within %u ms", ch->budget);
        chunk_head_failed (ch, ETIMEDOUT, text);
        break;
    default: chunk_head_failed (ch, res->errnum, res->err.text); break;
    }
}

/* Send the current head the launch for the rest of the chunk. 0, or -1
 * with errno when nothing was started. */
static int chunk_send (struct chunk *ch, const struct conf_node *node)
{
    struct fanout *f = ch->f;
    struct msg_launch fwd = *f->req; /* shallow: copied by the request */
    struct request_opts opts;

    noded_peer_opts (f->nd, ch->budget / 1000.0, &opts);
    opts.resp_type = MSG_LAUNCH_REPLY;
    fwd.slice = f->req->slice + ch->first;
    fwd.slice_count = (uint32_t)(ch->end - ch->first);
    fwd.budget_ms = ch->budget;
    ch->req = request_tcp (f->nd->loop, node->addr, f->nd->conf->noded_port,
                           MSG_LAUNCH, &fwd, &opts, chunk_done_cb, ch);
    return ch->req ? 0 : -1;
}

static void chunk_log_forward (struct chunk *ch)
{
    struct fanout *f = ch->f;
    char *ranged;

    if (log_get_level () < LOG_LVL_DEBUG)
        return;
    ranged = fanout_ranged (f->req->slice + ch->first, ch->end - ch->first);
    log_debug ("launch %u.%u forwarded to %s (slice %s)", f->req->job_id,
               f->req->step_id, chunk_head (ch), ranged ? ranged : "?");
    free (ranged);
}

/* Start the current head, skipping nodes that fail at once; finish the
 * chunk when no node is left or no time is. */
static void chunk_try (struct chunk *ch)
{
    struct fanout *f = ch->f;
    const struct conf_node *node;
    char text[160];

    while (ch->first < ch->end) {
        uint32_t budget = fanout_child_budget (
            fanout_remaining_ms (f), f->margin,
            fanout_depth (ch->end - ch->first, f->nd->conf->tree_width));
        if (budget == 0) {
            chunk_fail_rest (ch, ETIMEDOUT, "not reached: no time left");
            break;
        }
        if (!(node = conf_node_find (f->nd->conf, chunk_head (ch)))) {
            log_info ("launch %u.%u: %s: not in the configuration",
                      f->req->job_id, f->req->step_id, chunk_head (ch));
            f->ops->failed (chunk_head (ch), EINVAL, "not in the configuration",
                            f->arg);
            ch->first++;
            continue;
        }
        chunk_log_forward (ch);
        ch->budget = budget;
        ch->tried_at = ev_now (f->nd->loop);
        if (chunk_send (ch, node) < 0) {
            errno_text (errno, text, sizeof (text));
            log_info ("launch %u.%u: %s: %s", f->req->job_id, f->req->step_id,
                      chunk_head (ch), text);
            f->ops->failed (chunk_head (ch), errno, text, f->arg);
            ch->first++;
            continue;
        }
        return;
    }
    chunk_finish (ch);
}

struct fanout *fanout_start (struct noded *nd, const struct msg_launch *req,
                             double end, uint32_t margin_ms,
                             const struct fanout_ops *ops, void *arg)
{
    size_t n = req->slice_count > 1 ? req->slice_count - 1 : 0;
    size_t k = n < nd->conf->tree_width ? n : nd->conf->tree_width;
    size_t start[k ? k : 1], size[k ? k : 1];
    struct fanout *f;

    if (!(f = calloc (1, sizeof (*f))))
        return NULL;
    if (k && !(f->chunks = calloc (k, sizeof (f->chunks[0])))) {
        free (f);
        return NULL;
    }
    f->nd = nd;
    f->req = req;
    f->end = end;
    f->margin = margin_ms;
    f->ops = ops;
    f->arg = arg;
    f->nchunks = fanout_split (n, nd->conf->tree_width, start, size);
    f->unfinished = f->nchunks;
    f->starting = true;
    for (size_t i = 0; i < f->nchunks; i++) {
        struct chunk *ch = &f->chunks[i];
        ch->f = f;
        ch->first = 1 + start[i];
        ch->end = ch->first + size[i];
    }
    for (size_t i = 0; i < f->nchunks; i++)
        chunk_try (&f->chunks[i]);
    f->starting = false;
    return f;
}

bool fanout_finished (const struct fanout *f)
{
    return f->unfinished == 0;
}

void fanout_expire (struct fanout *f)
{
    char text[64];

    for (size_t i = 0; i < f->nchunks; i++) {
        struct chunk *ch = &f->chunks[i];
        if (ch->finished)
            continue;
        chunk_reset (ch);
        if (ch->first < ch->end) {
            double waited = ev_now (f->nd->loop) - ch->tried_at;
            snprintf (text, sizeof (text), "no answer within %lld ms",
                      (long long)ms_of (waited));
            f->ops->failed (chunk_head (ch), ETIMEDOUT, text, f->arg);
            ch->first++;
            chunk_fail_rest (ch, ETIMEDOUT, "not reached");
        }
        ch->finished = true;
        f->unfinished--;
    }
}

void fanout_destroy (struct fanout *f)
{
    int saved = errno;

    if (f) {
        for (size_t i = 0; i < f->nchunks; i++)
            chunk_reset (&f->chunks[i]);
        free (f->chunks);
        free (f);
    }
    errno = saved;
}
