/* session.c - connection keys and frame MACs on libsodium.
 *
 * MAC = BLAKE2b-128 keyed with the session key over
 *     "ARBM" | direction (0 initiator->responder, 1 back) | seq (u64 BE)
 *     | the 24-byte frame header | the body.
 * The direction keeps a frame from being reflected back to its sender;
 * the header binds type, flags, matchtag and length; the sequence number
 * binds the frame's place in the stream.
 */
#include <errno.h>
#include <string.h>
#include <sodium.h>

#include "session.h"

_Static_assert(crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES
                   == SESSION_SEAL_OVERHEAD,
               "SESSION_SEAL_OVERHEAD");

#define PAYLOAD_MAGIC "ARS1"
#define STEP_KEY_CONTEXT "arbor-io-v1"
#define LAUNCH_KEY_CONTEXT "arbor-launch-v1"
#define SECRET_CONTEXT "arbor-secret-v1"

static int sodium_ready (void)
{
    /* Idempotent and thread-safe; 1 means already initialised. */
    return sodium_init () < 0 ? -1 : 0;
}

int session_lib_init (void)
{
    if (sodium_ready () < 0) {
        errno = EIO;
        return -1;
    }
    return 0;
}

int session_init_random (struct session *s)
{
    if (sodium_ready () < 0) {
        errno = EIO;
        return -1;
    }
    memset (s, 0, sizeof (*s));
    randombytes_buf (s->key, sizeof (s->key));
    s->initiator = true;
    return 0;
}

size_t session_payload (const struct session *s, const char *dest, char *buf,
                        size_t len)
{
    size_t dlen = strlen (dest);
    size_t need = 4 + SESSION_KEY_SIZE + dlen;

    if (need > len || need > SESSION_PAYLOAD_MAX)
        return 0;
    memcpy (buf, PAYLOAD_MAGIC, 4);
    memcpy (buf + 4, s->key, SESSION_KEY_SIZE);
    memcpy (buf + 4 + SESSION_KEY_SIZE, dest, dlen);
    return need;
}

int session_from_payload (struct session *s, const void *payload, size_t len,
                          const char *local, arbor_error_t *err)
{
    const char *p = payload;
    size_t dlen;

    errno = EPERM;
    if (!p || len < 4 + SESSION_KEY_SIZE || len > SESSION_PAYLOAD_MAX
        || memcmp (p, PAYLOAD_MAGIC, 4) != 0)
        return errprintf (err, "munge token does not carry a session key");
    dlen = len - 4 - SESSION_KEY_SIZE;
    if (dlen != strlen (local)
        || memcmp (p + 4 + SESSION_KEY_SIZE, local, dlen) != 0)
        return errprintf (err, "munge token was made for %.*s, not %s",
                          (int)(dlen > 64 ? 64 : dlen),
                          p + 4 + SESSION_KEY_SIZE, local);
    memset (s, 0, sizeof (*s));
    memcpy (s->key, p + 4, SESSION_KEY_SIZE);
    return 0;
}

static void put64 (unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (unsigned char)v;
        v >>= 8;
    }
}

