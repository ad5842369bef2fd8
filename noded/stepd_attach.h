/* stepd_attach.h - sattach's STEP_ATTACH, relayed to the step's stepd. */
#ifndef ARBOR_NODED_STEPD_ATTACH_H
#define ARBOR_NODED_STEPD_ATTACH_H

#include "proto.h"

struct noded;
struct conn;

/* STEP_ATTACH from any user (sattach): EINVAL without an address or with
 * a key of the wrong size, else relayed (stepd_ask_relay); the stepd
 * answers RC once it has connected to the client. */
void stepd_attach_handle (struct noded *nd, struct conn *c,
                          const struct frame *f,
                          const struct msg_step_attach *m);

#endif
