/* fixture.c - see fixture.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "conn.h"
#include "ctld.h"
#include "error.h"
#include "fixture.h"
#include "job/job.h"
#include "job/jobid.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"
#include "nodes/part.h"
#include "proto.h"
#include "sched/sched.h"
#include "serve/serve.h"
#include "job/term.h"
#include "job/submit.h"

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

/* The configuration is also written to a file of its own, so that a
 * reconfigure (which reads arbor.conf again) finds it; the files go when
 * the test program exits. */
#define FIXTURE_CONFS 256
static char fixture_conf_paths[FIXTURE_CONFS][40];
static int fixture_nconfs;

static void fixture_conf_unlink (void)
{
    for (int i = 0; i < fixture_nconfs; i++)
        unlink (fixture_conf_paths[i]);
}

/* A new file holding conf_text; its path, or NULL. */
static const char *fixture_conf_file (const char *conf_text)
{
    char *path;
    ssize_t n;
    int fd;

    if (fixture_nconfs == FIXTURE_CONFS)
        return NULL;
    if (fixture_nconfs == 0)
        atexit (fixture_conf_unlink);
    path = fixture_conf_paths[fixture_nconfs];
    snprintf (path, sizeof (fixture_conf_paths[0]),
              "/tmp/arbor-fixture-XXXXXX");
    if ((fd = mkstemp (path)) < 0)
        return NULL;
    fixture_nconfs++;
    n = write (fd, conf_text, strlen (conf_text));
    close (fd);
    return n == (ssize_t)strlen (conf_text) ? path : NULL;
}

struct ctld *fixture_ctld (const char *conf_text, struct outbox *out)
{
    arbor_error_t err;
    const char *path = fixture_conf_file (conf_text);
    struct conf *conf;
    struct ctld *ctx;

    if (!path || !(conf = conf_parse (conf_text, path, &err)))
        return NULL;
    log_open ("ctld_test", LOG_LVL_WARN, NULL);
    /* The daemon's own assembly, without munge, listener and timers. */
    if (!(ctx = ctld_create_state (conf, ev_loop_new (EVFLAG_AUTO),
                                   CTLD_STATE_VOLATILE, &err)))
        return NULL;
    ctx->priv_uid = 0;
    nodecomm_set_sink (ctx->nodecomm, outbox_record, out);
    for (size_t i = 0; i < ctx->nnodes; i++)
        node_register (ctx, i, ctx->nodes[i].cpus, ctx->nodes[i].real_memory,
                       NULL, time (NULL));
    sched_flush (ctx);
    return ctx;
}

void fixture_free (struct ctld *ctx)
{
    ctld_destroy (ctx);
}

/* The outbox of the context fixture_setup made last: cmocka runs one test
 * at a time, and hands its teardown only the state, the context. */
static struct outbox *fixture_setup_out;

int fixture_setup (void **state)
{
    const struct fixture_spec *spec = *state;
    struct ctld *ctx = fixture_ctld (spec->conf_text, spec->out);

    if (!ctx)
        return -1;
    ctx->priv_uid = spec->priv_uid;
    if (spec->noded_uid)
        ctx->noded_uid = spec->noded_uid;
    ctx->sim_now = spec->sim_now;
    fixture_setup_out = spec->out;
    *state = ctx;
    return 0;
}

int fixture_teardown (void **state)
{
    fixture_free (*state);
    outbox_clear (fixture_setup_out);
    fixture_setup_out = NULL;
    return 0;
}

struct job *fixture_submit (struct ctld *ctx, const struct msg_job_alloc *r,
                            uid_t uid, arbor_error_t *err)
{
    struct msg_job_alloc req = *r;
    struct job *j;

    if (req.cpus_per_task == 0)
        req.cpus_per_task = 1; /* as the commands send it */
    j = job_create (ctx, &req, uid, uid, err);

    if (!j)
        return NULL;
    if (job_submit (ctx, j, err) < 0) {
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
            .job_id = j->id,
            .node = ctx->nodes[idx[k]].name,
            .rc = 0,
            .drain_reason = "",
        };
        arbor_error_t err;
        if (term_epilog_complete (ctx, &m, &err) == 0)
            n++;
    }
    free (idx);
    return n;
}

