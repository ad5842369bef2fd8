/* stepd_mesh.c - STEP_MESH: the noded's part in its stepds' exchange.
 *
 * The stepds of one step talk to each other (MPI fences, direct modex,
 * aborts: stepd/mesh.c) through their nodeds, which already trust each
 * other over kept, authenticated connections:
 *   - from a stepd, on its own unix connection (the socketpair on its fd
 *     0, or the connection opened on its socket after a restart): the
 *     frame must name that stepd's job and step. It is sent on to the
 *     noded of dst_node (NodeAddr, NodedPort, the kept connection keyed
 *     for NodedUser) as one request, and the far noded's answer is
 *     passed back to the stepd with the stepd's matchtag. A node that is
 *     not in the configuration is refused at once (EINVAL);
 *   - from another noded (serve.c): only from root, NodedUser or
 *     ArborUser. It is handed to this node's stepd of the step, on its
 *     connection, and answered RC 0; ENOENT when there is no such stepd
 *     (yet: the sender retries while the launch goes on).
 * The answer goes back on whatever connection the stepd has when it
 * comes (looked up again by job and step): a stepd that reattached meanwhile
 * ignores an answer it no longer waits for and resends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "noded_base.h"
#include "request.h"
#include "stepd_info.h"
#include "stepd_mesh.h"
#include "stepd_table.h"

#define MESH_RELAY_TIMEOUT 5.0 /* s for the far noded's answer */

struct mesh_relay {
    struct mesh_relay *next;
    struct noded *nd;
    uint32_t job, step, tag;
    struct request *req;
};

static void mesh_relay_free (struct mesh_relay *r)
{
    struct mesh_relay **pp;

    for (pp = &r->nd->stepds->meshes; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    free (r);
}

static void mesh_relay_done_cb (const struct request_result *res, void *arg)
{
    struct mesh_relay *r = arg;
    struct conn *c = stepd_conn_find (r->nd, r->job, r->step);

    if (c)
        conn_send_rc (c, r->tag, res->errnum, "%s",
                      res->errnum ? res->err.text : "");
    mesh_relay_free (r);
}

/* Refuse 'm' from stepd (job, step) or send it on. */
static void mesh_relay_start (struct noded *nd, struct conn *c,
                              const struct frame *f,
                              const struct msg_step_mesh *m, uint32_t job,
                              uint32_t step)
{
    const struct conf_node *node =
        m->dst_node ? conf_node_find (nd->conf, m->dst_node) : NULL;
    struct request_opts opts;
    struct mesh_relay *r;

    if (m->job_id != job || m->step_id != step) {
        log_security ("stepd %u.%u: STEP_MESH for step %u.%u refused", job,
                      step, m->job_id, m->step_id);
        conn_send_rc (c, f->matchtag, EPERM, "not your step");
        return;
    }
    if (!node) {
        conn_send_rc (c, f->matchtag, EINVAL, "unknown node %s",
                      m->dst_node ? m->dst_node : "?");
        return;
    }
    if (!(r = calloc (1, sizeof (*r)))) {
        conn_send_rc (c, f->matchtag, ENOMEM, "noded: out of memory");
        return;
    }
    *r = (struct mesh_relay){ nd->stepds->meshes, nd,  job, step,
                              f->matchtag,        NULL };
    noded_peer_opts (nd, MESH_RELAY_TIMEOUT, &opts);
    if (!(r->req =
              request_tcp (nd->loop, node->addr, nd->conf->noded_port,
                           MSG_STEP_MESH, m, &opts, mesh_relay_done_cb, r))) {
        conn_send_rc (c, f->matchtag, errno, "noded: %s", strerror (errno));
        free (r);
        return;
    }
    nd->stepds->meshes = r;
}

bool stepd_mesh_frame (struct noded *nd, struct conn *c, const struct frame *f,
                       uint32_t job, uint32_t step)
{
    struct msg_step_mesh m;
    arbor_error_t err = { "" };

    if (f->type != MSG_STEP_MESH || (f->flags & FRAME_F_RESPONSE))
        return false;
    if (proto_decode (MSG_STEP_MESH, f->body, f->body_len, &m, &err) < 0) {
        log_warn ("stepd %u.%u: bad STEP_MESH: %s", job, step, err.text);
        conn_send_rc (c, f->matchtag, EPROTO, "%s", err.text);
        return true;
    }
    mesh_relay_start (nd, c, f, &m, job, step);
    proto_clear (MSG_STEP_MESH, &m);
    return true;
}

void stepd_mesh_deliver (struct noded *nd, struct conn *c,
                         const struct frame *f, const struct msg_step_mesh *m)
{
    struct conn *to;

    if (f->uid != 0 && f->uid != nd->noded_uid && f->uid != nd->arbor_uid) {
        log_security ("STEP_MESH from %s (uid %u) refused: not a daemon",
                      conn_peer (c), (unsigned)f->uid);
        conn_send_rc (c, f->matchtag, EPERM, "only nodeds relay STEP_MESH");
        return;
    }
    if (!m->dst_node || strcmp (m->dst_node, nd->name) != 0) {
        conn_send_rc (c, f->matchtag, EINVAL, "this is %s, not %s", nd->name,
                      m->dst_node ? m->dst_node : "?");
        return;
    }
    if (!(to = stepd_conn_find (nd, m->job_id, m->step_id))) {
        conn_send_rc (c, f->matchtag, ENOENT, "no stepd of step %u.%u on %s",
                      m->job_id, m->step_id, nd->name);
        return;
    }
    if (conn_send (to, MSG_STEP_MESH, 0, 0, m) < 0)
        conn_send_rc (c, f->matchtag, errno, "to stepd %u.%u on %s: %s",
                      m->job_id, m->step_id, nd->name, strerror (errno));
    else
        conn_send_rc (c, f->matchtag, 0, "%s", "");
}

void stepd_mesh_free_all (struct stepd_table *t)
{
    while (t->meshes) {
        struct mesh_relay *r = t->meshes;
        t->meshes = r->next;
        request_cancel (r->req);
        free (r);
    }
}
