/* sched_wake.h - asking for a scheduling pass (sched_wake.c).
 *
 * Every change to what is free or what is pending calls sched_request():
 * a node's state changes or cores are given back, a job ends, a hold is
 * released, licenses come back. That only arms the scheduler's
 * ev_prepare watcher (sched.c): one pass runs before the loop next
 * sleeps, however many changes a callback made.
 */
#ifndef ARBOR_CTLD_SCHED_WAKE_H
#define ARBOR_CTLD_SCHED_WAKE_H

struct ctld;

/* Ask for a scheduling pass before the loop next sleeps. Cheap: call it
 * on every change; passes are not queued up. */
void sched_request (struct ctld *ctx);

#endif
