/* trigger_event.h - noticing the events triggers wait for and running
 * their programs (trigger_event.c); the triggers themselves are
 * trigger.h's.
 */
#ifndef ARBOR_CTLD_TRIGGER_EVENT_H
#define ARBOR_CTLD_TRIGGER_EVENT_H
#include <time.h>

struct ctld;

/* Every second: check the events, fire triggers, run what is due. */
void trigger_tick (struct ctld *ctx, time_t now);
/* At start, once the state is restored: the nodes as they are now, so
 * that any change from here on is an event (also one in the first
 * second, before the first tick). */
void trigger_start (struct ctld *ctx, time_t now);

#endif
