/* bcast_send.c - sbcast's transfer (bcast_send.h), and the setup it
 * shares with sgather: the credential and the connection to node zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bcast_send.h"
#include "conf.h"
#include "hostlist.h"
#include "log.h"

/* BCAST_BLOCK's op (common/wire/proto_msgs.def; noded/bcast_file.h). */
enum { BCAST_OP_WRITE = 0, BCAST_OP_COMMIT = 1, BCAST_OP_ABORT = 2 };

#define BCAST_TIMEOUT_DEFAULT 10 /* s: Slurm's MessageTimeout default */
#define BCAST_RENEW_MARGIN 30    /* s before expiry to renew */
#define BCAST_WAIT_EXTRA_MS 5000 /* beyond node zero's budget */

static int bcast_get_cred (struct bcast_target *t, arbor_error_t *err)
{
    struct msg_bcast_cred req = { .job_id = t->o->job, .step_id = t->o->step };
    struct hostlist *hl;

    proto_clear (MSG_BCAST_CRED_REPLY, &t->cred);
    if (client_call (t->cl, MSG_BCAST_CRED, &req, MSG_BCAST_CRED_REPLY,
                     &t->cred, CLIENT_TIMEOUT_MS, err)
        < 0)
        return -1;
    if (t->slice)
        return 0; /* a renewal: same nodes */
    if (!(hl = hostlist_create (t->cred.nodelist, err)))
        return -1;
    t->nslice = (uint32_t)hostlist_count (hl);
    if (!(t->slice = calloc (t->nslice + 1, sizeof (char *))))
        die ("out of memory");
    for (uint32_t i = 0; i < t->nslice; i++)
        if (!(t->slice[i] = strdup (hostlist_nth (hl, i))))
            die ("out of memory");
    hostlist_destroy (hl);
    if (t->nslice == 0 || t->cred.addrs_count < 1) {
        errno = EPROTO;
        return errprintf (err, "the controller named no nodes");
    }
    return 0;
}

int bcast_target_open (struct bcast_target *t, struct client *cl,
                       const struct bcast_opts *o, arbor_error_t *err)
{
    long uid;

    memset (t, 0, sizeof (*t));
    t->cl = cl;
    t->o = o;
    t->ch.fd = -1;
    if ((uid = conf_noded_uid (cl->conf)) < 0) {
        errno = EINVAL;
        return errprintf (err, "NodedUser %s: no such user",
                          cl->conf->noded_user);
    }
    t->noded_uid = (uid_t)uid;
    if (bcast_get_cred (t, err) < 0)
        return -1;
    log_verbose ("job %u: nodes %s, node zero at %s", o->job, t->cred.nodelist,
                 t->cred.addrs[0]);
    if (rpc_open (&t->ch, cl->auth, t->cred.addrs[0],
                  (uint16_t)t->cred.noded_port, t->noded_uid, CLIENT_TIMEOUT_MS,
                  err)
        < 0) {
        int e = errno;
        arbor_error_t why = *err;
        errprintf (err, "%s: %s", t->slice[0], why.text);
        errno = e;
        return -1;
    }
    return 0;
}

void bcast_target_close (struct bcast_target *t)
{
    if (t->ch.fd >= 0)
        rpc_close (&t->ch);
    for (uint32_t i = 0; i < t->nslice; i++)
        free (t->slice[i]);
    free (t->slice);
    t->slice = NULL;
    proto_clear (MSG_BCAST_CRED_REPLY, &t->cred);
}

int bcast_target_begin (struct bcast_target *t, struct client *cl,
                        const struct bcast_opts *o)
{
    arbor_error_t err;

    *cl = (struct client){ .ch.fd = -1 };
    *t = (struct bcast_target){ .ch.fd = -1 };
    if (o->verbose)
        log_set_level (LOG_LVL_INFO + o->verbose);
    if (client_open (cl, &err) < 0)
        die ("%s", err.text);
    if (bcast_target_open (t, cl, o, &err) < 0) {
        fprintf (stderr, "%s: error: %s\n", o->prog, err.text);
        return -1;
    }
    return 0;
}

void bcast_target_end (struct bcast_target *t, struct client *cl)
{
    bcast_target_close (t);
    client_close (cl);
}

/* Say each failed node of r on stderr. */
static void bcast_report (const struct bcast_target *t,
                          const struct msg_bcast_reply *r)
{
    for (uint32_t i = 0; i < r->failed_nodes_count; i++)
        fprintf (stderr, "%s: error: %s: %s\n", t->o->prog, r->failed_nodes[i],
                 i < r->failed_errors_count ? r->failed_errors[i] : "failed");
    if (r->failed_nodes_count == 0 && r->errnum)
        fprintf (stderr, "%s: error: %s\n", t->o->prog,
                 r->text ? r->text : "failed");
}

