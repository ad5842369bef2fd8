/* serve_query.h - the handlers of serve_query.c (rpc_handler_f, for serve.c's
 * dispatch table): the questions anyone may ask: steps, events, accounting,
 * priority, nodes, jobs.
 */
#ifndef ARBOR_CTLD_SERVE_QUERY_H
#define ARBOR_CTLD_SERVE_QUERY_H

#include "conn.h"

void serve_step_info_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg);
void serve_job_events_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg);
void serve_acct_query_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg);
void serve_prio_info_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg);
void serve_node_info_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg);
void serve_job_info_cb (struct conn *c, const struct frame *f, void *msg,
                        void *arg);

#endif
