/* bcast_gather.h - GATHER_READ on a node (bcast_gather.c): the same
 * verification as BCAST_BLOCK's, then one read (or the removal) of the
 * source as the job's user, answered GATHER_DATA.
 */
#ifndef ARBOR_NODED_BCAST_GATHER_H
#define ARBOR_NODED_BCAST_GATHER_H

#include "conn.h"
#include "proto.h"

struct noded;

/* Takes over the message's contents (fields left NULL). */
void gather_read_handle (struct noded *nd, struct conn *c,
                         const struct frame *f, struct msg_gather_read *m);

#endif
