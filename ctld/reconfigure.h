/* reconfigure.h - what may change while the controller runs, read again
 * (reconfigure.c): SIGHUP (ctld.c) and arbor control reconfigure
 * (serve/serve_nodes.c).
 */
#ifndef ARBOR_CTLD_RECONFIGURE_H
#define ARBOR_CTLD_RECONFIGURE_H

#include "error.h"

struct ctld;

/* Read again what may change while running (the CPU-hour limits, then
 * arbor.conf's Licenses=; a bad one keeps the licenses in force):
 * SIGHUP and arbor control reconfigure. -1 with err (nothing changed). */
int ctld_reconfigure (struct ctld *ctx, arbor_error_t *err);

#endif
