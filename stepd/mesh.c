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
 * Sends are retried: ENOENT (the destination's stepd is not started yet,
 * it may still be in the launch tree), a noded that is restarting or
 * unreachable, an unanswered attempt are tried again, with a growing
 * pause, until MESH_DEADLINE after the first attempt. Then the send fails
 * and mpi.c ends the step, naming the node that could not be reached. A
 * refusal no retry can change (EPERM, EINVAL, EPROTO, EMSGSIZE) fails it
 * at once. A
 * resent frame may arrive twice; receivers ignore what they already
 * have (coll.c, the plugins).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "base.h"
#include "mesh.h"
#include "stepd.h"

#define MESH_DEADLINE 60.0   /* s from the first attempt */
#define MESH_ATTEMPT 10.0    /* s an attempt may go unanswered */
#define MESH_PAUSE_MIN 0.005 /* s before the first retry ... */
#define MESH_PAUSE_MAX 0.25  /* ... doubling up to this */
#define MESH_TAG_FIRST 16u   /* matchtags below are report.c's */

/* One frame on its way. */
struct mesh_send {
    struct mesh *mesh;
    struct mesh_send *next;
    struct msg_step_mesh m; /* dst_node borrowed from mesh->names,
                             * payload owned */
    uint32_t tag;           /* of the attempt in flight, 0 if none */
    ev_timer w;             /* next attempt, or the attempt's bound */
    ev_tstamp first;        /* first attempt */
    double pause;           /* before the next retry */
};

struct mesh {
    struct stepd *sd;
    const char *const *names; /* step nodes by index, borrowed */
    uint32_t nnodes;
    struct mesh_send *sends;
    uint32_t next_tag;
    mesh_recv_f recv;
    mesh_fail_f fail;
};

static uint32_t mesh_tag (struct mesh *mh)
{
    if (mh->next_tag < MESH_TAG_FIRST)
        mh->next_tag = MESH_TAG_FIRST;
    return mh->next_tag++;
}

static void mesh_send_free (struct mesh_send *s)
{
    struct mesh_send **pp;

    for (pp = &s->mesh->sends; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    ev_timer_stop (s->mesh->sd->loop, &s->w);
    free (s->m.payload);
    free (s);
}

static void mesh_attempt_cb (struct ev_loop *loop, ev_timer *w, int revents);

/* Give up on s: the MPI layer is told (and ends the step). */
static void mesh_give_up (struct mesh_send *s, const char *why)
{
    struct mesh *mh = s->mesh;
    uint32_t dst = s->m.dst;
    char text[256];

    snprintf (text, sizeof (text), "%s", why);
    mesh_send_free (s);
    mh->fail (mh->sd, dst, text);
}

/* The attempt failed ('why'): retry after a pause, or give up. */
static void mesh_retry (struct mesh_send *s, const char *why)
{
    struct stepd *sd = s->mesh->sd;
    double left = s->first + MESH_DEADLINE - ev_now (sd->loop);

    s->tag = 0;
    if (left <= 0) {
        mesh_give_up (s, why);
        return;
    }
    ev_timer_stop (sd->loop, &s->w);
    ev_timer_set (&s->w, s->pause < left ? s->pause : left, 0.);
    ev_timer_start (sd->loop, &s->w);
    s->pause = s->pause * 2 < MESH_PAUSE_MAX ? s->pause * 2 : MESH_PAUSE_MAX;
}

/* Refusals that no retry can change: a frame the nodeds will never take
 * (not this stepd's step, an unknown node, malformed, too big). */
static bool mesh_refusal_final (int errnum)
{
    return errnum == EPERM || errnum == EINVAL || errnum == EPROTO
           || errnum == EMSGSIZE;
}

static void mesh_attempt (struct mesh_send *s)
{
    struct stepd *sd = s->mesh->sd;

    if (!sd->noded) {
        mesh_retry (s, "no noded connection");
        return;
    }
    s->tag = mesh_tag (s->mesh);
    if (conn_send (sd->noded, MSG_STEP_MESH, s->tag, 0, &s->m) < 0) {
        mesh_retry (s, strerror (errno));
        return;
    }
    ev_timer_stop (sd->loop, &s->w);
    ev_timer_set (&s->w, MESH_ATTEMPT, 0.);
    ev_timer_start (sd->loop, &s->w);
}

/* A retry is due, or the attempt in flight went unanswered. */
static void mesh_attempt_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct mesh_send *s = w->data;

    if (s->tag) {
        mesh_retry (s, "no answer from the noded");
        return;
    }
    mesh_attempt (s);
}

