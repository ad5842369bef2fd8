/* stat.h - what the tasks use now, for sstat (stat.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_STAT_H
#define ARBOR_STEPD_STAT_H

struct msg_step_stat_reply;
struct stepd;

/* The STEP_STAT_REPLY of what the tasks use now (sstat). 0, or
 * -1 with errno ENOMEM; proto_clear it. */
int stat_measure (struct stepd *sd, struct msg_step_stat_reply *r);

#endif
