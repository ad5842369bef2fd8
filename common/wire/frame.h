/* frame.h - the fixed frame header (frame.c): the layout is described at
 * the top of proto.h, whose PROTO_* constants it uses; every field is
 * big-endian. What authenticates a frame is in session.h.
 */
#ifndef ARBOR_FRAME_H
#define ARBOR_FRAME_H

#include <stdint.h>

#include "error.h"
#include "proto.h"

/* Frame header, decoded. */
struct frame_header {
    uint16_t major, minor;
    uint16_t type;
    uint16_t flags;
    uint32_t matchtag;
    uint32_t token_len;
    uint32_t body_len;
};

void frame_header_pack (const struct frame_header *h,
                        unsigned char out[PROTO_HEADER_SIZE]);
/* -1 with errno EPROTO and err on bad magic, another major version, or
 * lengths over the limits. */
int frame_header_unpack (const unsigned char in[PROTO_HEADER_SIZE],
                         struct frame_header *h, arbor_error_t *err);

#endif