static uint64_t get64 (const unsigned char *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

/* A session key from a step's I/O key: BLAKE2b keyed by it, over the
 * purpose's context, the step and the initiator's nonce. */
static int key_from_step (struct session *s, bool initiator,
                          const char *context, const char *io_key,
                          uint32_t job_id, uint32_t step_id,
                          const unsigned char nonce[SESSION_NONCE_SIZE])
{
    size_t klen = io_key ? strlen (io_key) : 0;
    crypto_generichash_state st;
    unsigned char ids[8];

    if (sodium_ready () < 0 || klen < crypto_generichash_KEYBYTES_MIN) {
        errno = EINVAL;
        return -1;
    }
    if (klen > crypto_generichash_KEYBYTES_MAX)
        klen = crypto_generichash_KEYBYTES_MAX;
    memset (s, 0, sizeof (*s));
    s->initiator = initiator;
    put64 (ids, ((uint64_t)job_id << 32) | step_id);
    crypto_generichash_init (&st, (const unsigned char *)io_key, klen,
                             SESSION_KEY_SIZE);
    crypto_generichash_update (&st, (const unsigned char *)context,
                               strlen (context));
    crypto_generichash_update (&st, ids, sizeof (ids));
    crypto_generichash_update (&st, nonce, SESSION_NONCE_SIZE);
    crypto_generichash_final (&st, s->key, SESSION_KEY_SIZE);
    sodium_memzero (&st, sizeof (st));
    return 0;
}

int session_from_step_key (struct session *s, bool initiator,
                           const char *io_key, uint32_t job_id,
                           uint32_t step_id,
                           const unsigned char nonce[SESSION_NONCE_SIZE])
{
    return key_from_step (s, initiator, STEP_KEY_CONTEXT, io_key, job_id,
                          step_id, nonce);
}

int session_from_launch_key (struct session *s, bool initiator,
                             const char *io_key, uint32_t job_id,
                             uint32_t step_id,
                             const unsigned char nonce[SESSION_NONCE_SIZE])
{
    return key_from_step (s, initiator, LAUNCH_KEY_CONTEXT, io_key, job_id,
                          step_id, nonce);
}

/* The secretbox key of a session: its key, hashed with a context of its
 * own (the MAC uses the session key itself). */
static void secret_key (const struct session *s,
                        unsigned char key[crypto_secretbox_KEYBYTES])
{
    crypto_generichash (key, crypto_secretbox_KEYBYTES,
                        (const unsigned char *)SECRET_CONTEXT,
                        sizeof (SECRET_CONTEXT) - 1, s->key, sizeof (s->key));
}

int session_seal_secret (const struct session *s, const void *in, size_t len,
                         unsigned char *out)
{
    unsigned char key[crypto_secretbox_KEYBYTES];

    if (sodium_ready () < 0) {
        errno = EIO;
        return -1;
    }
    secret_key (s, key);
    randombytes_buf (out, crypto_secretbox_NONCEBYTES);
    crypto_secretbox_easy (out + crypto_secretbox_NONCEBYTES, in, len, out,
                           key);
    sodium_memzero (key, sizeof (key));
    return 0;
}

int session_open_secret (const struct session *s, const unsigned char *in,
                         size_t len, void *out, arbor_error_t *err)
{
    unsigned char key[crypto_secretbox_KEYBYTES];
    int rc;

    if (sodium_ready () < 0 || len < SESSION_SEAL_OVERHEAD) {
        errno = EPERM;
        return errprintf (err, "sealed secret too short (%zu bytes)", len);
    }
    secret_key (s, key);
    rc =
        crypto_secretbox_open_easy (out, in + crypto_secretbox_NONCEBYTES,
                                    len - crypto_secretbox_NONCEBYTES, in, key);
    sodium_memzero (key, sizeof (key));
    if (rc != 0) {
        errno = EPERM;
        return errprintf (err, "sealed secret does not open: altered, or "
                               "sealed in another session");
    }
    return 0;
}

int session_nonce (unsigned char nonce[SESSION_NONCE_SIZE])
{
    if (sodium_ready () < 0) {
        errno = EIO;
        return -1;
    }
    randombytes_buf (nonce, SESSION_NONCE_SIZE);
    return 0;
}

static void session_mac (const struct session *s, int dir, uint64_t seq,
                         const unsigned char hdr[PROTO_HEADER_SIZE],
                         const char *body, size_t body_len,
                         unsigned char mac[SESSION_MAC_SIZE])
{
    crypto_generichash_state st;
    unsigned char pre[4 + 1 + 8];

    memcpy (pre, "ARBM", 4);
    pre[4] = (unsigned char)dir;
    put64 (pre + 5, seq);
    crypto_generichash_init (&st, s->key, SESSION_KEY_SIZE, SESSION_MAC_SIZE);
    crypto_generichash_update (&st, pre, sizeof (pre));
    crypto_generichash_update (&st, hdr, PROTO_HEADER_SIZE);
    if (body_len)
        crypto_generichash_update (&st, (const unsigned char *)body, body_len);
    crypto_generichash_final (&st, mac, SESSION_MAC_SIZE);
}

void session_seal (struct session *s,
                   const unsigned char hdr[PROTO_HEADER_SIZE], const char *body,
                   size_t body_len, unsigned char trailer[SESSION_TRAILER])
{
    uint64_t seq = s->send_seq++;

    put64 (trailer, seq);
    session_mac (s, s->initiator ? 0 : 1, seq, hdr, body, body_len,
                 trailer + 8);
}

int session_open (struct session *s, const unsigned char hdr[PROTO_HEADER_SIZE],
                  const unsigned char trailer[SESSION_TRAILER],
                  const char *body, size_t body_len, arbor_error_t *err)
{
    unsigned char mac[SESSION_MAC_SIZE];
    uint64_t seq = get64 (trailer);

    errno = EPERM;
    if (seq < s->recv_seq)
        return errprintf (err, "replayed frame (sequence %llu, expected %llu)",
                          (unsigned long long)seq,
                          (unsigned long long)s->recv_seq);
    if (seq > s->recv_seq)
        return errprintf (
            err, "frame out of order (sequence %llu, expected %llu)",
            (unsigned long long)seq, (unsigned long long)s->recv_seq);
    session_mac (s, s->initiator ? 1 : 0, seq, hdr, body, body_len, mac);
    if (sodium_memcmp (mac, trailer + 8, SESSION_MAC_SIZE) != 0)
        return errprintf (err, "frame MAC does not verify (altered, or made "
                               "under another connection's key)");
    s->recv_seq++;
    errno = 0;
    return 0;
}

void session_clear (struct session *s)
{
    sodium_memzero (s, sizeof (*s));
}

void session_frame_head (struct session *s, int type, uint32_t tag, int flags,
                         const char *body, size_t body_len,
                         unsigned char hdr[PROTO_HEADER_SIZE],
                         unsigned char trailer[SESSION_TRAILER])
{
    struct frame_header h = {
        .major = PROTO_VERSION_MAJOR,
        .minor = PROTO_VERSION_MINOR,
        .type = (uint16_t)type,
        .flags = (uint16_t)flags,
        .matchtag = tag,
        .token_len = s ? SESSION_TRAILER : 0,
        .body_len = (uint32_t)body_len,
    };

    frame_header_pack (&h, hdr);
    if (s)
        session_seal (s, hdr, body, body_len, trailer);
}
