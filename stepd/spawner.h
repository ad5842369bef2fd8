/* spawner.h - arbor-stepd --spawner: a stepd made ready once, forked per
 * step (spawner.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_SPAWNER_H
#define ARBOR_STEPD_SPAWNER_H

#include "error.h"

struct stepd;

/* arbor-stepd --spawner: after stepd_load, serve the noded's SPAWN
 * requests on 'sock' (spawnmsg.h), forking one child per request. Returns 1 in
 * a child, whose fd 0 is now its socketpair to the noded, to go on with
 * stepd_start; 0 in the spawner when the noded closed 'sock'; -1 with err on
 * failure. */
int spawner_run (struct stepd *sd, int sock, arbor_error_t *err);

#endif
