/* sched_range.h - -N MIN-MAX (sched_range.c): as many nodes of a job's
 * range as fit now. Private to the scheduler's passes (sched.c).
 */
#ifndef ARBOR_CTLD_SCHED_RANGE_H
#define ARBOR_CTLD_SCHED_RANGE_H

#include <stddef.h>

#include "error.h"
#include "sched/select.h"

struct job;

/* Select as many nodes of j's range as fit now (0, or -1 with errno
 * ENOSPC and err when not even MIN does); put j's request back to the
 * range's minimum for a new run; record in it what a run got. */
int sched_range_select (const struct select_node *v, size_t n,
                        const struct job *j, struct select_result *res,
                        arbor_error_t *err);
void sched_range_reset (struct job *j);
void sched_range_got (struct job *j, const struct select_result *res);

#endif
