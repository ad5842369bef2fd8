/* session_fuzz.c - libFuzzer target: a TCP conn's handshake and MACs.
 *
 * A responder conn reads the input from a socketpair: in CONN_AUTH_STEPKEY
 * mode (an I/O connection), or, when the first byte's bit 1 is set, as
 * node zero taking launch tickets (a munge-less CONN_AUTH_MUNGE responder
 * with an open_ticket of this harness's: "ticket-1.0" opens with KEY;
 * bit 2 makes it answer EAGAIN first, and the conn is retried). The first
 * byte's bit 0 picks the stream: set, the input follows a valid CONN_HELLO
 * made by this harness, so the fuzzer reaches the sealed frames after it
 * (trailer parsing, sequence numbers, MAC checks, frame delivery); clear,
 * the input is the whole stream (CONN_HELLO parsing and its limits).
 * Nothing may crash, leak or read out of bounds, whatever the stream.
 *
 *     build-fuzz/test-bin/session_fuzz -max_total_time=60
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

static bool key_later; /* open_ticket answers EAGAIN until retried */

static int open_ticket (struct conn *c, const char *ticket,
                        struct conn_ticket *t, arbor_error_t *err, void *arg)
{
    if (key_later) {
        errno = EAGAIN;
        return errprintf (err, "no key yet");
    }
    errno = EPERM;
    if (strcmp (ticket, "ticket-1.0") != 0)
        return errprintf (err, "launch ticket: forged");
    *t = (struct conn_ticket){ .job_id = 1, .uid = 1234, .gid = 1234 };
    snprintf (t->io_key, sizeof (t->io_key), "%s", KEY);
    return 0;
}

/* A valid HELLO for step 1.0 (a launcher's, with its ticket, when
 * 'ticket'), written to fd. */
static void write_hello (int fd, bool ticket)
{
    static const unsigned char nonce[SESSION_NONCE_SIZE] = { 1, 2, 3 };
    struct msg_conn_hello m = { .job_id = 1,
                                .nonce = (char *)nonce,
                                .nonce_len = sizeof (nonce),
                                .ticket = ticket ? "ticket-1.0" : NULL };
    unsigned char hdr[PROTO_HEADER_SIZE], tr[SESSION_TRAILER];
    struct session s;
    char *body;
    size_t blen;

    if ((ticket ? session_from_launch_key
                : session_from_step_key) (&s, true, KEY, 1, 0, nonce)
            < 0
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
    struct conn_auth stepkey = { .mode = CONN_AUTH_STEPKEY,
                                 .io_key = KEY,
                                 .job_id = 1 };
    struct conn_auth node0 = { .mode = CONN_AUTH_MUNGE,
                               .open_ticket = open_ticket };
    struct run r = { false };
    bool tickets = size > 0 && (data[0] & 2);
    int sv[2];

    if (size < 1 || size > 65536
        || socketpair (AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return 0;
    int sndbuf = 1 << 20;
    setsockopt (sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof (sndbuf));
    key_later = tickets && (data[0] & 4);
    struct conn *c =
        conn_create (loop, sv[0], tickets ? &node0 : &stepkey, &ops, &r);
    if (!c)
        abort ();
    if (data[0] & 1)
        write_hello (sv[1], tickets);
    if (size > 1 && write (sv[1], data + 1, size - 1) != (ssize_t)(size - 1))
        abort ();
    shutdown (sv[1], SHUT_WR);
    while (!r.closed) {
        ev_run (loop, EVRUN_NOWAIT);
        if (key_later && !r.closed) { /* the key arrives: it goes on */
            key_later = false;
            conn_ticket_retry (c);
        } else if (!r.closed)
            ev_run (loop, EVRUN_ONCE);
    }
    close (sv[1]);
    return 0;
}
