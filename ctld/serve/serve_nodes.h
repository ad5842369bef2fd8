/* serve_nodes.h - the handlers of serve_nodes.c (rpc_handler_f, for serve.c's
 * dispatch table): node daemons' and administrators' requests: registration,
 * Prolog and Epilog reports, node updates, reconfiguration.
 */
#ifndef ARBOR_CTLD_SERVE_NODES_H
#define ARBOR_CTLD_SERVE_NODES_H

#include "conn.h"

void serve_reconfigure_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg);
void serve_epilog_complete_cb (struct conn *c, const struct frame *f, void *msg,
                               void *arg);
void serve_prolog_failed_cb (struct conn *c, const struct frame *f, void *msg,
                             void *arg);
void serve_node_register_cb (struct conn *c, const struct frame *f, void *msg,
                             void *arg);
void serve_node_update_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg);

#endif
