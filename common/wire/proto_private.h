/* proto_private.h - what the codec's files share (proto.c: the tables,
 * encoding, clearing and copying; proto_decode.c: decoding): the field
 * and message descriptors generated from proto_msgs.def.
 */
#ifndef ARBOR_PROTO_PRIVATE_H
#define ARBOR_PROTO_PRIVATE_H
#include <stdbool.h>

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_MAX_DEPTH 32 /* nesting allowed in values we skip */

enum field_type {
    FT_BOOL,
    FT_I32,
    FT_U32,
    FT_U64,
    FT_STR,
    FT_BIN,
    FT_STRLIST,
    FT_U32LIST,
    FT_I32LIST,
    FT_BINLIST,
};

struct field {
    const char *key;
    uint8_t keylen;
    uint8_t type;       /* enum field_type */
    bool optional;      /* FO(): absent decodes as zero (proto_msgs.def) */
    uint16_t off;       /* offset of the value (or pointer) */
    uint16_t count_off; /* offset of n_len / n_count, lists and BIN only */
};

/* At most this many fields per message (the decoder's "seen" bitmap). */
#define PROTO_MAX_FIELDS 128

struct msg_desc {
    const char *name;
    const struct field *fields;
    unsigned nfields;
    size_t size;
    /* Per field, its row of field_limits + 1 (-1: the type's default;
     * 0: not looked up yet). Filled on first use; any thread may fill a
     * slot, always with the same value. */
    _Atomic int16_t *limits;
};

/* The descriptor of 'type', or NULL (proto.c). */
const struct msg_desc *proto_desc (int type);

/* Typed access to a field of a message struct. */
#define FPTR(msg, off, T) ((T *)((char *)(msg) + (off)))
#define FCPTR(msg, off, T) ((const T *)((const char *)(msg) + (off)))
typedef char **strv; /* so that FCPTR (m, o, strv) is char **const * */

#endif
