/* jobstart.h - what the scheduler decides, carried out (jobstart.c).
 */
#ifndef ARBOR_CTLD_JOBSTART_H
#define ARBOR_CTLD_JOBSTART_H

struct ctld;

/* Give the scheduler its hooks (sched_hooks_set) and the state machine
 * its reactions (jobstate_hooks_set): once, at assembly, after
 * sched_create. */
void jobstart_init (struct ctld *ctx);

#endif
