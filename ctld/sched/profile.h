/* profile.h - when cores and memory will be free: the backfill
 * scheduler's availability profile (pure logic).
 *
 * Time is cut into segments; segment i runs from its start to the next
 * one's (the last one forever), and holds, for every node, the cores and
 * MB free during all of it. Running jobs give their share back at their
 * expected end (profile_release); a job planned to start gets its share
 * taken for its time limit (profile_reserve). Both cut segments where
 * they begin and end, so a node's free cores are known per core, not per
 * whole node as Slurm's backfill keeps them, and memory per MB (32
 * bits of MB: 4 PB a node).
 *
 * Times are seconds; callers round them to their resolution so that the
 * number of segments stays bounded.
 *
 * A window's least free (profile_window) reads every segment it covers:
 * a job of a day's limit at a minute's resolution reads a thousand rows
 * of every node. With blocks (profile_blocks), the profile also keeps,
 * for each block of time of a fixed span, every node's least free over
 * the block, updated as shares are taken and given back; a window then
 * reads whole blocks, and single segments only at its two ends.
 */
#ifndef ARBOR_CTLD_PROFILE_H
#define ARBOR_CTLD_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define PROFILE_FOREVER ((time_t)INT64_MAX)

struct profile_seg {
    time_t start;
    uint32_t *cpus; /* free, per node */
    uint32_t *mem;  /* free MB, per node */
    uint64_t total_cpus;
};

/* Every node's least free over [origin + b * span, origin + (b + 1) *
 * span), block b. */
struct profile_block {
    uint32_t *cpus, *mem;
};

struct profile {
    size_t nnodes;
    struct profile_seg *segs;
    size_t nsegs, cap;
    time_t origin, span; /* blocks: span 0 when none */
    struct profile_block *blocks;
    size_t nblocks;
};

/* One segment from 'now' on, with what is free now. -1 with errno ENOMEM. */
int profile_init (struct profile *p, size_t nnodes, time_t now,
                  const uint32_t *free_cpus, const uint32_t *free_mem);
void profile_free (struct profile *p);
/* Keep blocks of 'span' seconds from the first segment's start up to
 * 'until' (segments are cut at each block's start); call it before the
 * first release or reserve. -1 with errno ENOMEM. */
int profile_blocks (struct profile *p, time_t span, time_t until);

/* From time t on, node gets back 'cpus' cores and 'mem' MB. -1 ENOMEM. */
int profile_release (struct profile *p, time_t t, size_t node, uint32_t cpus,
                     uint32_t mem);
/* During [t0, t1), node's 'cpus' and 'mem' are taken. -1 ENOMEM. */
int profile_reserve (struct profile *p, time_t t0, time_t t1, size_t node,
                     uint32_t cpus, uint32_t mem);

/* What every node has free during all of [p->segs[i].start, t1): the
 * least of the segments it covers, into cpus[] and mem[] (nnodes each;
 * mem NULL: cores only). Returns the least total of free cores among
 * those segments. */
uint64_t profile_window (const struct profile *p, size_t i, time_t t1,
                         uint32_t *cpus, uint32_t *mem);

/* The segment that holds time t (the first one when t is before it). */
size_t profile_seg_at (const struct profile *p, time_t t);

/* Only the least total of free cores over that window: a cheap first
 * test before profile_window. */
uint64_t profile_window_total (const struct profile *p, size_t i, time_t t1);

#endif
