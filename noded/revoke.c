/* revoke.c - bounded cache of revoked (job, step) pairs with expiry.
 *
 * A flat array scanned linearly: it holds at most a few thousand entries
 * (one per job that ended in the last CredExpire seconds on this node), and
 * it is consulted once per launch, so a scan is cheaper than any index.
 * Expired entries are reused first; when the cache is full of live
 * entries, the one that expires soonest is replaced, and its expiry is
 * remembered (evicted_until): credentials expiring by then are no longer
 * vouched for (revoke_unsure). An expired entry's eviction moves it too,
 * harmlessly: credentials expiring by then are refused as expired.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "proto.h"
#include "revoke.h"

struct revoke_entry {
    uint32_t job;
    uint32_t run;  /* the job's run (requeues so far) */
    uint32_t step; /* STEP_ID_ALL: every step of the job */
    time_t expires;
};

struct revoke {
    struct revoke_entry *v;
    size_t n; /* slots in use (live or expired) */
    size_t max;
    time_t start;         /* knows every revocation since */
    time_t evicted_until; /* latest expiry of an evicted entry */
};

struct revoke *revoke_create (size_t max)
{
    return revoke_create_at (max, time (NULL));
}

struct revoke *revoke_create_at (size_t max, time_t start)
{
    struct revoke *r;

    if (max == 0) {
        errno = EINVAL;
        return NULL;
    }
    if (!(r = calloc (1, sizeof (*r))))
        return NULL;
    if (!(r->v = calloc (max, sizeof (r->v[0])))) {
        free (r);
        return NULL;
    }
    r->max = max;
    r->start = start;
    return r;
}

void revoke_destroy (struct revoke *r)
{
    int saved = errno;

    if (r) {
        free (r->v);
        free (r);
    }
    errno = saved;
}

/* The slot to (re)use for (job, step): its existing entry, a free slot,
 * or the entry expiring first. */
static struct revoke_entry *revoke_slot (struct revoke *r, uint32_t job,
                                         uint32_t run, uint32_t step)
{
    struct revoke_entry *oldest = NULL;

    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].job == job && r->v[i].run == run && r->v[i].step == step)
            return &r->v[i];
    }
    if (r->n < r->max)
        return &r->v[r->n++];
    for (size_t i = 0; i < r->n; i++) {
        if (!oldest || r->v[i].expires < oldest->expires)
            oldest = &r->v[i];
    }
    return oldest;
}

void revoke_add (struct revoke *r, uint32_t job, uint32_t run, uint32_t step,
                 time_t expires)
{
    struct revoke_entry *e = revoke_slot (r, job, run, step);
    bool same = e->job == job && e->run == run && e->step == step;

    if (same && e->expires > expires)
        expires = e->expires; /* never shorten a revocation */
    if (!same && e->expires > r->evicted_until)
        r->evicted_until = e->expires; /* forgotten: revoke_unsure */
    e->job = job;
    e->run = run;
    e->step = step;
    e->expires = expires;
}

bool revoke_check (const struct revoke *r, uint32_t job, uint32_t run,
                   uint32_t step, time_t now)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct revoke_entry *e = &r->v[i];
        if (e->job == job && e->run == run
            && (e->step == step || e->step == STEP_ID_ALL) && e->expires > now)
            return true;
    }
    return false;
}

size_t revoke_count (const struct revoke *r, time_t now)
{
    size_t count = 0;

    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].expires > now)
            count++;
    }
    return count;
}

bool revoke_unsure (const struct revoke *r, time_t issued, time_t expires)
{
    if (issued < r->start + REVOKE_SKEW)
        return true; /* issued before we began to listen */
    return r->evicted_until != 0 && expires <= r->evicted_until + REVOKE_SKEW;
}

time_t revoke_evicted_until (const struct revoke *r)
{
    return r->evicted_until;
}