int mesh_send (struct stepd *sd, uint32_t dst, uint32_t kind, uint64_t seq,
               const void *data, size_t len)
{
    struct mesh *mh = sd->mesh;
    struct mesh_send *s;

    if (!mh || dst >= mh->nnodes || len > PROTO_MAX_PAYLOAD) {
        errno = !mh || dst >= mh->nnodes ? EINVAL : EMSGSIZE;
        return -1;
    }
    char *copy = len ? malloc (len) : NULL;
    if ((len && !copy) || !(s = calloc (1, sizeof (*s)))) {
        free (copy);
        errno = ENOMEM;
        return -1;
    }
    if (len)
        memcpy (copy, data, len);
    s->m = (struct msg_step_mesh){
        .job_id = sd->init.job_id,
        .step_id = sd->init.step_id,
        .src = sd->init.node_id,
        .dst = dst,
        .dst_node = (char *)mh->names[dst],
        .kind = kind,
        .seq = seq,
        .payload = copy,
        .payload_len = (uint32_t)len,
    };
    s->mesh = mh;
    s->first = ev_now (sd->loop);
    s->pause = MESH_PAUSE_MIN;
    ev_timer_init (&s->w, mesh_attempt_cb, 0., 0.);
    s->w.data = s;
    s->next = mh->sends;
    mh->sends = s;
    mesh_attempt (s);
    return 0;
}

bool mesh_answer (struct stepd *sd, const struct frame *f)
{
    struct mesh *mh = sd->mesh;
    struct msg_rc rc;
    arbor_error_t err = { "" };
    struct mesh_send *s;

    if (!mh || f->matchtag < MESH_TAG_FIRST)
        return false;
    for (s = mh->sends; s; s = s->next)
        if (s->tag == f->matchtag)
            break;
    if (!s)
        return true; /* an answer to an attempt given up: ignore */
    if (f->type != MSG_RC
        || proto_decode (MSG_RC, f->body, f->body_len, &rc, &err) < 0) {
        mesh_retry (s, err.text[0] ? err.text : "bad answer from the noded");
        return true;
    }
    if (rc.errnum == 0)
        mesh_send_free (s);
    else if (mesh_refusal_final (rc.errnum))
        mesh_give_up (s, rc.text && *rc.text ? rc.text : strerror (rc.errnum));
    else
        mesh_retry (s, rc.text && *rc.text ? rc.text : strerror (rc.errnum));
    proto_clear (MSG_RC, &rc);
    return true;
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

void mesh_noded_lost (struct stepd *sd)
{
    struct mesh *mh = sd->mesh;

    /* Attempts in flight on that connection will not be answered. */
    for (struct mesh_send *s = mh ? mh->sends : NULL; s; s = s->next)
        if (s->tag) {
            ev_timer_stop (sd->loop, &s->w);
            ev_timer_set (&s->w, MESH_PAUSE_MAX, 0.);
            ev_timer_start (sd->loop, &s->w);
            s->tag = 0;
        }
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
        .next_tag = MESH_TAG_FIRST,
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
    while (sd->mesh->sends)
        mesh_send_free (sd->mesh->sends);
    free (sd->mesh);
    sd->mesh = NULL;
}
