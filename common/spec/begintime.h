/* begintime.h - Slurm's --begin times, as absolute unix seconds.
 *
 *   now, now+N[seconds|minutes|hours|days|weeks] (N alone: seconds; also
 *   the short forms s, m/min, h, d, w)
 *   HH:MM[:SS]              today, or tomorrow if that time has passed
 *   YYYY-MM-DD[THH:MM[:SS]] that day (midnight) or moment, local time
 *   midnight, noon, elevenses (11:00), fika (15:00), teatime (16:00):
 *                           the next such time
 *   today, tomorrow         that day's midnight
 */
#ifndef ARBOR_BEGINTIME_H
#define ARBOR_BEGINTIME_H

#include <time.h>

#include "error.h"

#include <stdint.h>

/* The furthest ahead a begin time may be: 100 years (as far as now+N
 * goes). A job meant never to start is held, not given a far date. */
#define BEGIN_MAX_AHEAD (100LL * 366 * 86400)

/* 0 with *out, or -1 with errno EINVAL and err ("invalid --begin 'x'",
 * also for a time more than BEGIN_MAX_AHEAD after now). */
int begin_parse (const char *s, time_t now, time_t *out, arbor_error_t *err);

/* A begin time as a request carries it (unix seconds, 0 none), checked
 * before it becomes a time_t: 0, or -1 with errno EINVAL and err when
 * it is more than BEGIN_MAX_AHEAD after now (2^64-1 would otherwise read
 * as -1: "now"). */
int begin_check (uint64_t t, time_t now, arbor_error_t *err);

#endif
