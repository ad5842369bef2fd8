/* revoke.h - cache of steps cancelled after their credential was issued.
 *
 * When a job or step ends, the ctld sends JOB_TERMINATE / STEP_TERMINATE
 * (or STEP_KILL with revoke) to its nodes; a launch arriving later with a
 * still-valid credential for that job must be refused. The noded also
 * revokes every step whose stepd ended (stepd_ended in stepd_info.c), so a
 * credential starts its step at most once per node.
 * A credential lives at most CredExpire seconds, so an entry is kept that
 * long and then forgotten. The cache is bounded: when full, the entry that
 * expires first is replaced. Time is passed in (unix seconds) so the cache
 * is a pure data structure.
 *
 * What the cache does not know: it lives in memory, so it knows nothing
 * revoked before it was made (a noded restart, upgrade or crash), nor the
 * entries it evicted. revoke_unsure names the credentials it cannot
 * vouch for: those issued before it was made, and those expiring no later
 * than the latest expiry it evicted (an evicted revocation covered
 * credentials expiring up to its own expiry: a step's credential never
 * outlives its revocation). Both with a margin for clock skew between the
 * controller, which stamps credentials, and this node. For those a
 * user's launch asks the controller (STEP_LIVE, launch.c); every other
 * launch is decided here, with no round trip.
 */
#ifndef ARBOR_NODED_REVOKE_H
#define ARBOR_NODED_REVOKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define REVOKE_DEFAULT_MAX 4096
/* Seconds of clock skew allowed between the controller and a node. */
#define REVOKE_SKEW 10

struct revoke;

/* A cache of at most 'max' entries (>= 1), knowing every revocation from
 * 'start' on (revoke_create: from now). NULL with errno ENOMEM/EINVAL. */
struct revoke *revoke_create (size_t max);
struct revoke *revoke_create_at (size_t max, time_t start);
void revoke_destroy (struct revoke *r);

/* Remember (job, step) of the job's run 'run' (its requeues so far; step
 * may be STEP_ID_ALL: every step of the job) as revoked until 'expires'.
 * Re-adding extends the expiry. A requeued job's next run is not
 * revoked by its earlier run's end. */
void revoke_add (struct revoke *r, uint32_t job, uint32_t run, uint32_t step,
                 time_t expires);

/* True if (job, run, step) or (job, run, STEP_ID_ALL) was revoked and
 * has not expired at 'now'. */
bool revoke_check (const struct revoke *r, uint32_t job, uint32_t run,
                   uint32_t step, time_t now);

/* Entries not yet expired at 'now'. */
size_t revoke_count (const struct revoke *r, time_t now);

/* True if a credential issued at 'issued' and expiring at 'expires' (its
 * claims; 0: issue time unknown) may be of a step revoked that this cache
 * no longer or never knew: issued before the cache began (plus
 * REVOKE_SKEW), or expiring no later than an evicted entry (plus
 * REVOKE_SKEW). Such a launch must be confirmed by the controller. */
bool revoke_unsure (const struct revoke *r, time_t issued, time_t expires);

/* The latest expiry of an evicted entry; 0 if none was evicted. */
time_t revoke_evicted_until (const struct revoke *r);

#endif
