/* revoke.c - bounded cache of revoked (job, step) pairs with expiry.
 *
 * A flat array scanned linearly: it holds at most a few thousand entries
 * (one per job that ended in the last CredExpire seconds on this node), and
 * it is consulted once per launch, so a scan is cheaper than any index.
 * Expired entries are reused first; when the cache is full of live
 * entries, the one that expires soonest is replaced.
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
};

struct revoke *revoke_create (size_t max)
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

    if (e->job == job && e->run == run && e->step == step
        && e->expires > expires)
        expires = e->expires; /* never shorten a revocation */
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
