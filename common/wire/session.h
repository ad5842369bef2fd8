/* session.h - the keys and MACs of one authenticated TCP connection.
 *
 * Munge is the root of trust, used once per connection: the initiator
 * draws a fresh 32-byte key and sends it in its opening frame
 * (MSG_CONN_HELLO) inside a munge token restricted to the receiving
 * daemon's uid, together with the address it dialled, so the token is
 * useless to anyone else and on any other daemon. I/O connections from
 * stepds to `arbor run` derive their key instead from the step's I/O key
 * (in the sealed credential), the step and a random nonce.
 *
 * Every frame, the opening one included, then carries in its token area
 * a 64-bit sequence number and a 16-byte MAC (keyed BLAKE2b, libsodium's
 * crypto_generichash) over the direction, the sequence number, the
 * frame's header and its body. The receiver expects the next sequence
 * number of that direction, so a replayed, reordered or dropped frame,
 * a changed byte, and a frame made under another connection's key are
 * each refused, with a reason naming which.
 *
 * Why libsodium: one small, well-kept library from Debian with a
 * misuse-resistant API (keyed hashing, random bytes, constant-time
 * comparison) and nothing to configure; OpenSSL's libcrypto would give
 * the same primitives through a larger, more error-prone API.
 */
#ifndef ARBOR_SESSION_H
#define ARBOR_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "proto.h"

#define SESSION_KEY_SIZE 32
#define SESSION_MAC_SIZE 16
#define SESSION_NONCE_SIZE 16
/* The token area of every frame on a session: seq (u64 BE) + MAC. */
#define SESSION_TRAILER (8 + SESSION_MAC_SIZE)
/* Bytes of the munge payload that carries a key: "ARS1", key, dest. */
#define SESSION_PAYLOAD_MAX (4 + SESSION_KEY_SIZE + 128)

struct session {
    unsigned char key[SESSION_KEY_SIZE];
    bool initiator;
    uint64_t send_seq; /* next to send */
    uint64_t recv_seq; /* next expected */
};

/* Initiator of a munge-keyed connection: a fresh random key. -1 if
 * libsodium cannot be initialised. */
int session_init_random (struct session *s);

/* Initialise libsodium now (idempotent; every function here does it when
 * needed). Its CPU feature probing costs a process tens of microseconds
 * (more in a VM, where CPUID traps): a process that forks workers (the
 * stepd spawner) calls this once, first, so that no child pays for it.
 * 0, or -1 with errno EIO. */
int session_lib_init (void);

/* The munge payload for s's key, bound to 'dest' (the "ip:port" the
 * initiator dialled). Returns its length, or 0 if buf is too small. */
size_t session_payload (const struct session *s, const char *dest, char *buf,
                        size_t len);

/* Responder: take the key from a decoded munge payload. 'local' is the
 * "ip:port" the connection arrived on; a payload naming another
 * destination (a token captured on its way elsewhere) is refused.
 * -1 with errno EPERM and err. */
int session_from_payload (struct session *s, const void *payload, size_t len,
                          const char *local, arbor_error_t *err);

/* Either end of an I/O connection: the key derived from the step's I/O
 * key, the step and the initiator's nonce. -1 with errno EINVAL if the
 * I/O key is unusable (shorter than 16 bytes). */
int session_from_step_key (struct session *s, bool initiator,
                           const char *io_key, uint32_t job_id,
                           uint32_t step_id,
                           const unsigned char nonce[SESSION_NONCE_SIZE]);

/* Bytes only the session's peer may read (frames are MAC'd, not hidden):
 * crypto_secretbox under a key derived from the session key, a random
 * nonce in front. 'out' holds len + SESSION_SEAL_OVERHEAD bytes. 0, or -1
 * with errno EIO (libsodium unusable). */
#define SESSION_SEAL_OVERHEAD (24 + 16)
int session_seal_secret (const struct session *s, const void *in, size_t len,
                         unsigned char *out);
/* Open what the peer sealed: 'out' gets len - SESSION_SEAL_OVERHEAD
 * bytes. 0, or -1 with errno EPERM and err ("sealed secret does not open:
 * altered, or sealed in another session"). */
int session_open_secret (const struct session *s, const unsigned char *in,
                         size_t len, void *out, arbor_error_t *err);

/* The same for a launcher's connection to its step's node zero (keyed
 * by the launch ticket, conn.h): another context, so that a frame of one
 * kind of connection is never taken on the other. */
int session_from_launch_key (struct session *s, bool initiator,
                             const char *io_key, uint32_t job_id,
                             uint32_t step_id,
                             const unsigned char nonce[SESSION_NONCE_SIZE]);

/* Fill 'nonce' with random bytes. 0, or -1 if libsodium is unusable. */
int session_nonce (unsigned char nonce[SESSION_NONCE_SIZE]);

/* Seal the next outgoing frame: 'hdr' is its packed header (token_len
 * SESSION_TRAILER); writes seq and MAC into 'trailer'. */
void session_seal (struct session *s,
                   const unsigned char hdr[PROTO_HEADER_SIZE], const char *body,
                   size_t body_len, unsigned char trailer[SESSION_TRAILER]);

/* Check the next incoming frame. 0, or -1 with errno EPERM and err:
 * "replayed frame (sequence 3, expected 5)", "frame out of order
 * (sequence 7, expected 5)", "frame MAC does not verify (altered, or
 * made under another connection's key)". */
int session_open (struct session *s, const unsigned char hdr[PROTO_HEADER_SIZE],
                  const unsigned char trailer[SESSION_TRAILER],
                  const char *body, size_t body_len, arbor_error_t *err);

/* Pack a frame's header and, when s is not NULL (a unix socket has no
 * session), seal the frame into 'trailer'. */
void session_frame_head (struct session *s, int type, uint32_t tag, int flags,
                         const char *body, size_t body_len,
                         unsigned char hdr[PROTO_HEADER_SIZE],
                         unsigned char trailer[SESSION_TRAILER]);

/* Wipe the key (when the connection is freed). */
void session_clear (struct session *s);

#endif
