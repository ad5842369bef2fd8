/* bcast_fan.h - forward one BCAST_BLOCK down the launch tree.
 *
 * The shape is the launch's (fanout.h, whose split and budgets it
 * reuses): slice[1..] in at most 'width' contiguous chunks, each chunk's
 * head gets the same block with slice = its chunk and a share of our
 * time; a head that cannot be reached, refuses, or does not answer in
 * time is reported failed and the chunk goes on through its next node.
 * A head's BCAST_REPLY covers its whole chunk.
 */
#ifndef ARBOR_NODED_BCAST_FAN_H
#define ARBOR_NODED_BCAST_FAN_H

#include <stdbool.h>

#include "proto.h"

struct noded;
struct bcast_fan;

struct bcast_fan_ops {
    /* 'node' failed: error is a sentence without the node's name. */
    void (*failed) (const char *node, int errnum, const char *error, void *arg);
    /* Every chunk has answered or been given up: the last thing a
     * callback of the fan does (the owner may destroy it there). */
    void (*done) (void *arg);
};

/* Forward 'm' (borrowed, must outlive the fan) to the chunks of
 * m->slice[1..], within our own deadline 'end' (ev time) less
 * margin_ms. ops->failed may run before this returns; ops->done never
 * does: check bcast_fan_finished(). NULL with errno ENOMEM. */
struct bcast_fan *bcast_fan_start (struct noded *nd,
                                   const struct msg_bcast_block *m, double end,
                                   uint32_t margin_ms,
                                   const struct bcast_fan_ops *ops, void *arg);
bool bcast_fan_finished (const struct bcast_fan *f);
/* Report the nodes of unfinished chunks failed, without calling done. */
void bcast_fan_expire (struct bcast_fan *f);
/* Cancel what is pending; no callback runs. NULL accepted. */
void bcast_fan_destroy (struct bcast_fan *f);

#endif
