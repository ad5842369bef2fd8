/* conn_fuzz.c - libFuzzer target: the frame reader of common/wire/conn.c.
 *
 * Each input is the byte stream a peer sends on a unix socketpair (a
 * CONN_AUTH_PEERCRED conn, so no munged is needed): it is written, the
 * peer half-closes, and the loop runs until the conn closes. Header
 * checks, the token-before-body rule, buffer growth and compaction, and
 * delivery of every complete frame to a decoder must never crash, leak or
 * read out of bounds (ASan/UBSan watch), whatever the stream.
 *
 *     build-fuzz/test-bin/conn_fuzz -max_total_time=60
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "proto.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

struct run {
    bool closed;
    unsigned frames;
};

static void frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct run *r = arg;
    union msg_any m;

    r->frames++;
    if (proto_msg_known (f->type)
        && proto_decode (f->type, f->body, f->body_len, &m, NULL) == 0)
        proto_clear (f->type, &m);
}

static void closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    struct run *r = arg;

    r->closed = true;
}

static const struct conn_ops ops = { .frame = frame_cb, .closed = closed_cb };

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ev_loop *loop = ev_default_loop (0);
    struct run r = { false, 0 };
    int sv[2];

    if (size > 65536 || socketpair (AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return 0;
    int sndbuf = 1 << 20;
    setsockopt (sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof (sndbuf));
    struct conn *c = conn_create_unix (loop, sv[0], &ops, &r);
    if (!c)
        abort ();
    if (size && write (sv[1], data, size) != (ssize_t)size)
        abort ();
    shutdown (sv[1], SHUT_WR);
    while (!r.closed)
        ev_run (loop, EVRUN_ONCE);
    close (sv[1]);
    return 0;
}
