/* frame.c - the fixed frame header.
 *
 * The header layout is documented in proto.h (interface: frame.h);
 * every field is big-endian. What authenticates a frame is in session.h.
 */
#include <errno.h>
#include <string.h>

#include "frame.h"

static void put16 (unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

static void put32 (unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static uint16_t get16 (const unsigned char *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t get32 (const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16)
           | ((uint32_t)p[2] << 8) | p[3];
}

void frame_header_pack (const struct frame_header *h,
                        unsigned char out[PROTO_HEADER_SIZE])
{
    put32 (out, PROTO_MAGIC);
    put16 (out + 4, h->major);
    put16 (out + 6, h->minor);
    put16 (out + 8, h->type);
    put16 (out + 10, h->flags);
    put32 (out + 12, h->matchtag);
    put32 (out + 16, h->token_len);
    put32 (out + 20, h->body_len);
}

int frame_header_unpack (const unsigned char in[PROTO_HEADER_SIZE],
                         struct frame_header *h, arbor_error_t *err)
{
    uint32_t magic = get32 (in);

    if (magic != PROTO_MAGIC) {
        errno = EPROTO;
        return errprintf (err, "bad frame magic 0x%08x", magic);
    }
    h->major = get16 (in + 4);
    h->minor = get16 (in + 6);
    h->type = get16 (in + 8);
    h->flags = get16 (in + 10);
    h->matchtag = get32 (in + 12);
    h->token_len = get32 (in + 16);
    h->body_len = get32 (in + 20);
    if (h->major != PROTO_VERSION_MAJOR) {
        errno = EPROTO;
        return errprintf (err, "protocol version %u.%u, expected %u.x",
                          h->major, h->minor, PROTO_VERSION_MAJOR);
    }
    if (h->token_len > PROTO_MAX_TOKEN) {
        errno = EPROTO;
        return errprintf (err, "frame token of %u bytes exceeds %u",
                          h->token_len, PROTO_MAX_TOKEN);
    }
    if (h->body_len > PROTO_MAX_BODY) {
        errno = EPROTO;
        return errprintf (err, "frame body of %u bytes exceeds %u", h->body_len,
                          PROTO_MAX_BODY);
    }
    return 0;
}
