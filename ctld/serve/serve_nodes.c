/* serve_nodes.c - what node daemons and administrators ask: node
 * registration, EPILOG_COMPLETE, PROLOG_FAILED, NODE_UPDATE (scontrol
 * update NodeName=) and CTLD_RECONFIGURE. Each is RPC_PRIV in serve.c's
 * table: root or ArborUser only.
 */
#include <errno.h>

#include "conf.h"
#include "credkey.h"
#include "ctld.h"
#include "reconfigure.h"
#include "nodes/heard.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/node_gres.h"
#include "nodes/orphan.h"
#include "job/prolog.h"
#include "serve/serve.h"
#include "serve/serve_private.h"
#include "serve/serve_nodes.h"
#include "job/term.h"
#include "serve/update.h"

/* arbor control reconfigure (root or ArborUser: RPC_PRIV). */
void serve_reconfigure_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg)
{
    struct ctld *ctx = arg;
    arbor_error_t err = { "" };

    if (ctld_reconfigure (ctx, &err) < 0)
        conn_send_rc (c, f->matchtag, EINVAL, "%s", err.text);
    else
        conn_send_rc (c, f->matchtag, 0, "%s",
                      ctx->conf->cpu_hours_limits_file
                          ? "CpuHoursLimitsFile read again"
                          : "nothing to read again");
}

void serve_epilog_complete_cb (struct conn *c, const struct frame *f, void *msg,
                               void *arg)
{
    struct ctld *ctx = arg;
    const struct msg_epilog_complete *m = msg;
    int idx = node_index (ctx, m->node);
    arbor_error_t err;

    if (idx >= 0 && orphan_epilog_complete (ctx, (size_t)idx, m->job_id)) {
        conn_send_rc (c, f->matchtag, 0, "%s", "");
        return;
    }
    if (term_epilog_complete (ctx, msg, &err) < 0) {
        log_warn ("epilog complete from %s: %s", conn_peer (c), err.text);
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s", err.text);
        return;
    }
    conn_send_rc (c, f->matchtag, 0, "%s", "");
}

void serve_prolog_failed_cb (struct conn *c, const struct frame *f, void *msg,
                             void *arg)
{
    const struct msg_prolog_failed *m = msg;

    log_warn ("prolog of job %u failed on %s: %s (status %d)", m->job_id,
              serve_nz (m->node), serve_nz (m->reason), m->rc);
    prolog_failed_msg (arg, m);
    conn_send_rc (c, f->matchtag, 0, "%s", "");
}

void serve_node_register_cb (struct conn *c, const struct frame *f, void *msg,
                             void *arg)
{
    struct ctld *ctx = arg;
    struct msg_node_register *m = msg;
    int idx = node_index (ctx, m->name);
    time_t now = time (NULL);
    struct node *n;
    const char *old;
    char gres_short[160];
    arbor_error_t err;

    if (idx < 0) {
        conn_send_rc (c, f->matchtag, ENOENT, "node %s is not in arbor.conf",
                      serve_nz (m->name));
        log_warn ("registration from %s for unknown node %s", conn_peer (c),
                  serve_nz (m->name));
        return;
    }
    n = &ctx->nodes[idx];
    old = node_state_str (n);
    if (node_gres_register (&n->gres, m, gres_short, sizeof (gres_short), &err)
        < 0) {
        conn_send_rc (c, f->matchtag, errno, "%s", err.text);
        log_warn ("registration of node %s refused: %s", n->name, err.text);
        return;
    }
    node_register (ctx, (size_t)idx, m->cpus, m->real_memory,
                   gres_short[0] ? gres_short : NULL, now);
    credkey_registered (ctx->credkey, (size_t)idx, f->uid, m->cred_key_id);
    n->cpu_load = m->cpu_load;
    n->free_mem = m->free_mem;
    heard_node (ctx, (size_t)idx, now);
    term_node_registered (ctx, (size_t)idx, now);
    orphans_register (ctx, (size_t)idx, m->job_ids, m->job_ids_count, now);
    if (strcmp (old, node_state_str (n)) != 0)
        log_info ("node %s registered (%s): %s -> %s%s%s", n->name,
                  serve_nz (m->version), old, node_state_str (n),
                  n->reason ? ": " : "", n->reason ? n->reason : "");
    conn_send_rc (c, f->matchtag, 0, "%s", "");
}

void serve_node_update_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg)
{
    struct ctld *ctx = arg;
    struct msg_node_update *m = msg;
    arbor_error_t err;

    if (node_update (ctx, m, (uint32_t)f->uid, &err) < 0) {
        int e = errno ? errno : EINVAL;
        log_verbose ("node update from %s (uid %u) refused: %s", conn_peer (c),
                     (unsigned)f->uid, err.text);
        conn_send_rc (c, f->matchtag, e, "%s", err.text);
        return;
    }
    log_info ("node update by uid %u: NodeName=%s State=%s%s%s",
              (unsigned)f->uid, serve_nz (m->nodelist), serve_nz (m->state),
              m->reason && m->reason[0] ? " Reason=" : "",
              serve_nz (m->reason));
    conn_send_rc (c, f->matchtag, 0, "%s", "");
}
