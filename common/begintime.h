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

/* 0 with *out, or -1 with errno EINVAL and err ("invalid --begin 'x'"). */
int begin_parse (const char *s, time_t now, time_t *out, arbor_error_t *err);

#endif
