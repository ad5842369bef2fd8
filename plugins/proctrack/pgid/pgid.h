/* pgid.h - internal: the pgid plugin's ops table, shared by the static
 * descriptor (pgid.c) and the exported one of proctrack_pgid.so
 * (pgid_dso.c). */
#ifndef ARBOR_PROCTRACK_PGID_H
#define ARBOR_PROCTRACK_PGID_H

#include "proctrack.h"

extern const struct proctrack_ops proctrack_pgid_ops;

#endif
