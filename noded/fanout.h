/* fanout.h - the node daemon's one TreeWidth fan-out: forward a message
 * to the heads of the sub-slices of a slice, and gather their answers.
 *
 * A noded answers for its whole slice. It keeps slice[0] (itself) and
 * splits slice[1..] into at most TreeWidth contiguous chunks of near equal
 * size (larger chunks first); each chunk's head gets the same message with
 * slice = chunk and budget = (remaining - margin) / 2, margin =
 * min(200 ms, budget / 10). A head that cannot be connected to, closes, or
 * does not answer within its budget is reported failed and the chunk is
 * retried through its next node with the time left; nodes that could not
 * be tried in time are reported failed too. Two messages travel this way:
 * LAUNCH (launch.c, fanout_start) and sbcast's BCAST_BLOCK (bcast_serve.c,
 * fanout_start_bcast, whose -F may narrow the tree).
 */
#ifndef ARBOR_NODED_FANOUT_H
#define ARBOR_NODED_FANOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct noded;
struct fanout;

#define FANOUT_MAX_MARGIN_MS 200

/* Split n nodes into k = min(n, width) contiguous chunks (width 0 counts
 * as 1); the first n % k chunks hold one node more. start[] and size[]
 * must have room for min(n, width) entries. Returns k (0 when n == 0). */
size_t fanout_split (size_t n, uint32_t width, size_t *start, size_t *size);

/* min(200, budget / 10). */
uint32_t fanout_margin (uint32_t budget_ms);

/* Levels of forwarding below the head of a chunk of n nodes at 'width':
 * 0 for one node (a leaf), else 1 + the depth of its largest part of the
 * n - 1 others. */
uint32_t fanout_depth (size_t n, uint32_t width);

/* What the head of a chunk whose subtree is 'depth' levels deep gets of
 * our 'remaining' time: (remaining - margin) less a reserve of 1/(4 *
 * (depth + 1)) of it, kept to retry the chunk through its next node; 0
 * when nothing is left. A leaf gets three quarters, a deep subtree
 * nearly all: with one fraction at every level the leaves of a deep tree
 * (TreeWidth 2, ten levels) would get 0.75^10 = 6% of LaunchTimeout, too
 * little to start a stepd on a loaded host; this way they get 40%. */
uint32_t fanout_child_budget (int64_t remaining_ms, uint32_t margin_ms,
                              uint32_t depth);

struct fanout_ops {
    /* 'node' failed (will not run the step, did not take the block):
     * error is a sentence without the node name ("connection refused",
     * "no answer within 2400 ms"). */
    void (*failed) (const char *node, int errnum, const char *error, void *arg);
    /* LAUNCH only: a head answered for its chunk (errors inside are to be
     * merged). A BCAST_REPLY's failed nodes come through 'failed'. */
    void (*reply) (const struct msg_launch_reply *r, void *arg);
    /* Every chunk has answered or been given up. */
    void (*done) (void *arg);
};

/* Forward 'req' (borrowed, must outlive the fanout) to the chunks of
 * req->slice[1..]. 'end' is the ev time at which this node's own budget
 * ends; margin_ms is this node's margin. ops->failed and ops->reply may
 * run before this returns (a head refused at once); ops->done never does:
 * check fanout_finished() after the call. NULL with errno ENOMEM. */
struct fanout *fanout_start (struct noded *nd, const struct msg_launch *req,
                             double end, uint32_t margin_ms,
                             const struct fanout_ops *ops, void *arg);

/* The same for BCAST_BLOCK 'm' (borrowed, must outlive the fanout), over
 * min(m->width, TreeWidth) chunks (m->width 0: TreeWidth); ops->reply is
 * not used. */
struct fanout *fanout_start_bcast (struct noded *nd,
                                   const struct msg_bcast_block *m, double end,
                                   uint32_t margin_ms,
                                   const struct fanout_ops *ops, void *arg);

/* True when every chunk has answered or been given up (also when there
 * was nothing to forward). */
bool fanout_finished (const struct fanout *f);

/* Report every node of the unfinished chunks failed (the head: "no answer
 * within N ms", the others: "not reached"), without calling done. */
void fanout_expire (struct fanout *f);

/* Cancel what is pending; no callback is called. NULL is accepted. */
void fanout_destroy (struct fanout *f);

/* The ranged form of names[0..n-1] ("node[2-9]"), for logs. Caller
 * frees; NULL with errno. */
char *fanout_ranged (char *const *names, size_t n);

#endif
