/* step_gres.h - a step's share of its job's generic resources (issue 35).
 *
 * A step that asks (--gres, --gpus, --gpus-per-node, --gpus-per-task)
 * holds units of its job apart: on each of its nodes the lowest of the
 * job's units there that no other running step holds apart (with
 * --overlap any of the job's, and it holds none apart), its --gpus spread
 * over its nodes in order. Not enough free now: EBUSY, the step waits as
 * for busy cores; more than the job holds: EINVAL. A step that does not
 * ask uses all of its job's units on its nodes, shared, as the batch step
 * does. Its units go back with each of its nodes (step.c).
 */
#ifndef ARBOR_CTLD_STEP_GRES_H
#define ARBOR_CTLD_STEP_GRES_H

#include <stddef.h>

#include "error.h"
#include "proto.h"

struct job;
struct step;

/* Take s's share for request 'req' (s's nodes and tasks laid out). 0, or
 * -1 with errno EBUSY, EINVAL or ENOMEM and err; nothing taken. */
int step_gres_take (struct job *j, struct step *s,
                    const struct msg_step_create *req, arbor_error_t *err);
/* Give back what s holds apart on its node i. */
void step_gres_release (struct job *j, struct step *s, size_t i);
/* What s holds on its node i, as the credential carries it (its own
 * share, or all of its job's there): malloc'd text, "" none; NULL ENOMEM. */
char *step_gres_text (const struct job *j, const struct step *s, size_t i);

#endif
