/* prolog.h - the Prolog at allocation time, and Prolog failures.
 *
 * With PrologFlags=Alloc (or Contain) a job that got its nodes is not
 * granted yet: each node gets JOB_PROLOG and runs the Prolog first (the
 * job is RUNNING, reason "Prolog" until then). When every node has
 * answered, the job is granted: its allocating connection gets
 * JOB_ALLOCATED, or its batch step starts (sched_granted). Without those
 * flags the nodeds run the Prolog before a job's first launch there.
 *
 * A Prolog that fails, either way, drains its node (reason "Prolog
 * error" or "Prolog timed out") and requeues the job: it ends through the
 * termination sequence (the epilogs run) and waits again, now avoiding
 * the drained node; its allocating connection, if it still waits, gets
 * its allocation when the job starts again.
 */
#ifndef ARBOR_CTLD_PROLOG_H
#define ARBOR_CTLD_PROLOG_H

#include <stdbool.h>
#include <stddef.h>

struct ctld;
struct job;
struct msg_prolog_failed;

/* Job j just started: true if its Prologs now run first (the grant comes
 * later), false if it may be granted now. */
bool prolog_alloc_start (struct ctld *ctx, struct job *j);
/* The Prolog of j failed on node index 'node': drain it, requeue j. */
void prolog_failed (struct ctld *ctx, struct job *j, size_t node,
                    const char *why);
/* Requeue j after a Prolog failure on 'node' (named in the log),
 * without draining: when another report names the failed node (a
 * multi-node launch's answer names only where it was sent). A job whose
 * allocation was already granted to its requester (not a batch job)
 * ends NODE_FAIL instead. */
void prolog_requeue (struct ctld *ctx, struct job *j, size_t node,
                     const char *why);
/* PROLOG_FAILED from a noded. */
void prolog_failed_msg (struct ctld *ctx, const struct msg_prolog_failed *m);

#endif
