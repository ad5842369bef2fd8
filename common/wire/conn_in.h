/* conn_in.h - the internal calls of a connection's input (conn_in.c), for
 * conn.c and conn_hello.c. Not installed; nothing outside the conn files
 * includes it.
 */
#ifndef ARBOR_CONN_IN_H
#define ARBOR_CONN_IN_H

#include <ev.h>

#include "error.h"

struct conn;

/* The read watcher's callback. */
void conn_read_cb (struct ev_loop *loop, ev_io *w, int revents);
/* The slow-peer timer: armed while a frame is incomplete (stopped when
 * none is). */
void conn_frame_timer_update (struct conn *c);
void conn_mark_authenticated (struct conn *c);
/* Close with an error as a refusal (conn_refused): the peer broke the
 * rules. */
void conn_refuse (struct conn *c, const arbor_error_t *err);
/* Deliver the complete frames buffered, and make room for the next. */
void conn_deliver (struct conn *c);

#endif
