/* lifecycle.h - the phases of the step (lifecycle.c decides when it is over).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_LIFECYCLE_H
#define ARBOR_STEPD_LIFECYCLE_H

struct stepd;

/* Set up the phases of the step, advanced on the loop. 0, or -1 with
 * errno ENOMEM. */
int life_init (struct stepd *sd);
/* No valid STEPD_INIT will come: end the loop. */
void life_abort (struct stepd *sd);
void life_fini (struct stepd *sd);

#endif
