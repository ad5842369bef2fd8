/* bcast_serve.h - BCAST_BLOCK on a node (bcast_serve.c): verify the
 * broadcast credential (bcast_cred.h), ask the controller first when this
 * node cannot vouch for it, then forward the block to the slice's chunks
 * (fanout.h) while doing the file work as the job's user (bcast_io.h,
 * bcast_file.h), and answer one BCAST_REPLY for the whole slice when both
 * are over or the budget is spent.
 */
#ifndef ARBOR_NODED_BCAST_SERVE_H
#define ARBOR_NODED_BCAST_SERVE_H

#include "conn.h"
#include "proto.h"

struct noded;

/* Takes over the message's contents (fields left NULL). */
void bcast_block_handle (struct noded *nd, struct conn *c,
                         const struct frame *f, struct msg_bcast_block *m);

#endif
