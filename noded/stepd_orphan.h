/* stepd_orphan.h - the containers of stepds that died, ended by the
 * noded. */
#ifndef ARBOR_NODED_STEPD_ORPHAN_H
#define ARBOR_NODED_STEPD_ORPHAN_H

#include <stdbool.h>
#include <stdint.h>

#include "stepd_info.h"
#include "stepd_table.h"

/* End the container of a stepd that died (see stepd_ended): load
 * ProctrackType, adopt the step's existing container, SIGCONT + SIGTERM,
 * KillWait, SIGKILL (repeated) until it is empty, remove it, then send
 * STEP_COMPLETE {node, rc} to the ctld (retried) and remove the socket
 * and the record. Nothing happens if one already runs for (job, step).
 * 0, or -1 with errno (logged) when the container cannot be adopted. */
int stepd_orphan_start (struct noded *nd, const struct stepd_info *si, int rc);
bool stepd_orphan_exists (struct noded *nd, uint32_t job, uint32_t step);
/* Call 'cb' when the orphan of (job, step) is empty (0) or found
 * unkillable (ETIME; it is still being killed). Returns 1 if there is
 * such an orphan still being emptied (cb will be called, never from
 * inside this call), else 0. */
int stepd_orphan_wait (struct noded *nd, uint32_t job, uint32_t step,
                       stepd_term_f cb, void *arg);
/* Waits reporting to 'arg' will not call back any more. */
void stepd_orphan_cancel (struct noded *nd, void *arg);
/* Drop every orphan (daemon shutdown): the socket and record stay, so the
 * next noded takes the containers over (stepd_scan). */
void stepd_orphan_free_all (struct stepd_table *t);

#endif
