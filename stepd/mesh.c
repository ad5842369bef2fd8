/* mesh.c - messages between the stepds of one step, through their nodeds.
 *
 * The MPI layer (coll.c, mpi.c) needs the stepds of a step to talk: a
 * fence's data up and down a tree, a direct modex, an abort. A stepd has
 * no address its peers know, but each has its noded, and the nodeds know
 * each other and keep authenticated connections between them (peers.h:
 * one munge handshake per pair of nodes, a MAC on every frame). So a
 * STEP_MESH frame goes: this stepd -> its noded over the unix connection
 * they share (fd 0, or the step socket after a noded restart) -> the
 * destination node's noded over TCP -> its stepd. Each hop answers RC
 * once the next one took the frame; the noded answers us with the far
 * noded's answer.
 *
 * Each send is one request on the noded connection the stepd holds
 * (common/wire/request_conn.h; the connection hands out the matchtag and
 * routes the answer), following sd->noded as it changes (a noded restart)
 * and retried by the request itself (opts.retry): ENOENT (the
 * destination's stepd is not started yet, it may still be in the launch
 * tree), a noded that is restarting or unreachable, an unanswered attempt
 * are tried again, with a growing pause, until MESH_DEADLINE after the
 * first attempt. Then the send fails and mpi.c ends the step, naming the
 * node that could not be reached. A refusal no retry can change (EPERM,
 * EINVAL, EPROTO, EMSGSIZE) fails it at once. A resent frame may arrive
 * twice; receivers ignore what they already have (coll.c, the plugins).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "base.h"
#include "mesh.h"
#include "request_conn.h"
#include "stepd.h"

#define MESH_DEADLINE 60.0   /* s from the first attempt */
#define MESH_ATTEMPT 10.0    /* s an attempt may go unanswered */
#define MESH_PAUSE_MIN 0.005 /* s before the first retry ... */
#define MESH_PAUSE_MAX 0.25  /* ... doubling up to this */

/* One frame on its way. */
struct mesh_send {
    struct mesh *mesh;
    struct mesh_send *next;
    struct request *req; /* its request, retried until MESH_DEADLINE */
    uint32_t dst;
};

struct mesh {
    struct stepd *sd;
    const char *const *names; /* step nodes by index, borrowed */
    uint32_t nnodes;
    struct mesh_send *sends;
    mesh_recv_f recv;
    mesh_fail_f fail;
};

/* Unlink and free s (its request has ended or is cancelled). */
static void mesh_send_free (struct mesh_send *s)
{
    struct mesh_send **pp;

    for (pp = &s->mesh->sends; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    free (s);
}

/* Refusals that no retry can change: a frame the nodeds will never take
 * (not this stepd's step, an unknown node, malformed, too big). */
static bool mesh_refusal_final (int errnum)
{
    return errnum == EPERM || errnum == EINVAL || errnum == EPROTO
           || errnum == EMSGSIZE;
}

/* request_again_f: what the nodeds refused for now (ENOENT: the stepd
 * there is not started yet) is retried too. */
static bool mesh_again (const struct request_result *res, void *arg)
{
    (void)arg;
    return res->outcome != REQUEST_REFUSED || !mesh_refusal_final (res->errnum);
}

/* The send's end: taken, or given up (the MPI layer is told and ends
 * the step). */
static void mesh_done_cb (const struct request_result *res, void *arg)
{
    struct mesh_send *s = arg;
    struct mesh *mh = s->mesh;
    uint32_t dst = s->dst;
    const char *why = res->err.text;

    mesh_send_free (s); /* its request frees itself */
    if (res->errnum == 0)
        return;
    if (res->outcome == REQUEST_TIMEDOUT)
        why = "no answer from the noded";
    else if (res->outcome == REQUEST_UNREACHED && res->errnum == ENOTCONN)
        why = "no noded connection";
    mh->fail (mh->sd, dst, why);
}

int mesh_send (struct stepd *sd, uint32_t dst, uint32_t kind, uint64_t seq,
               const void *data, size_t len)
{
    struct mesh *mh = sd->mesh;
    struct mesh_send *s;
    struct request_opts opts = {
        .timeout = MESH_ATTEMPT,
        .retry = { .interval = MESH_PAUSE_MIN,
                   .interval_max = MESH_PAUSE_MAX,
                   .deadline = MESH_DEADLINE,
                   .again = mesh_again },
    };

    if (!mh || dst >= mh->nnodes || len > PROTO_MAX_PAYLOAD) {
        errno = !mh || dst >= mh->nnodes ? EINVAL : EMSGSIZE;
        return -1;
    }
    struct msg_step_mesh m = {
        .job_id = sd->init.job_id,
        .step_id = sd->init.step_id,
        .src = sd->init.node_id,
        .dst = dst,
        .dst_node = (char *)mh->names[dst],
        .kind = kind,
        .seq = seq,
        .payload = (char *)data, /* the request copies it */
        .payload_len = (uint32_t)len,
    };
    if (!(s = calloc (1, sizeof (*s))))
        return -1;
    s->mesh = mh;
    s->dst = dst;
    if (!(s->req = request_conn_follow (sd->loop, &sd->noded, MSG_STEP_MESH, &m,
                                        &opts, mesh_done_cb, s))) {
        int e = errno;
        free (s);
        errno = e;
        return -1;
    }
    s->next = mh->sends;
    mh->sends = s;
    return 0;
}

void mesh_frame (struct stepd *sd, const struct frame *f)
{
    struct mesh *mh = sd->mesh;
    struct msg_step_mesh m;
    arbor_error_t err = { "" };

    if (proto_decode (MSG_STEP_MESH, f->body, f->body_len, &m, &err) < 0) {
        log_warn ("STEP_MESH: %s", err.text);
        return;
    }
    if (!mh || m.job_id != sd->init.job_id || m.step_id != sd->init.step_id
        || m.dst != sd->init.node_id || m.src >= mh->nnodes || m.src == m.dst)
        log_warn ("STEP_MESH for %u.%u node %u from node %u refused: this is "
                  "%s node %u%s",
                  m.job_id, m.step_id, m.dst, m.src, stepd_id (sd),
                  sd->init.node_id, mh ? "" : " (no MPI)");
    else
        mh->recv (sd, m.src, m.kind, m.seq, m.payload, m.payload_len);
    proto_clear (MSG_STEP_MESH, &m);
}

int mesh_init (struct stepd *sd, const char *const *names, uint32_t nnodes,
               mesh_recv_f recv, mesh_fail_f fail)
{
    if (!(sd->mesh = calloc (1, sizeof (*sd->mesh))))
        return -1;
    *sd->mesh = (struct mesh){
        .sd = sd,
        .names = names,
        .nnodes = nnodes,
        .recv = recv,
        .fail = fail,
    };
    return 0;
}

size_t mesh_pending (const struct stepd *sd)
{
    size_t n = 0;

    for (struct mesh_send *s = sd->mesh ? sd->mesh->sends : NULL; s;
         s = s->next)
        n++;
    return n;
}

void mesh_fini (struct stepd *sd)
{
    if (!sd->mesh)
        return;
    while (sd->mesh->sends) {
        request_cancel (sd->mesh->sends->req);
        mesh_send_free (sd->mesh->sends);
    }
    free (sd->mesh);
    sd->mesh = NULL;
}
