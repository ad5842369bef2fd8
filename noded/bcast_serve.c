/* bcast_serve.c - BCAST_BLOCK on a node: check, forward, write, fan in.
 *
 * A flat chain, as a launch's (launch.c):
 *     bcast_req_open     credential and, when needed, the controller
 *     bcast_block_check  the slice and the destination
 *     fanout_start_bcast the block to the head of each chunk of slice[1..]
 *     bcast_io_start     this node's own file work, as the job's user
 * then one BCAST_REPLY for the whole slice when both are over, or when
 * our budget (less its margin) runs out, naming each node that failed
 * and why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcast_cred.h"
#include "bcast_file.h"
#include "bcast_serve.h"
#include "bcast_req.h"
#include "fanout.h"
#include "log.h"
#include "noded_base.h"

#define BCAST_DEFAULT_BUDGET_MS 60000

static void bcast_add_failed (struct bcast_req *r, const char *node, int errnum,
                              const char *error)
{
    char **n, **e;

    if (!r->errnum) {
        r->errnum = errnum ? errnum : EIO;
        free (r->text);
        if (asprintf (&r->text, "%s: %s", node, error) < 0)
            r->text = NULL;
    }
    n = realloc (r->failed_nodes, (r->nfailed + 1) * sizeof (*n));
    if (n)
        r->failed_nodes = n;
    e = realloc (r->failed_errors, (r->nfailed + 1) * sizeof (*e));
    if (e)
        r->failed_errors = e;
    if (!n || !e)
        return; /* the first error is kept in text all the same */
    n[r->nfailed] = strdup (node);
    e[r->nfailed] = strdup (error);
    if (n[r->nfailed] && e[r->nfailed])
        r->nfailed++;
    else {
        free (n[r->nfailed]);
        free (e[r->nfailed]);
    }
}

static void bcast_answer (struct bcast_req *r)
{
    struct msg_bcast_reply rep = {
        .errnum = r->errnum,
        .text = r->text ? r->text : "",
        .failed_nodes = r->failed_nodes,
        .failed_nodes_count = r->nfailed,
        .failed_errors = r->failed_errors,
        .failed_errors_count = r->nfailed,
    };

    if (r->parent
        && conn_send (r->parent, MSG_BCAST_REPLY, r->matchtag, FRAME_F_RESPONSE,
                      &rep)
               < 0)
        log_info ("bcast %u: cannot answer %s: %s", r->job_id,
                  conn_peer (r->parent), strerror (errno));
    bcast_req_free (r);
}

static void bcast_maybe_answer (struct bcast_req *r)
{
    if (!r->starting && r->io_done && (!r->fan || fanout_finished (r->fan)))
        bcast_answer (r);
}

static void bcast_fan_failed_cb (const char *node, int errnum,
                                 const char *error, void *arg)
{
    bcast_add_failed (arg, node, errnum, error);
}

static void bcast_fan_done_cb (void *arg)
{
    bcast_maybe_answer (arg);
}

static const struct fanout_ops bcast_fan_ops = {
    .failed = bcast_fan_failed_cb,
    .done = bcast_fan_done_cb,
};

/* In the child, as the user. */
static void bcast_work (void *arg, struct bcast_io_result *res)
{
    const struct bcast_req *r = arg;
    const struct msg_bcast_block *m = &r->block;
    struct bcast_file_req fr = {
        .dest = m->dest,
        .node = r->nd->name,
        .xfer = m->xfer,
        .op = (enum bcast_op)m->op,
        .offset = m->offset,
        .data = m->payload,
        .len = m->payload_len,
        .file_size = m->file_size,
        .mode = m->mode,
        .force = m->force,
        .preserve = m->preserve,
        .make_dir = m->make_dir,
        .atime = (int64_t)m->atime,
        .mtime = (int64_t)m->mtime,
    };

    if (bcast_file_do (&fr, &res->err) < 0)
        res->errnum = errno ? errno : EIO;
}

static void bcast_io_done_cb (const struct bcast_io_result *res, void *arg)
{
    struct bcast_req *r = arg;

    /* r->io stays: bcast_req_free destroys it, after this returns */
    if (res->errnum)
        bcast_add_failed (r, r->nd->name, res->errnum, res->err.text);
    r->io_done = true;
    bcast_maybe_answer (r);
}

static void bcast_deadline_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct bcast_req *r = w->data;

    if (r->fan)
        fanout_expire (r->fan);
    if (!r->io_done)
        bcast_add_failed (r, r->nd->name, ETIMEDOUT,
                          "the file work did not end in time");
    r->io_done = true;
    bcast_answer (r);
}

static int bcast_block_check (const struct bcast_req *r, arbor_error_t *err)
{
    const struct msg_bcast_block *m = &r->block;

    if (bcast_slice_check (&r->claims, m->slice, m->slice_count, r->nd->name,
                           err)
        < 0)
        return -1;
    if (!m->dest || m->dest[0] != '/' || m->op > BCAST_OP_ABORT) {
        errno = EINVAL;
        return errprintf (err, "bad request: destination %s, operation %u",
                          m->dest ? m->dest : "none", m->op);
    }
    return 0;
}

static void bcast_block_run (struct bcast_req *r)
{
    struct noded *nd = r->nd;
    uint32_t budget =
        r->block.budget_ms ? r->block.budget_ms : BCAST_DEFAULT_BUDGET_MS;
    uint32_t margin = fanout_margin (budget);
    double end = ev_now (nd->loop) + budget / 1000.0;
    struct bcast_ident id;
    struct bcast_io *io;
    arbor_error_t err;

    if (bcast_block_check (r, &err) < 0) {
        bcast_req_refuse (r, errno, err.text);
        return;
    }
    r->starting = true;
    ev_timer_init (&r->deadline_w, bcast_deadline_cb,
                   (budget - margin) / 1000.0, 0.);
    r->deadline_w.data = r;
    ev_timer_start (nd->loop, &r->deadline_w);
    if (!(r->fan = fanout_start_bcast (nd, &r->block, end, margin,
                                       &bcast_fan_ops, r)))
        bcast_add_failed (r, nd->name, ENOMEM, "out of memory");
    bcast_req_ident (r, &id);
    io = bcast_io_start (nd->loop, &id, 0, bcast_work, r, bcast_io_done_cb, r,
                         &err);
    if (!io) {
        bcast_add_failed (r, nd->name, errno, err.text);
        r->io_done = true;
    }
    r->io = io;
    r->starting = false;
    bcast_maybe_answer (r);
}

void bcast_block_handle (struct noded *nd, struct conn *c,
                         const struct frame *f, struct msg_bcast_block *m)
{
    struct bcast_req *r = bcast_req_create (nd, c, f);

    if (!r)
        return;
    r->block = *m;
    memset (m, 0, sizeof (*m)); /* ours now */
    r->cred = r->block.cred;
    r->job_id = r->block.job_id;
    r->run = bcast_block_run;
    log_debug ("bcast %u: op %u of %s at %llu (%u bytes) from uid %u",
               r->job_id, r->block.op, r->block.dest ? r->block.dest : "?",
               (unsigned long long)r->block.offset, r->block.payload_len,
               (unsigned)f->uid);
    bcast_req_open (r);
}
