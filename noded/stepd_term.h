/* stepd_term.h - steps ended: STEPD_TERMINATE over the stepd sockets, one
 * answer awaited from each stepd (its container is empty, or it is
 * unkillable). */
#ifndef ARBOR_NODED_STEPD_TERM_H
#define ARBOR_NODED_STEPD_TERM_H

#include <stdint.h>

#include "stepd_table.h"

/* Send STEPD_TERMINATE {reason} to every stepd of (job, step) (step may be
 * STEP_ID_ALL): through the sockets in the spool, which also reaches the
 * stepds of a previous noded, and, for a stepd of ours still starting,
 * once it has started (if it fails instead, it counts as gone). A socket
 * that refuses the connection is a stepd that died: the noded ends its
 * container (stepd_orphan.c), which counts as that stepd's answer. A
 * stepd that answers "unknown message" (it predates STEPD_TERMINATE) gets
 * STEP_SIGNAL SIGKILL instead and is awaited until it closes. 'cb' is
 * called once per counted stepd, never from inside this call; a stepd
 * silent for 'timeout' seconds is reported ETIME. Returns the count. */
int stepd_terminate (struct noded *nd, uint32_t job, uint32_t step,
                     const char *reason, double timeout, stepd_term_f cb,
                     void *arg);

/* Pending terminations reporting to 'arg' will not call back any more (the
 * stepds are still awaited, quietly). */
void stepd_terminate_cancel (struct noded *nd, void *arg);

/* Hooks of the stepd table: a stepd of ours started its tasks (send the
 * terminations that waited for it), or is gone (they count as done).
 * stepd_term_free_all() drops every termination without calling back. */
void stepd_term_started (struct stepd_rec *s);
void stepd_term_gone (struct stepd_rec *s);
void stepd_term_free_all (struct stepd_table *t);

#endif
