/* bcast_gather.c - GATHER_READ on a node: one read of sgather's source.
 *
 * After the checks every request shares (bcast_req.c), the child reads
 * at most max_len bytes (capped at GATHER_MAX_READ) of the source at
 * offset as the job's user, or removes it, and the answer is GATHER_DATA
 * (RC 0 after a removal). sgather asks each node directly, block after
 * block, so nothing is forwarded here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "bcast_file.h"
#include "bcast_gather.h"
#include "bcast_req.h"
#include "log.h"
#include "noded_base.h"

#define GATHER_MAX_READ (8u << 20) /* sgather's largest block */

static size_t gather_len (const struct msg_gather_read *m)
{
    return m->max_len && m->max_len < GATHER_MAX_READ ? m->max_len
                                                      : GATHER_MAX_READ;
}

/* In the child, as the user: the file's facts go in aux. */
static void gather_work (void *arg, struct bcast_io_result *res)
{
    const struct bcast_req *r = arg;
    const struct msg_gather_read *m = &r->read;
    struct gather_file gf = { 0 };
    int rc;

    _Static_assert(sizeof (gf) <= sizeof (res->aux), "aux too small");
    if (m->remove)
        rc = gather_file_remove (m->source, &res->err);
    else
        rc = gather_file_read (m->source, m->offset, res->data, gather_len (m),
                               &gf, &res->err);
    if (rc < 0) {
        res->errnum = errno ? errno : EIO;
        return;
    }
    res->len = gf.len;
    memcpy (res->aux, &gf, sizeof (gf));
}

static void gather_done_cb (const struct bcast_io_result *res, void *arg)
{
    struct bcast_req *r = arg;
    struct gather_file gf;
    struct msg_gather_data d = { .node = (char *)r->nd->name };

    memcpy (&gf, res->aux, sizeof (gf));
    if (res->errnum) {
        bcast_req_refuse (r, res->errnum, res->err.text);
        return;
    }
    if (!r->parent) {
        bcast_req_free (r);
        return;
    }
    if (r->read.remove) {
        conn_send_rc (r->parent, r->matchtag, 0, "%s", "");
        bcast_req_free (r);
        return;
    }
    d.payload = (char *)res->data;
    d.payload_len = (uint32_t)res->len;
    d.size = gf.size;
    d.mode = gf.mode;
    d.atime = (uint64_t)gf.atime;
    d.mtime = (uint64_t)gf.mtime;
    d.eof = gf.eof;
    if (conn_send (r->parent, MSG_GATHER_DATA, r->matchtag, FRAME_F_RESPONSE,
                   &d)
        < 0)
        log_info ("gather %u: cannot answer %s: %s", r->job_id,
                  conn_peer (r->parent), strerror (errno));
    bcast_req_free (r);
}

static void gather_run (struct bcast_req *r)
{
    struct bcast_ident id;
    arbor_error_t err;

    if (!r->read.source || r->read.source[0] != '/') {
        bcast_req_refuse (r, EINVAL, "the source must be an absolute path");
        return;
    }
    bcast_req_ident (r, &id);
    r->io = bcast_io_start (r->nd->loop, &id,
                            r->read.remove ? 0 : gather_len (&r->read),
                            gather_work, r, gather_done_cb, r, &err);
    if (!r->io)
        bcast_req_refuse (r, errno, err.text);
}

void gather_read_handle (struct noded *nd, struct conn *c,
                         const struct frame *f, struct msg_gather_read *m)
{
    struct bcast_req *r = bcast_req_create (nd, c, f);

    if (!r)
        return;
    r->read = *m;
    memset (m, 0, sizeof (*m)); /* ours now */
    r->cred = r->read.cred;
    r->job_id = r->read.job_id;
    r->run = gather_run;
    bcast_req_open (r);
}
