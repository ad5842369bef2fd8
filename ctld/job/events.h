/* events.h - a job's history: what happened to it, when, and who did it.
 *
 * Each job keeps its events in order (submitted, eligible, allocated,
 * steps started and ended, signalled, held, released, requeued,
 * cancelled by whom, ended with its state and exit code, done
 * completing), across requeues and controller restarts (they are part of
 * its JOB_REC). At most JOB_EVENTS_MAX are kept, the first ones; later
 * ones are only counted. Shown by "arbor job events N" (JOB_EVENTS).
 */
#ifndef ARBOR_CTLD_EVENTS_H
#define ARBOR_CTLD_EVENTS_H

#include <stdint.h>
#include <time.h>

struct ctld;
struct job;

#define JOB_EVENTS_MAX 256

struct job_event {
    time_t time;
    char *text;
};

/* Add an event to j's history (written with j). Out of memory, it is
 * counted as dropped. */
void job_event (const struct ctld *ctx, struct job *j, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* The same, not marking j for writing: jobstate.c's record stage, whose
 * commit stage writes j once per transition. */
void job_event_note (const struct ctld *ctx, struct job *j, const char *fmt,
                     ...) __attribute__ ((format (printf, 3, 4)));
/* Add one as it was recorded (the restore). 0, or -1 with errno ENOMEM. */
int job_event_restore (struct job *j, time_t when, const char *text);
void job_events_free (struct job *j);
/* "arbortest (uid 1001)" for the events' "by whom". Caller frees; NULL
 * with errno ENOMEM. */
char *event_who (uid_t uid);

#endif
