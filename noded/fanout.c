/* fanout.c - forward a message to the heads of the chunks of a slice.
 *
 * Each chunk of slice[1..] tries its nodes in turn: the head gets the
 * message as one request (common/wire/request.h) awaiting the kind's
 * answer within the head's budget. A connect error, a close, an RC refusal
 * or the budget running out fails the head and moves the chunk on to its
 * next node with the time left (chunk_try); an answer finishes the chunk.
 * When the last chunk finishes, ops->done runs, always as the last thing a
 * callback does, because the owner may destroy the fanout from it. What
 * differs between LAUNCH and BCAST_BLOCK (the message's slice and budget
 * fields, how an answer reports failed nodes) is a struct fanout_kind.
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

/* A chunk's copy of the message: the caller's, with its own slice and
 * budget (shallow: the request encodes it before returning). */
union fanout_msg {
    struct msg_launch launch;
    struct msg_bcast_block block;
};

struct fanout;

/* What a fan-out forwards and how it reads the answers. */
struct fanout_kind {
    int type;            /* MSG_LAUNCH, MSG_BCAST_BLOCK */
    int reply_type;      /* a head's answer for its whole chunk */
    const char *refused; /* an RC refusal's text when it carries none */
    /* fwd = msg for slice[0..n) within budget_ms. */
    void (*retarget) (const void *msg, union fanout_msg *fwd, char **slice,
                      uint32_t n, uint32_t budget_ms);
    /* Report a head's answer for its chunk through f->ops. */
    void (*reply) (struct fanout *f, const char *head, const void *reply);
};

struct chunk {
    struct fanout *f;
    size_t first;        /* index in slice of the head being tried */
    size_t end;          /* one past the chunk's last node */
    struct request *req; /* the message to the current head */
    double tried_at;     /* ev time the current head was tried */
    uint32_t budget;     /* ms given to the current head */
    bool finished;
};

struct fanout {
    struct noded *nd;
    const struct fanout_kind *kind;
    const void *msg; /* borrowed: the caller's LAUNCH or BCAST_BLOCK */
    char **slice;    /* the message's */
    uint32_t width;  /* chunks at most */
    char what[48];   /* "launch 7.0", "bcast 7": for logs */
    double end;      /* ev time at which our own budget ends */
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
    return ch->f->slice[ch->first];
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
    log_info ("%s: %s: %s", f->what, chunk_head (ch), error);
    f->ops->failed (chunk_head (ch), errnum, error, f->arg);
    ch->first++;
    chunk_try (ch);
}

/* Report every node from the current head on as failed. */
static void chunk_fail_rest (struct chunk *ch, int errnum, const char *error)
{
    struct fanout *f = ch->f;

    for (size_t i = ch->first; i < ch->end; i++)
        f->ops->failed (f->slice[i], errnum, error, f->arg);
    ch->first = ch->end;
}

/* An answer covers the whole chunk. */
static void chunk_reply (struct chunk *ch, const void *reply)
{
    ch->f->kind->reply (ch->f, chunk_head (ch), reply);
    ch->first = ch->end;
    chunk_finish (ch);
}

/* The head answered, or could not be reached in time. Anything but the
 * kind's answer fails the head only (an RC error: the request was refused
 * before reaching the handler), and the chunk goes on through its
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
                           rc->text ? rc->text : ch->f->kind->refused);
        break;
    case REQUEST_TIMEDOUT:
        snprintf (text, sizeof (text), "no answer within %u ms", ch->budget);
        chunk_head_failed (ch, ETIMEDOUT, text);
        break;
    default: chunk_head_failed (ch, res->errnum, res->err.text); break;
    }
}

/* Send the current head the message for the rest of the chunk. 0, or -1
 * with errno when nothing was started. */
static int chunk_send (struct chunk *ch, const struct conf_node *node)
{
    struct fanout *f = ch->f;
    union fanout_msg fwd;
    struct request_opts opts;

    noded_peer_opts (f->nd, ch->budget / 1000.0, &opts);
    opts.resp_type = f->kind->reply_type;
    f->kind->retarget (f->msg, &fwd, f->slice + ch->first,
                       (uint32_t)(ch->end - ch->first), ch->budget);
    ch->req = request_tcp (f->nd->loop, node->addr, f->nd->conf->noded_port,
                           f->kind->type, &fwd, &opts, chunk_done_cb, ch);
    return ch->req ? 0 : -1;
}

static void chunk_log_forward (struct chunk *ch)
{
    struct fanout *f = ch->f;
    char *ranged;

    if (log_get_level () < LOG_LVL_DEBUG)
        return;
    ranged = fanout_ranged (f->slice + ch->first, ch->end - ch->first);
    log_debug ("%s forwarded to %s (slice %s)", f->what, chunk_head (ch),
               ranged ? ranged : "?");
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
        uint32_t budget =
            fanout_child_budget (fanout_remaining_ms (f), f->margin,
                                 fanout_depth (ch->end - ch->first, f->width));
        if (budget == 0) {
            chunk_fail_rest (ch, ETIMEDOUT, "not reached: no time left");
            break;
        }
        if (!(node = conf_node_find (f->nd->conf, chunk_head (ch)))) {
            log_info ("%s: %s: not in the configuration", f->what,
                      chunk_head (ch));
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
            log_info ("%s: %s: %s", f->what, chunk_head (ch), text);
            f->ops->failed (chunk_head (ch), errno, text, f->arg);
            ch->first++;
            continue;
        }
        return;
    }
    chunk_finish (ch);
}

