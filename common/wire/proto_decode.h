/* proto_decode.h - msgpack bytes -> message structs (proto_decode.c).
 *
 * The decoder is the one place that reads bytes from peers, so it is kept
 * apart from the encoder (proto.c); both work from proto_msgs.def through
 * proto.h.
 */
#ifndef ARBOR_PROTO_DECODE_H
#define ARBOR_PROTO_DECODE_H

#include <stddef.h>

#include "error.h"
#include "proto.h"

/* Decode a body into 'msg' (zeroed first). Strings and lists are malloc'd
 * copies owned by 'msg': release with proto_clear(). -1 with errno EPROTO and
 * err naming the message and field on malformed input; 'msg' is then left
 * cleared. Never crashes on any input. */
int proto_decode (int type, const char *buf, size_t len, void *msg,
                  arbor_error_t *err);
/* The same for a body of proto_encode_sparse: every field may be absent,
 * and is then zero. */
int proto_decode_sparse (int type, const char *buf, size_t len, void *msg,
                         arbor_error_t *err);

#endif
