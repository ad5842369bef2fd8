/* wait.h - JOB_WAIT: requests answered when their job is over.
 *
 * "arbor batch --wait" (sbatch -W) asks the controller to answer once
 * the job has ended and finished completing (every node ran its epilog),
 * instead of polling. The waiting requests live here, on ctx->waits; a
 * job that is already over is answered at once. jobstate.c calls
 * wait_job_over() where a job becomes over; a closing connection drops
 * its requests.
 */
#ifndef ARBOR_CTLD_WAIT_H
#define ARBOR_CTLD_WAIT_H

#include <stdbool.h>
#include <stdint.h>

struct conn;
struct ctld;
struct job;
struct waits;

#define CTLD_MAX_WAITS 100000 /* requests waiting at once, all clients */

/* Answer request 'tag' on c with JOB_ENDED when job j is over (now, if
 * it is); for the first task of an array (whose id is the array's), when
 * every task is. -1 with errno EAGAIN (too many waiting) or ENOMEM. */
int wait_add (struct ctld *ctx, struct conn *c, uint32_t tag, struct job *j);
/* Job j is over: answer whoever waits for it. */
void wait_job_over (struct ctld *ctx, const struct job *j);
/* c is closing: forget its requests. */
void wait_conn_closed (struct ctld *ctx, struct conn *c);
/* f (c, arg) for the connection of every waiting request (the listener's
 * idle sweep keeps those). */
void wait_each_conn (struct ctld *ctx, void (*f) (struct conn *c, void *arg),
                     void *arg);

struct waits *waits_create (void);
void waits_destroy (struct waits *w); /* NULL-safe, keeps errno */

#endif