/* A fan-out of 'msg' over slice[1..slice_count) in at most 'width'
 * chunks, not started; NULL on ENOMEM. */
static struct fanout *fanout_create (struct noded *nd,
                                     const struct fanout_kind *kind,
                                     const void *msg, char **slice,
                                     size_t slice_count, uint32_t width)
{
    size_t n = slice_count > 1 ? slice_count - 1 : 0;
    size_t k = n < width ? n : width;
    size_t start[k ? k : 1], size[k ? k : 1];
    struct fanout *f;

    if (!(f = calloc (1, sizeof (*f))))
        return NULL;
    if (k && !(f->chunks = calloc (k, sizeof (f->chunks[0])))) {
        free (f);
        return NULL;
    }
    f->nd = nd;
    f->kind = kind;
    f->msg = msg;
    f->slice = slice;
    f->width = width;
    f->nchunks = fanout_split (n, width, start, size);
    f->unfinished = f->nchunks;
    for (size_t i = 0; i < f->nchunks; i++) {
        struct chunk *ch = &f->chunks[i];
        ch->f = f;
        ch->first = 1 + start[i];
        ch->end = ch->first + size[i];
    }
    return f;
}

/* Try every chunk's head; ops->done is held back until we return. */
static struct fanout *fanout_run (struct fanout *f, double end,
                                  uint32_t margin_ms,
                                  const struct fanout_ops *ops, void *arg)
{
    f->end = end;
    f->margin = margin_ms;
    f->ops = ops;
    f->arg = arg;
    f->starting = true;
    for (size_t i = 0; i < f->nchunks; i++)
        chunk_try (&f->chunks[i]);
    f->starting = false;
    return f;
}

/* ---- LAUNCH ------------------------------------------------------------ */

static void fanout_launch_retarget (const void *msg, union fanout_msg *fwd,
                                    char **slice, uint32_t n,
                                    uint32_t budget_ms)
{
    fwd->launch = *(const struct msg_launch *)msg;
    fwd->launch.slice = slice;
    fwd->launch.slice_count = n;
    fwd->launch.budget_ms = budget_ms;
}

/* A LAUNCH_REPLY without failed nodes but with an error fails its head;
 * any other goes to the launch to merge. */
static void fanout_launch_reply (struct fanout *f, const char *head,
                                 const void *reply)
{
    const struct msg_launch_reply *r = reply;

    if (r->errnum != 0 && r->failed_nodes_count == 0)
        f->ops->failed (head, r->errnum, r->text ? r->text : "launch failed",
                        f->arg);
    else
        f->ops->reply (r, f->arg);
}

static const struct fanout_kind fanout_launch_kind = {
    .type = MSG_LAUNCH,
    .reply_type = MSG_LAUNCH_REPLY,
    .refused = "launch refused",
    .retarget = fanout_launch_retarget,
    .reply = fanout_launch_reply,
};

struct fanout *fanout_start (struct noded *nd, const struct msg_launch *req,
                             double end, uint32_t margin_ms,
                             const struct fanout_ops *ops, void *arg)
{
    struct fanout *f = fanout_create (nd, &fanout_launch_kind, req, req->slice,
                                      req->slice_count, nd->conf->tree_width);

    if (!f)
        return NULL;
    snprintf (f->what, sizeof (f->what), "launch %u.%u", req->job_id,
              req->step_id);
    return fanout_run (f, end, margin_ms, ops, arg);
}

/* ---- BCAST_BLOCK ------------------------------------------------------- */

static void fanout_bcast_retarget (const void *msg, union fanout_msg *fwd,
                                   char **slice, uint32_t n, uint32_t budget_ms)
{
    fwd->block = *(const struct msg_bcast_block *)msg;
    fwd->block.slice = slice;
    fwd->block.slice_count = n;
    fwd->block.budget_ms = budget_ms;
}

/* A BCAST_REPLY names each node of the chunk that failed; an error
 * without names is the head's own. */
static void fanout_bcast_reply (struct fanout *f, const char *head,
                                const void *reply)
{
    const struct msg_bcast_reply *r = reply;

    for (uint32_t i = 0; i < r->failed_nodes_count; i++)
        f->ops->failed (r->failed_nodes[i], r->errnum ? r->errnum : EIO,
                        i < r->failed_errors_count ? r->failed_errors[i]
                                                   : "failed",
                        f->arg);
    if (r->errnum && r->failed_nodes_count == 0)
        f->ops->failed (head, r->errnum, r->text ? r->text : "", f->arg);
}

static const struct fanout_kind fanout_bcast_kind = {
    .type = MSG_BCAST_BLOCK,
    .reply_type = MSG_BCAST_REPLY,
    .refused = "refused",
    .retarget = fanout_bcast_retarget,
    .reply = fanout_bcast_reply,
};

struct fanout *fanout_start_bcast (struct noded *nd,
                                   const struct msg_bcast_block *m, double end,
                                   uint32_t margin_ms,
                                   const struct fanout_ops *ops, void *arg)
{
    uint32_t width = m->width && m->width < nd->conf->tree_width
                         ? m->width
                         : nd->conf->tree_width;
    struct fanout *f = fanout_create (nd, &fanout_bcast_kind, m, m->slice,
                                      m->slice_count, width);

    if (!f) {
        errno = ENOMEM;
        return NULL;
    }
    snprintf (f->what, sizeof (f->what), "bcast %u", m->job_id);
    return fanout_run (f, end, margin_ms, ops, arg);
}

/* ---- either ------------------------------------------------------------ */

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
