/* gres_step.h - the step's generic resources on this node (issue 35):
 * from STEPD_INIT, what the step holds (gres, the credential's) and the
 * node's device units (dev_names, dev_files: one entry per unit with a
 * file, the units of a name in index order). Pure, unit-tested.
 */
#ifndef ARBOR_STEPD_GRES_STEP_H
#define ARBOR_STEPD_GRES_STEP_H

#include <stddef.h>

#include "error.h"
#include "proto.h"

/* The device files of the node's units the step does not hold: what
 * ConstrainDevices denies. *files is a malloc'd array of borrowed
 * strings (free the array only); *n its length. -1 with errno EINVAL
 * (a damaged gres text: err) or ENOMEM. */
int gres_step_deny (const struct msg_stepd_init *in, char ***files, size_t *n,
                    arbor_error_t *err);

#endif
