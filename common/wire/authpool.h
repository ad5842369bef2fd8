/* authpool.h - munge calls off the event loop.
 *
 * A munge call is a blocking round trip to munged's unix socket: tens of
 * microseconds when munged is healthy, seconds when it is saturated (a
 * 1,024-node launch on one host) or restarting. A daemon's loop must not
 * wait for it, so every munge encode and decode a daemon makes goes through
 * an auth_pool: a few worker threads, each with its own struct auth (a
 * munge context is not thread-safe), take jobs from a queue and post the
 * results back to the loop (an ev_async), where the job's callback runs.
 *
 *     j = auth_pool_decode (pool, token, len, decoded_cb, arg);
 *     ...
 *     static void decoded_cb (struct auth_result *res, void *arg)
 *     {
 *         if (res->errnum) ... res->err.text ("munge: Expired credential")
 *         else ... res->payload, res->len, res->uid, res->gid
 *     }
 *
 * Contract:
 *   - The callback runs exactly once per job, on the loop's thread, never
 *     inside the call that submitted the job, unless the job is cancelled
 *     first (then never).
 *   - The handle is invalid from the moment the callback starts.
 *     auth_job_cancel() inside the callback is a no-op.
 *   - res->token / res->payload belong to the pool; the callback may take
 *     them (set the field to NULL), else they are freed after it returns.
 *   - A munged that cannot be reached (EIO) is tried again a few times
 *     (AUTH_POOL_TRIES) on the worker before the job fails.
 *   - Threads start at the first job, so a process that never calls munge
 *     pays nothing; auth_pool_destroy() cancels what is queued, waits for
 *     the calls in progress and joins the threads.
 *
 * All functions must be called from the loop's thread.
 */
#ifndef ARBOR_AUTHPOOL_H
#define ARBOR_AUTHPOOL_H

#include <ev.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"

#define AUTH_POOL_THREADS 4
/* A call that cannot reach munged (EIO) is tried this many times in all,
 * pausing about AUTH_POOL_RETRY_MS (with jitter), then twice that, ...
 * between tries: about 5 s in all before it fails (a launch budget is
 * longer). */
#define AUTH_POOL_TRIES 11
#define AUTH_POOL_RETRY_MS 5
#define AUTH_UID_ANY ((uid_t)-1) /* no uid restriction */
#define AUTH_POOL_CALLER (-1)    /* nthreads: calls in the caller's thread */

struct auth_pool;
struct auth_job;

struct auth_result {
    int errnum;        /* 0, or as auth_encode()/auth_decode() set it */
    arbor_error_t err; /* when errnum != 0 */
    char *token;       /* encode: the token (NUL-terminated) */
    void *payload;     /* decode: the payload (NULL when empty) */
    size_t len;        /* decode: payload length */
    uid_t uid;         /* decode: the token's minter */
    gid_t gid;
    uid_t restricted_uid; /* decode: who the token was restricted to,
                           * AUTH_UID_ANY if nobody */
};

typedef void (*auth_done_f) (struct auth_result *res, void *arg);

/* socket: munged's socket, NULL for libmunge's default. nthreads <= 0:
 * AUTH_POOL_THREADS; AUTH_POOL_CALLER: no threads, each call is made in
 * the submitting thread before the submission returns, for a command
 * that has nothing else to do meanwhile (a thread costs it more than the
 * call); the callback still runs later, from the loop, as above. NULL
 * with errno and err. */
struct auth_pool *auth_pool_create (struct ev_loop *loop, const char *socket,
                                    int nthreads, arbor_error_t *err);
void auth_pool_destroy (struct auth_pool *p);

/* Encode 'payload' (copied) with 'ttl' (0: munged's default), decodable
 * only by 'restrict_uid' (AUTH_UID_ANY: anyone). NULL with errno if the
 * job could not be queued (ENOMEM, EINVAL). */
struct auth_job *auth_pool_encode (struct auth_pool *p, const void *payload,
                                   size_t len, int ttl, uid_t restrict_uid,
                                   auth_done_f cb, void *arg);

/* Decode 'token' (copied, token_len bytes), as auth_decode(). */
struct auth_job *auth_pool_decode (struct auth_pool *p, const char *token,
                                   size_t token_len, auth_done_f cb, void *arg);

/* Forget the job: its callback will not run. NULL is accepted. */
void auth_job_cancel (struct auth_job *j);

/* Munge calls made by this pool so far (encode + decode, for bench/). */
unsigned long auth_pool_calls (const struct auth_pool *p);

#endif