/* One block to every node and its answer: 0, or -1 with err (and the
 * failed nodes said when 'say'). */
static int bcast_block (struct bcast_target *t, struct msg_bcast_block *m,
                        bool say, arbor_error_t *err)
{
    uint32_t timeout = t->o->timeout ? t->o->timeout : BCAST_TIMEOUT_DEFAULT;
    struct msg_bcast_reply r;
    union msg_any any;
    uint32_t tag = ++t->tag;
    int type;

    if ((uint64_t)time (NULL) + BCAST_RENEW_MARGIN > t->cred.expires
        && bcast_get_cred (t, err) < 0)
        return -1;
    m->cred = t->cred.cred;
    m->job_id = t->cred.job_id;
    m->slice = t->slice;
    m->slice_count = t->nslice;
    m->width = t->o->fanout;
    m->budget_ms = timeout * 1000;
    if (rpc_send (&t->ch, MSG_BCAST_BLOCK, tag, m, err) < 0)
        return -1;
    do {
        if (rpc_recv_tagged (&t->ch, (int)(m->budget_ms + BCAST_WAIT_EXTRA_MS),
                             &type, NULL, NULL, &any, NULL, err)
            < 0)
            return errprintf (err, "%s: %s", t->slice[0], err->text);
        if (type == MSG_RC && any.rc.errnum) {
            errno = any.rc.errnum;
            errprintf (err, "%s: %s", t->slice[0],
                       any.rc.text ? any.rc.text : "refused");
            proto_clear (type, &any);
            if (say)
                fprintf (stderr, "%s: error: %s\n", t->o->prog, err->text);
            errno = EPERM;
            return -1;
        }
        if (type != MSG_BCAST_REPLY)
            proto_clear (type, &any);
    } while (type != MSG_BCAST_REPLY);
    r = any.bcast_reply;
    if (r.errnum) {
        if (say)
            bcast_report (t, &r);
        errno = r.errnum;
        errprintf (err, "%s", r.text ? r.text : "failed");
        proto_clear (MSG_BCAST_REPLY, &r);
        return -1;
    }
    proto_clear (MSG_BCAST_REPLY, &r);
    return 0;
}

/* Stream src in blocks; then commit. */
static int bcast_stream (struct bcast_target *t, int fd, const struct stat *st,
                         struct msg_bcast_block *m, arbor_error_t *err)
{
    uint32_t size = t->o->size ? t->o->size : BCAST_SIZE_DEFAULT;
    char *buf = malloc (size);
    uint64_t off = 0;
    ssize_t n;

    if (!buf)
        die ("out of memory");
    do {
        while ((n = pread (fd, buf, size, (off_t)off)) < 0 && errno == EINTR)
            ;
        if (n < 0) {
            free (buf);
            return errprintf (err, "read: %s", strerror (errno));
        }
        m->op = BCAST_OP_WRITE;
        m->offset = off;
        m->payload = buf;
        m->payload_len = (uint32_t)n;
        if (bcast_block (t, m, true, err) < 0) {
            free (buf);
            return -1;
        }
        off += (uint64_t)n;
    } while (n > 0 && off < (uint64_t)st->st_size);
    free (buf);
    m->op = BCAST_OP_COMMIT;
    m->payload = NULL;
    m->payload_len = 0;
    m->file_size = off;
    return bcast_block (t, m, true, err);
}

int bcast_send_file (struct bcast_target *t, const char *src, const char *dest,
                     bool make_dir, arbor_error_t *err)
{
    struct msg_bcast_block m = { .dest = (char *)dest,
                                 .force = t->o->force,
                                 .preserve = t->o->preserve,
                                 .make_dir = make_dir };
    struct stat st;
    arbor_error_t ignored;
    int fd = open (src, O_RDONLY | O_CLOEXEC);
    int rc;

    if (fd < 0 || fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)) {
        int e = fd < 0 ? errno : EINVAL;
        if (fd >= 0)
            close (fd);
        errno = e;
        return errprintf (err, "can't open %s: %s", src,
                          e == EINVAL ? "not a regular file" : strerror (e));
    }
    if (getrandom (&m.xfer, sizeof (m.xfer), 0) != sizeof (m.xfer))
        m.xfer = ((uint64_t)getpid () << 32) ^ (uint64_t)time (NULL);
    m.mode = st.st_mode & 0777;
    m.atime = (uint64_t)st.st_atim.tv_sec;
    m.mtime = (uint64_t)st.st_mtim.tv_sec;
    log_verbose ("%s -> %s: %lld bytes", src, dest, (long long)st.st_size);
    rc = bcast_stream (t, fd, &st, &m, err);
    close (fd);
    if (rc < 0 && t->ch.fd >= 0) {
        m.op = BCAST_OP_ABORT;
        m.payload = NULL;
        m.payload_len = 0;
        (void)bcast_block (t, &m, false, &ignored);
    }
    return rc;
}
