/* acct_serve.h - ACCT_QUERY's side of accounting (acct_serve.c): the
 * handler, and what happens to the queries of a closed connection.
 */
#ifndef ARBOR_CTLD_ACCT_SERVE_H
#define ARBOR_CTLD_ACCT_SERVE_H

#include "proto.h"

struct conn;
struct ctld;
struct frame;

/* c closed: the queries it asked get no answer. */
void acct_conn_closed (struct ctld *ctx, struct conn *c);
/* ACCT_QUERY from c: answered with ACCT_REPLY frames or RC. */
void acct_serve_query (struct ctld *ctx, struct conn *c, const struct frame *f,
                       const struct msg_acct_query *m);

#endif
