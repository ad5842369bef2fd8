/* stepd_stat.h - sstat's STEP_STAT, relayed to the step's stepd. */
#ifndef ARBOR_NODED_STEPD_STAT_H
#define ARBOR_NODED_STEPD_STAT_H

#include "proto.h"

struct noded;
struct conn;

/* STEP_STAT from any user (sstat), relayed (stepd_ask_relay); the answer
 * is the stepd's STEP_STAT_REPLY. */
void stepd_stat_handle (struct noded *nd, struct conn *c, const struct frame *f,
                        const struct msg_step_stat *m);

#endif
