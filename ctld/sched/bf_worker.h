/* bf_worker.h - the thread that computes backfill plans (bf_worker.c), so
 * that the loop keeps answering while a plan is made (bf_plan.h).
 */
#ifndef ARBOR_CTLD_BF_WORKER_H
#define ARBOR_CTLD_BF_WORKER_H

#include <ev.h>
#include <stdbool.h>

struct bf_plan;
struct bf_snap;

/* A thread that runs plans, one at a time; done (on the loop) gets the
 * snapshot and its plan back (the callee frees both), or errnum. */
struct bf_worker;
typedef void (*bf_done_f) (struct bf_snap *s, struct bf_plan *p, int errnum,
                           void *arg);
struct bf_worker *bf_worker_create (struct ev_loop *loop, bf_done_f done,
                                    void *arg);
/* Plan s (taken) on the thread. -1 with errno EBUSY while a plan runs. */
int bf_worker_run (struct bf_worker *w, struct bf_snap *s);
bool bf_worker_busy (const struct bf_worker *w);
/* Wait for a running plan (its callback is not called), stop, free. */
void bf_worker_destroy (struct bf_worker *w);

#endif
