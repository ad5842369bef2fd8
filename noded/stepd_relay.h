/* stepd_relay.h - each stepd's STEP_COMPLETE, which it sends over its
 * connection to us, carried on to the controller (retried); the orphans'
 * too (step_notify). */
#ifndef ARBOR_NODED_STEPD_RELAY_H
#define ARBOR_NODED_STEPD_RELAY_H

#include <stdbool.h>
#include <stdint.h>

#include "proto.h"

struct noded;
struct conn;
struct stepd_table;
struct step_notify;

/* Called once a STEP_COMPLETE is delivered (the ctld answered, accepting
 * it: taken true, or refusing it) or given up. */
typedef void (*step_notify_f) (bool taken, void *arg);

/* Send 'm' (copied; node replaced by this node's name) to the ctld as
 * STEP_COMPLETE: the first attempt now, then every RELAY_RESEND s an
 * unanswered attempt is given up and started again, RELAY_TRIES attempts
 * at most. 'cb' is called once, never from inside this call; the notify
 * frees itself before calling it. NULL with errno (ENOMEM). */
struct step_notify *step_notify_start (struct noded *nd,
                                       const struct msg_step_complete *m,
                                       step_notify_f cb, void *arg);
/* Stop and free it; 'cb' is not called. NULL is accepted. */
void step_notify_cancel (struct step_notify *n);

/* A frame from the stepd of (job, step) on its own connection 'c' (our
 * end of its socketpair, or the connection we opened on its socket and
 * sent STEPD_ATTACH on). A STEP_COMPLETE is checked (it must name that
 * job, step and this node, and come from root or our uid; else refused
 * with EPERM and logged), taken over (relayed to the ctld with retries,
 * in the table: it outlives the stepd's record) and answered RC 0.
 * Returns true if the frame was a STEP_COMPLETE (answered), else false
 * (the caller deals with it). */
bool stepd_relay_frame (struct noded *nd, struct conn *c, const struct frame *f,
                        uint32_t job, uint32_t step);
/* Daemon shutdown: drop the relays not yet delivered (logged). */
void stepd_relay_free_all (struct stepd_table *t);

#endif
