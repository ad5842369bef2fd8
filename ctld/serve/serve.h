/* serve.h - serving client connections (users, commands, nodeds).
 */
#ifndef ARBOR_CTLD_SERVE_H
#define ARBOR_CTLD_SERVE_H

#include "conn.h"
#include "error.h"
#include "proto.h"

struct ctld;
struct serve;

/* Handle request 'f' that arrived on 'c' (serve_frame_cb's work; tests call
 * it on a conn of their own). Always answers. */
void serve_request (struct ctld *ctx, struct conn *c, const struct frame *f);
void serve_frame_cb (struct conn *c, const struct frame *f, void *arg);
void serve_closed_cb (struct conn *c, const arbor_error_t *err, void *arg);
/* Serve client connections accepted on 'fd' (owned from now on, even on
 * failure), within the listener's limits (common/wire/listen.h). NULL with
 * errno. serve_destroy closes the listener and every client connection
 * (NULL accepted, errno kept). */
struct serve *serve_create (struct ctld *ctx, int fd);
void serve_destroy (struct serve *sv);

#endif
