/* own_launch.h - the LAUNCH of the controller's own steps (the batch
 * step, the extern step).
 */
#ifndef ARBOR_CTLD_OWN_LAUNCH_H
#define ARBOR_CTLD_OWN_LAUNCH_H

#include <stdint.h>

#include "proto.h"

struct ctld;
struct job;

/* What the LAUNCH of one of j's own steps always says: the credential
 * (st->cred), ids, the step's layout from 'st', the job's node list and
 * name, no launcher (io_host ""), no stdin, no MPI, the launch budget
 * (launch_budget_ms). The caller adds the slice, argv and what is its
 * own; strings are borrowed. Its answer may take OWN_LAUNCH_SLACK_MS more
 * than the budget. */
#define OWN_LAUNCH_SLACK_MS 2000
struct msg_launch launch_msg_own (const struct ctld *ctx, const struct job *j,
                                  uint32_t step_id,
                                  const struct msg_step_created *st);

#endif
