/* session_fuzz.c - libFuzzer target: a TCP conn's handshake and MACs.
 *
 * A responder conn in CONN_AUTH_STEPKEY mode (an I/O connection, so no
 * munged is needed) reads the input from a socketpair. The first input
 * byte picks the case: odd, the input follows a valid CONN_HELLO made by
 * this harness, so the fuzzer reaches the sealed frames after it (trailer
 * parsing, sequence numbers, MAC checks, frame delivery); even, the input
 * is the whole stream (CONN_HELLO parsing and its limits). Nothing may
 * crash, leak or read out of bounds, whatever the stream.
 *
 *     build-fuzz/test-bin/session_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "proto.h"
#include "session.h"

#define KEY "0123456789abcdef0123456789abcdef"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

struct run {
    bool closed;
};

static void frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    union msg_any m;

    if (proto_msg_known (f->type)
        && proto_decode (f->type, f->body, f->body_len, &m, NULL) == 0)
        proto_clear (f->type, &m);
}

static void closed_cb (struct conn *c, const arbor_error_t *err, void *arg)
{
    ((struct run *)arg)->closed = true;
}

static const struct conn_ops ops = { .frame = frame_cb, .closed = closed_cb };

/* A valid HELLO for step 1.0, written to fd. */
static void write_hello (int fd)
{
    static const unsigned char nonce[SESSION_NONCE_SIZE] = { 1, 2, 3 };
    struct msg_conn_hello m = { .job_id = 1,
                                .nonce = (char *)nonce,
                                .nonce_len = sizeof (nonce) };
    unsigned char hdr[PROTO_HEADER_SIZE], tr[SESSION_TRAILER];
    struct session s;
    char *body;
    size_t blen;

    if (session_from_step_key (&s, true, KEY, 1, 0, nonce) < 0
        || proto_encode (MSG_CONN_HELLO, &m, &body, &blen) < 0)
        abort ();
    session_frame_head (&s, MSG_CONN_HELLO, 0, 0, body, blen, hdr, tr);
    if (write (fd, hdr, sizeof (hdr)) != sizeof (hdr)
        || write (fd, tr, sizeof (tr)) != sizeof (tr)
        || write (fd, body, blen) != (ssize_t)blen)
        abort ();
    free (body);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ev_loop *loop = ev_default_loop (0);
    struct conn_auth a = { .mode = CONN_AUTH_STEPKEY,
                           .io_key = KEY,
                           .job_id = 1 };
    struct run r = { false };
    int sv[2];

    if (size < 1 || size > 65536
        || socketpair (AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return 0;
    int sndbuf = 1 << 20;
    setsockopt (sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof (sndbuf));
    struct conn *c = conn_create (loop, sv[0], &a, &ops, &r);
    if (!c)
        abort ();
    if (data[0] & 1)
        write_hello (sv[1]);
    if (size > 1 && write (sv[1], data + 1, size - 1) != (ssize_t)(size - 1))
        abort ();
    shutdown (sv[1], SHUT_WR);
    while (!r.closed)
        ev_run (loop, EVRUN_ONCE);
    close (sv[1]);
    return 0;
}
