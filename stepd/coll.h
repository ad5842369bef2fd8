/* coll.h - all-gather over a tree of the step's stepds (coll.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_COLL_H
#define ARBOR_STEPD_COLL_H

#include <stddef.h>
#include <stdint.h>

struct stepd;

/* All-gather rounds over a tree of the step's nodes ('width'
 * children each). done gets each round's result (every node's data in
 * node order; errnum != 0 and no data if it failed), never from inside
 * the call that completed it. */
typedef void (*coll_done_f) (struct stepd *sd, int64_t seq, const void *data,
                             size_t len, int errnum);
int coll_init (struct stepd *sd, uint32_t node, uint32_t nnodes, uint32_t width,
               coll_done_f done);
/* Contribute to the next round; its number, or -1 with errno. */
int64_t coll_allgather (struct stepd *sd, const void *data, size_t len);
void coll_recv (struct stepd *sd, uint32_t src, uint32_t kind, uint64_t seq,
                const char *data, size_t len);
/* Fail every round in progress with errnum. */
void coll_fail (struct stepd *sd, int errnum);
void coll_fini (struct stepd *sd);

#endif
