/* noded_link.h - what the stepd's noded connection carries besides
 * STEPD_INIT and the step socket's requests (noded_link.c).
 *
 * The noded connection is fd 0 (stepd.c) or, after a noded restart, the
 * step socket connection the new noded named with STEPD_ATTACH (sock.c);
 * both hand their frames and their loss here. Not installed.
 */
#ifndef ARBOR_STEPD_NODED_LINK_H
#define ARBOR_STEPD_NODED_LINK_H

#include <stdbool.h>

struct conn;
struct frame;
struct stepd;

/* A frame on the noded connection c (fd 0, or the attached one) that is
 * the same on both: a STEP_MESH, or an answer that no request of ours
 * awaits any more (ignored). True if it was one (handled). */
bool noded_link_frame (struct stepd *sd, struct conn *c, const struct frame *f);

#endif
