/* conn_hello.h - the internal calls of the session handshake
 * (conn_hello.c), for conn.c and conn_in.c. Not installed; nothing
 * outside the conn files includes it.
 */
#ifndef ARBOR_CONN_HELLO_H
#define ARBOR_CONN_HELLO_H

#include "error.h"
#include "proto.h"

struct conn;

/* Initiator: start the HELLO (munge: queued to the pool, output held
 * until it is ready; step key: sent at once). 0, or -1 with errno. */
int conn_hello_start (struct conn *c);
/* Responder: the first frame, whole: verify it (step key) or start its
 * token's decode (munge; reading stops until the pool answers). 0, or -1
 * with errno and err (the conn is then refused). */
int conn_hello_receive (struct conn *c, const unsigned char *p,
                        const struct frame_header *h, arbor_error_t *err);

#endif
