/* profile.c - the availability profile. See profile.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/profile.h"

static void seg_free (struct profile_seg *s)
{
    free (s->cpus);
    free (s->mem);
}

static int seg_copy (struct profile_seg *to, const struct profile_seg *from,
                     size_t n, time_t start)
{
    to->start = start;
    to->total_cpus = from->total_cpus;
    to->cpus = malloc ((n ? n : 1) * sizeof (*to->cpus));
    to->mem = malloc ((n ? n : 1) * sizeof (*to->mem));
    if (!to->cpus || !to->mem) {
        seg_free (to);
        errno = ENOMEM;
        return -1;
    }
    memcpy (to->cpus, from->cpus, n * sizeof (*to->cpus));
    memcpy (to->mem, from->mem, n * sizeof (*to->mem));
    return 0;
}

int profile_init (struct profile *p, size_t nnodes, time_t now,
                  const uint32_t *free_cpus, const uint32_t *free_mem)
{
    struct profile_seg first = { .cpus = (uint32_t *)free_cpus,
                                 .mem = (uint32_t *)free_mem };

    memset (p, 0, sizeof (*p));
    p->nnodes = nnodes;
    for (size_t k = 0; k < nnodes; k++)
        first.total_cpus += free_cpus[k];
    if (!(p->segs = calloc (8, sizeof (*p->segs))))
        return -1;
    p->cap = 8;
    if (seg_copy (&p->segs[0], &first, nnodes, now) < 0) {
        profile_free (p);
        return -1;
    }
    p->nsegs = 1;
    return 0;
}

void profile_free (struct profile *p)
{
    for (size_t i = 0; i < p->nsegs; i++)
        seg_free (&p->segs[i]);
    free (p->segs);
    memset (p, 0, sizeof (*p));
}

/* The index of the segment that starts at t, cutting the one that holds
 * t in two if needed. t before the first segment is taken as its start.
 * -1 with errno ENOMEM. */
static long profile_cut (struct profile *p, time_t t)
{
    size_t lo = 0, hi = p->nsegs;

    if (t <= p->segs[0].start)
        return 0;
    while (hi - lo > 1) { /* the last segment starting at or before t */
        size_t mid = (lo + hi) / 2;
        if (p->segs[mid].start <= t)
            lo = mid;
        else
            hi = mid;
    }
    if (p->segs[lo].start == t)
        return (long)lo;
    if (p->nsegs == p->cap) {
        struct profile_seg *v = realloc (p->segs, 2 * p->cap * sizeof (*v));
        if (!v)
            return -1;
        p->segs = v;
        p->cap *= 2;
    }
    memmove (&p->segs[lo + 2], &p->segs[lo + 1],
             (p->nsegs - lo - 1) * sizeof (*p->segs));
    if (seg_copy (&p->segs[lo + 1], &p->segs[lo], p->nnodes, t) < 0) {
        memmove (&p->segs[lo + 1], &p->segs[lo + 2],
                 (p->nsegs - lo - 1) * sizeof (*p->segs));
        return -1;
    }
    p->nsegs++;
    return (long)lo + 1;
}

/* Add (sign +1) or take (-1) node's share over segments [i, end). */
static void profile_add (struct profile *p, size_t i, size_t end, size_t node,
                         uint32_t cpus, uint32_t mem, int sign)
{
    for (; i < end; i++) {
        struct profile_seg *s = &p->segs[i];
        if (sign > 0) {
            s->cpus[node] += cpus;
            s->mem[node] += mem;
            s->total_cpus += cpus;
            continue;
        }
        uint32_t c = cpus < s->cpus[node] ? cpus : s->cpus[node];
        s->cpus[node] -= c;
        s->total_cpus -= c;
        s->mem[node] -= mem < s->mem[node] ? mem : s->mem[node];
    }
}

int profile_release (struct profile *p, time_t t, size_t node, uint32_t cpus,
                     uint32_t mem)
{
    long i;

    if (t == PROFILE_FOREVER || node >= p->nnodes)
        return 0;
    if ((i = profile_cut (p, t)) < 0)
        return -1;
    profile_add (p, (size_t)i, p->nsegs, node, cpus, mem, +1);
    return 0;
}

int profile_reserve (struct profile *p, time_t t0, time_t t1, size_t node,
                     uint32_t cpus, uint32_t mem)
{
    long i, end;

    if (node >= p->nnodes || t1 <= t0)
        return 0;
    if ((i = profile_cut (p, t0)) < 0)
        return -1;
    if (t1 == PROFILE_FOREVER)
        end = (long)p->nsegs;
    else if ((end = profile_cut (p, t1)) < 0)
        return -1;
    profile_add (p, (size_t)i, (size_t)end, node, cpus, mem, -1);
    return 0;
}

/* dst[n] = min (dst[n], src[n]): plain loops the compiler vectorizes
 * (a window may cover hundreds of segments of thousands of nodes). */
static void min_u32 (uint32_t *restrict dst, const uint32_t *restrict src,
                     size_t n)
{
    for (size_t k = 0; k < n; k++)
        dst[k] = src[k] < dst[k] ? src[k] : dst[k];
}

uint64_t profile_window (const struct profile *p, size_t i, time_t t1,
                         uint32_t *cpus, uint32_t *mem)
{
    uint64_t least = p->segs[i].total_cpus;

    memcpy (cpus, p->segs[i].cpus, p->nnodes * sizeof (*cpus));
    memcpy (mem, p->segs[i].mem, p->nnodes * sizeof (*mem));
    for (size_t k = i + 1; k < p->nsegs && p->segs[k].start < t1; k++) {
        const struct profile_seg *s = &p->segs[k];
        if (s->total_cpus < least)
            least = s->total_cpus;
        min_u32 (cpus, s->cpus, p->nnodes);
        min_u32 (mem, s->mem, p->nnodes);
    }
    return least;
}

uint64_t profile_window_total (const struct profile *p, size_t i, time_t t1)
{
    uint64_t least = p->segs[i].total_cpus;

    for (size_t k = i + 1; k < p->nsegs && p->segs[k].start < t1; k++)
        if (p->segs[k].total_cpus < least)
            least = p->segs[k].total_cpus;
    return least;
}
