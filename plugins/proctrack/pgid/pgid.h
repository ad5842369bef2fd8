/* pgid.h - proctrack/pgid (pgid.c): its ops table, shared by the static
 * descriptor (pgid.c) and the exported one of proctrack_pgid.so
 * (pgid_dso.c), and the static descriptor itself, which proctrack.h
 * passes on to the family's users. */
#ifndef ARBOR_PROCTRACK_PGID_H
#define ARBOR_PROCTRACK_PGID_H

struct arbor_plugin;
struct proctrack_ops;

extern const struct proctrack_ops proctrack_pgid_ops;

/* pgid's descriptor, for static use (tests, stepd without dlopen). */
const struct arbor_plugin *proctrack_pgid_plugin (void);

#endif
