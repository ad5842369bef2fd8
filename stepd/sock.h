/* sock.h - the step socket (sock.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_SOCK_H
#define ARBOR_STEPD_SOCK_H

#include <stddef.h>

#include "error.h"

struct stepd;

/* The step socket <spool>/stepd.<job>.<step>.sock. */
int sock_listen (struct stepd *sd, arbor_error_t *err);
void sock_unlisten (struct stepd *sd);
/* Connections on the step socket still open, and attached clients
 * (attach.c). */
size_t sock_npeers (const struct stepd *sd);
/* Close them (attached clients too) once their queued frames are
 * written. */
void sock_close_peers_after_flush (struct stepd *sd);
/* Close them now. */
void sock_close_peers (struct stepd *sd);

#endif