static void fixture_conn_frame_cb (struct conn *c, const struct frame *f,
                                   void *arg)
{
    (void)c;
    (void)f;
    (void)arg;
}

static const struct conn_ops fixture_conn_ops = {
    .frame = fixture_conn_frame_cb,
};

struct conn *fixture_conn (struct ctld *ctx, int *peer)
{
    int fds[2];
    struct conn *c;

    if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
        return NULL;
    if (!(c = conn_create_unix (ctx->loop, fds[0], &fixture_conn_ops, NULL))) {
        close (fds[0]);
        close (fds[1]);
        return NULL;
    }
    *peer = fds[1];
    return c;
}

void fixture_request (struct ctld *ctx, struct conn *c, int type,
                      const void *msg, uid_t uid)
{
    struct frame f = { .type = type, .matchtag = 7, .uid = uid, .gid = uid };
    char *body = NULL;
    size_t len = 0;

    if (proto_encode (type, msg, &body, &len) < 0)
        abort ();
    f.body = body;
    f.body_len = len;
    serve_request (ctx, c, &f);
    sched_flush (ctx); /* what the loop does before it sleeps */
    free (body);
}

/* Read what is there into a 64 KiB window: only the header and, when it
 * fits, the body are kept (a big answer is counted, not held). */
struct fixture_rx {
    unsigned char head[PROTO_HEADER_SIZE];
    char *body; /* when body_len <= FIXTURE_RX_KEEP */
    size_t got, need;
    struct frame_header h;
};
#define FIXTURE_RX_KEEP (8u << 20) /* a JOB_INFO page (4 MiB) fits */

static int fixture_rx_take (struct fixture_rx *rx, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++, rx->got++) {
        if (rx->got < PROTO_HEADER_SIZE) {
            rx->head[rx->got] = (unsigned char)p[i];
            if (rx->got + 1 == PROTO_HEADER_SIZE) {
                arbor_error_t err;
                if (frame_header_unpack (rx->head, &rx->h, &err) < 0)
                    return -1;
                rx->need = PROTO_HEADER_SIZE + rx->h.token_len + rx->h.body_len;
                if (rx->h.body_len <= FIXTURE_RX_KEEP
                    && !(rx->body = calloc (1, rx->h.body_len + 1)))
                    return -1;
            }
            continue;
        }
        size_t off = rx->got - PROTO_HEADER_SIZE;
        if (rx->body && off >= rx->h.token_len)
            rx->body[off - rx->h.token_len] = p[i];
    }
    return 0;
}

int fixture_answer (struct ctld *ctx, int peer, int *type, union msg_any *msg,
                    size_t *body_len)
{
    struct fixture_rx rx = { .need = PROTO_HEADER_SIZE };
    char buf[65536];
    int rc = -1;

    for (int spin = 0; spin < 2000 && rx.got < rx.need; spin++) {
        struct pollfd pf = { .fd = peer, .events = POLLIN };
        ev_run (ctx->loop, EVRUN_NOWAIT);
        if (poll (&pf, 1, 5) <= 0)
            continue;
        ssize_t n = read (peer, buf, sizeof (buf));
        if (n <= 0 || fixture_rx_take (&rx, buf, (size_t)n) < 0)
            goto out;
        if (rx.got >= PROTO_HEADER_SIZE)
            spin = 0; /* progress: keep going */
    }
    if (rx.got < rx.need || rx.got < PROTO_HEADER_SIZE)
        goto out;
    *type = rx.h.type;
    if (body_len)
        *body_len = rx.h.body_len;
    if (msg) {
        arbor_error_t err;
        memset (msg, 0, sizeof (*msg));
        if (!rx.body
            || proto_decode (rx.h.type, rx.body, rx.h.body_len, msg, &err) < 0)
            goto out;
    }
    rc = 0;
out:
    free (rx.body);
    return rc;
}
