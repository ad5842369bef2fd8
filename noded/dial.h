/* dial.h - non-blocking TCP connect on the loop.
 *
 * net_connect_tcp_start() begins the connect; dial waits for the socket to
 * become writable and reports the outcome through one callback, so neither
 * the fan-out nor the registration ever blocks the loop on a slow peer.
 */
#ifndef ARBOR_NODED_DIAL_H
#define ARBOR_NODED_DIAL_H

#include <ev.h>
#include <stdint.h>

struct dial;

/* fd >= 0: connected (the callee owns fd). fd < 0: errnum says why. The
 * dial is freed once the callback returns. */
typedef void (*dial_f) (int fd, int errnum, void *arg);

/* Start connecting to host:port. NULL with errno if the connect failed at
 * once (the callback is then never called). */
struct dial *dial_start (struct ev_loop *loop, const char *host,
                         uint16_t port, dial_f cb, void *arg);
/* Abandon a pending dial (closes its fd; the callback is not called).
 * NULL is accepted. */
void dial_cancel (struct dial *d);

#endif
