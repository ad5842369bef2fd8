/* bcast.h - sbcast and sgather on a node: the requests' handlers.
 *
 * BCAST_BLOCK (bcast_serve.c): verify the broadcast credential
 * (bcast_cred.h), ask the controller first when this node cannot vouch
 * for it, then forward the block to the slice's chunks (bcast_fan.h)
 * while doing the file work as the job's user (bcast_io.h,
 * bcast_file.h), and answer one BCAST_REPLY for the whole slice when
 * both are over or the budget is spent.
 * GATHER_READ (bcast_gather.c): the same verification, then one read (or
 * the removal) of the source as the job's user, answered GATHER_DATA.
 */
#ifndef ARBOR_NODED_BCAST_H
#define ARBOR_NODED_BCAST_H

#include "conn.h"
#include "proto.h"

struct noded;

/* The handlers take over the message's contents (fields left NULL). */
void bcast_block_handle (struct noded *nd, struct conn *c,
                         const struct frame *f, struct msg_bcast_block *m);
void gather_read_handle (struct noded *nd, struct conn *c,
                         const struct frame *f, struct msg_gather_read *m);

/* 'c' closed: requests received on it will not answer. */
void bcast_conn_closed (struct noded *nd, struct conn *c);
/* Free every request in flight, unanswered (shutdown). */
void bcast_destroy_all (struct noded *nd);

#endif
