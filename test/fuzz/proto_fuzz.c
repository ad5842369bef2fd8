/* proto_fuzz.c - libFuzzer target: every message decoder on every input.
 *
 * Each input is decoded as every message type. Decoding must never crash,
 * leak or read out of bounds (ASan/UBSan watch), must fail with EPROTO or
 * succeed, and what it accepts must survive a round trip: re-encoding the
 * decoded message and decoding that again must give the same encoding.
 * The same holds for the sparse decoder (proto_decode_sparse: every
 * field optional) and encoder. The first input byte also selects one type
 * to be tried as a frame
 * header, so frame_header_unpack is covered too.
 *
 *     cmake -DARBOR_FUZZ=ON -DCMAKE_C_COMPILER=clang ...
 *     build/test-bin/proto_fuzz -max_total_time=60 corpus/
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

static const int types[] = {
#define F(t, n)
#define MSG(id, UP, low, fields) MSG_##UP,
#include "proto_msgs.def"
#undef MSG
#undef F
};

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void roundtrip (int type, union msg_any *m)
{
    union msg_any again;
    char *b1, *b2;
    size_t l1, l2;

    if (proto_encode (type, m, &b1, &l1) < 0)
        abort ();
    if (proto_decode (type, b1, l1, &again, NULL) < 0)
        abort ();
    if (proto_encode (type, &again, &b2, &l2) < 0)
        abort ();
    if (l1 != l2 || memcmp (b1, b2, l1) != 0)
        abort ();
    proto_clear (type, &again);
    free (b1);
    free (b2);
}

/* A sparse body decodes the same way or fails with EPROTO, and encodes
 * sparse again to bytes that decode to an equal encoding. */
static void sparse_roundtrip (int type, const uint8_t *data, size_t size)
{
    union msg_any m, again;
    char *b1, *b2;
    size_t l1, l2;

    if (proto_decode_sparse (type, (const char *)data, size, &m, NULL) < 0) {
        if (errno != EPROTO)
            abort ();
        return;
    }
    if (proto_encode_sparse (type, &m, &b1, &l1) < 0
        || proto_decode_sparse (type, b1, l1, &again, NULL) < 0
        || proto_encode_sparse (type, &again, &b2, &l2) < 0)
        abort ();
    if (l1 != l2 || memcmp (b1, b2, l1) != 0)
        abort ();
    proto_clear (type, &m);
    proto_clear (type, &again);
    free (b1);
    free (b2);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    union msg_any m;
    arbor_error_t err;

    for (size_t i = 0; i < sizeof (types) / sizeof (types[0]); i++) {
        if (proto_decode (types[i], (const char *)data, size, &m, &err) < 0) {
            if (errno != EPROTO)
                abort ();
            continue;
        }
        roundtrip (types[i], &m);
        proto_clear (types[i], &m);
    }
    for (size_t i = 0; i < sizeof (types) / sizeof (types[0]); i++)
        sparse_roundtrip (types[i], data, size);
    if (size >= PROTO_HEADER_SIZE) {
        struct frame_header h;
        unsigned char out[PROTO_HEADER_SIZE];
        if (frame_header_unpack (data, &h, NULL) == 0) {
            frame_header_pack (&h, out);
            if (memcmp (out, data, PROTO_HEADER_SIZE) != 0)
                abort ();
        }
    }
    return 0;
}
