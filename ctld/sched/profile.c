/* profile.c - the availability profile. See profile.h.
 */
#include <errno.h>
#include <stdbool.h>
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
    for (size_t b = 0; b < p->nblocks; b++) {
        free (p->blocks[b].cpus);
        free (p->blocks[b].mem);
    }
    free (p->segs);
    free (p->blocks);
    memset (p, 0, sizeof (*p));
}

/* The index of the segment that starts at t, cutting the one that holds
 * t in two if needed. t before the first segment is taken as its start.
 * -1 with errno ENOMEM. */
size_t profile_seg_at (const struct profile *p, time_t t)
{
    size_t lo = 0, hi = p->nsegs;

    while (hi - lo > 1) { /* the last segment starting at or before t */
        size_t mid = (lo + hi) / 2;
        if (p->segs[mid].start <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static long profile_cut (struct profile *p, time_t t)
{
    size_t lo;

    if (t <= p->segs[0].start)
        return 0;
    lo = profile_seg_at (p, t);
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

static size_t blocks_add (struct profile *p, size_t i, size_t end, size_t node,
                          uint32_t cpus, uint32_t mem, int sign,
                          size_t part[2]);
static void block_scan (struct profile *p, size_t b, size_t node);

/* Add (sign +1) or take (-1) node's share over segments [i, end). */
static void profile_add (struct profile *p, size_t i, size_t end, size_t node,
                         uint32_t cpus, uint32_t mem, int sign)
{
    size_t part[2];
    size_t npart =
        p->nblocks ? blocks_add (p, i, end, node, cpus, mem, sign, part) : 0;

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
    for (size_t k = 0; k < npart; k++)
        block_scan (p, part[k], node);
}

/* ---- blocks ----------------------------------------------------------------
 */

static time_t block_start (const struct profile *p, size_t b)
{
    return p->origin + (time_t)b * p->span;
}

/* Node's least free over block b, read from its segments (the segments
 * are cut at each block's start: none straddles two). */
static void block_scan (struct profile *p, size_t b, size_t node)
{
    size_t k = profile_seg_at (p, block_start (p, b));
    time_t end = block_start (p, b + 1);
    uint32_t c = UINT32_MAX, m = UINT32_MAX;

    for (; k < p->nsegs && p->segs[k].start < end; k++) {
        c = p->segs[k].cpus[node] < c ? p->segs[k].cpus[node] : c;
        m = p->segs[k].mem[node] < m ? p->segs[k].mem[node] : m;
    }
    p->blocks[b].cpus[node] = c;
    p->blocks[b].mem[node] = m;
}

/* The blocks' share of profile_add: a block the change covers whole
 * changes as each of its segments does (adding, or taking down to 0,
 * keeps their order, so their least changes alike); the blocks it covers
 * in part (at most two: where it starts and where it ends) go into part[]
 * to be read again once the segments have changed. Returns how many. */
static size_t blocks_add (struct profile *p, size_t i, size_t end, size_t node,
                          uint32_t cpus, uint32_t mem, int sign, size_t part[2])
{
    time_t t0 = p->segs[i].start;
    time_t t1 = end < p->nsegs ? p->segs[end].start : PROFILE_FOREVER;
    size_t npart = 0;

    for (size_t b = 0; b < p->nblocks; b++) {
        struct profile_block *k = &p->blocks[b];
        time_t bs = block_start (p, b), be = block_start (p, b + 1);
        if (be <= t0 || bs >= t1)
            continue;
        if (bs < t0 || be > t1) {
            if (npart < 2)
                part[npart++] = b;
            continue;
        }
        if (sign > 0) {
            k->cpus[node] += cpus;
            k->mem[node] += mem;
            continue;
        }
        k->cpus[node] -= cpus < k->cpus[node] ? cpus : k->cpus[node];
        k->mem[node] -= mem < k->mem[node] ? mem : k->mem[node];
    }
    return npart;
}

int profile_blocks (struct profile *p, time_t span, time_t until)
{
    size_t n = 0;

    if (span <= 0 || until <= p->segs[0].start)
        return 0;
    p->origin = p->segs[0].start;
    p->span = span;
    n = (size_t)((until - p->origin + span - 1) / span);
    if (!(p->blocks = calloc (n, sizeof (*p->blocks))))
        return -1;
    for (size_t b = 0; b < n; b++) {
        struct profile_block *k = &p->blocks[b];
        p->nblocks = b + 1; /* what profile_free frees */
        if (profile_cut (p, block_start (p, b)) < 0
            || profile_cut (p, block_start (p, b + 1)) < 0
            || !(k->cpus = malloc ((p->nnodes + 1) * sizeof (uint32_t)))
            || !(k->mem = malloc ((p->nnodes + 1) * sizeof (uint32_t))))
            return -1;
        /* one segment a block so far: a copy of the first */
        memcpy (k->cpus, p->segs[0].cpus, p->nnodes * sizeof (uint32_t));
        memcpy (k->mem, p->segs[0].mem, p->nnodes * sizeof (uint32_t));
    }
    return 0;
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

/* The block that starts at segment k and ends by t1, or SIZE_MAX. */
static size_t block_within (const struct profile *p, size_t k, time_t t1)
{
    time_t st = p->segs[k].start;
    size_t b;

    if (!p->nblocks || st < p->origin || (st - p->origin) % p->span)
        return SIZE_MAX;
    b = (size_t)((st - p->origin) / p->span);
    return b < p->nblocks && block_start (p, b + 1) <= t1 ? b : SIZE_MAX;
}

/* dst = src (first) or min (dst, src), cpus and (when asked) mem. */
static void window_take (const struct profile *p, uint32_t *cpus, uint32_t *mem,
                         const uint32_t *sc, const uint32_t *sm, bool first)
{
    if (first) {
        memcpy (cpus, sc, p->nnodes * sizeof (*cpus));
        if (mem)
            memcpy (mem, sm, p->nnodes * sizeof (*mem));
        return;
    }
    min_u32 (cpus, sc, p->nnodes);
    if (mem)
        min_u32 (mem, sm, p->nnodes);
}

uint64_t profile_window (const struct profile *p, size_t i, time_t t1,
                         uint32_t *cpus, uint32_t *mem)
{
    size_t k = i;

    while (k < p->nsegs && (k == i || p->segs[k].start < t1)) {
        size_t b = block_within (p, k, t1);
        if (b != SIZE_MAX) { /* a whole block, then from the next one on */
            window_take (p, cpus, mem, p->blocks[b].cpus, p->blocks[b].mem,
                         k == i);
            k = profile_seg_at (p, block_start (p, b + 1));
            continue;
        }
        window_take (p, cpus, mem, p->segs[k].cpus, p->segs[k].mem, k == i);
        k++;
    }
    return profile_window_total (p, i, t1);
}

uint64_t profile_window_total (const struct profile *p, size_t i, time_t t1)
{
    uint64_t least = p->segs[i].total_cpus;

    for (size_t k = i + 1; k < p->nsegs && p->segs[k].start < t1; k++)
        if (p->segs[k].total_cpus < least)
            least = p->segs[k].total_cpus;
    return least;
}
