/* bcast.h - sbcast and sgather on a node, as the daemon sees them: the
 * requests in flight (bcast_req.c), on nd->bcasts.
 *
 * The handlers are bcast_serve.h's (BCAST_BLOCK) and bcast_gather.h's
 * (GATHER_READ); the record and the checks they share stay in
 * bcast_req.h, private to the bcast_*.c files.
 */
#ifndef ARBOR_NODED_BCAST_H
#define ARBOR_NODED_BCAST_H

#include "conn.h"

struct noded;

/* 'c' closed: requests received on it will not answer. */
void bcast_conn_closed (struct noded *nd, struct conn *c);
/* Free every request in flight, unanswered (shutdown). */
void bcast_destroy_all (struct noded *nd);

#endif
