/* cred.c - step credentials sealed with crypto_secretbox (see cred.h).
 *
 * Opening is a chain of small stages, each with one reason to refuse:
 * the text's form, the key id, the box, the claims' decoding, then what
 * the claims allow (expiry, cluster, node).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cred.h"
#include "hostlist.h"

#define CRED_NONCE crypto_secretbox_NONCEBYTES
#define CRED_MAC crypto_secretbox_MACBYTES
#define CRED_B64 sodium_base64_VARIANT_URLSAFE_NO_PADDING
#define PREFIX_LEN (sizeof (CRED_PREFIX) - 1)
#define HEAD_LEN (PREFIX_LEN + CRED_KEY_ID_SIZE) /* prefix, id, ':' */

_Static_assert(CRED_KEY_SIZE == crypto_secretbox_KEYBYTES,
               "CRED_KEY_SIZE is crypto_secretbox's key size");

static int cred_sodium (arbor_error_t *err)
{
    if (sodium_init () < 0) {
        errno = EIO;
        return errprintf (err, "libsodium cannot start");
    }
    return 0;
}

int cred_key_set (struct cred_key *k, const void *raw, size_t len,
                  arbor_error_t *err)
{
    unsigned char h[crypto_generichash_BYTES];

    if (!k || !raw) {
        errno = EINVAL;
        return errprintf (err, "cred_key_set: invalid argument");
    }
    if (len != CRED_KEY_SIZE) {
        errno = EINVAL;
        return errprintf (err, "a credential key is %d bytes, not %zu",
                          CRED_KEY_SIZE, len);
    }
    if (cred_sodium (err) < 0)
        return -1;
    memcpy (k->key, raw, CRED_KEY_SIZE);
    /* the id: the first 8 bytes of the key's BLAKE2b-256 hash, in hex */
    if (crypto_generichash (h, sizeof (h), k->key, CRED_KEY_SIZE, NULL, 0)
        != 0) {
        errno = EIO;
        return errprintf (err, "cannot hash the credential key");
    }
    sodium_bin2hex (k->id, sizeof (k->id), h, (CRED_KEY_ID_SIZE - 1) / 2);
    return 0;
}

int cred_key_new (struct cred_key *k, arbor_error_t *err)
{
    unsigned char raw[CRED_KEY_SIZE];
    int rc;

    if (cred_sodium (err) < 0)
        return -1;
    crypto_secretbox_keygen (raw);
    rc = cred_key_set (k, raw, sizeof (raw), err);
    sodium_memzero (raw, sizeof (raw));
    return rc;
}

char *cred_seal_bytes (const struct cred_key *k, const void *msg, size_t len)
{
    size_t blen = CRED_NONCE + CRED_MAC + len;
    size_t tlen = sodium_base64_encoded_len (blen, CRED_B64);
    unsigned char *bin = malloc (blen);
    char *token = malloc (HEAD_LEN + tlen);

    if (!bin || !token) {
        free (bin);
        free (token);
        return NULL;
    }
    randombytes_buf (bin, CRED_NONCE);
    crypto_secretbox_easy (bin + CRED_NONCE, msg, len, bin, k->key);
    memcpy (token, CRED_PREFIX, PREFIX_LEN);
    memcpy (token + PREFIX_LEN, k->id, CRED_KEY_ID_SIZE - 1);
    token[HEAD_LEN - 1] = ':';
    sodium_bin2base64 (token + HEAD_LEN, tlen, bin, blen, CRED_B64);
    free (bin);
    return token;
}

int cred_seal (const struct cred_key *k, const struct msg_cred_claims *claims,
               char **token, arbor_error_t *err)
{
    char *buf = NULL;
    size_t len = 0;

    if (!k || !claims || !token) {
        errno = EINVAL;
        return errprintf (err, "cred_seal: invalid argument");
    }
    if (claims->expires == 0) {
        errno = EINVAL;
        return errprintf (err, "credential has no expiry");
    }
    if (cred_sodium (err) < 0)
        return -1;
    if (proto_encode (MSG_CRED_CLAIMS, claims, &buf, &len) < 0)
        return errprintf (err, "encode credential claims: %s",
                          strerror (errno));
    *token = cred_seal_bytes (k, buf, len);
    sodium_memzero (buf, len); /* the I/O key is in there */
    free (buf);
    if (!*token) {
        errno = ENOMEM;
        return errprintf (err, "seal credential: out of memory");
    }
    return 0;
}

/* Stage: the text is ours and names key 'k'; *body is its base64 part. */
static int cred_head (const struct cred_key *k, const char *token,
                      const char **body, arbor_error_t *err)
{
    if (!token || !*token) {
        errno = EPERM;
        return errprintf (err, "no credential");
    }
    if (strncmp (token, CRED_PREFIX, PREFIX_LEN) != 0
        || strnlen (token, HEAD_LEN) < HEAD_LEN
        || strspn (token + PREFIX_LEN, "0123456789abcdef")
               != CRED_KEY_ID_SIZE - 1
        || token[HEAD_LEN - 1] != ':') {
        errno = EPERM;
        return errprintf (err, "not an Arbor credential");
    }
    if (memcmp (token + PREFIX_LEN, k->id, CRED_KEY_ID_SIZE - 1) != 0) {
        errno = EPERM;
        return errprintf (err,
                          "credential sealed with key %.16s, this node holds"
                          " key %s (a controller with another key?)",
                          token + PREFIX_LEN, k->id);
    }
    *body = token + HEAD_LEN;
    return 0;
}

/* Stage: the box opens under 'k'. *msg (malloc'd) and *len: the claims. */
static int cred_unbox (const struct cred_key *k, const char *body,
                       unsigned char **msg, size_t *len, arbor_error_t *err)
{
    size_t blen = strlen (body), bin_len = 0;
    unsigned char *bin = malloc (blen + 1);

    if (!bin) {
        errno = ENOMEM;
        return errprintf (err, "open credential: out of memory");
    }
    if (sodium_base642bin (bin, blen + 1, body, blen, NULL, &bin_len, NULL,
                           CRED_B64)
            != 0
        || bin_len <= CRED_NONCE + CRED_MAC) {
        free (bin);
        errno = EPROTO;
        return errprintf (err, "malformed credential");
    }
    *len = bin_len - CRED_NONCE - CRED_MAC;
    if (!(*msg = malloc (*len))
        || crypto_secretbox_open_easy (*msg, bin + CRED_NONCE,
                                       bin_len - CRED_NONCE, bin, k->key)
               != 0) {
        int nomem = !*msg;
        free (*msg);
        *msg = NULL;
        free (bin);
        errno = nomem ? ENOMEM : EPERM;
        return errprintf (err, nomem ? "open credential: out of memory"
                                     : "credential forged or tampered with");
    }
    free (bin);
    return 0;
}

/* Stage: the claims still hold at 'now', for this cluster and node. */
static int cred_check_claims (const struct msg_cred_claims *c,
                              const char *cluster, const char *node, time_t now,
                              arbor_error_t *err)
{
    struct hostlist *hl;
    int found;

    if ((long long)c->expires < (long long)now) {
        errno = EPERM;
        return errprintf (err, "credential expired");
    }
    if (cluster && (!c->cluster || strcmp (c->cluster, cluster) != 0)) {
        errno = EPERM;
        return errprintf (err, "credential is for cluster '%s', not '%s'",
                          c->cluster ? c->cluster : "", cluster);
    }
    if (!node)
        return 0;
    if (!(hl = hostlist_create (c->nodelist, NULL))) {
        errno = EPROTO;
        return errprintf (err, "credential has a malformed node list");
    }
    found = hostlist_find (hl, node);
    hostlist_destroy (hl);
    if (found < 0) {
        errno = EPERM;
        return errprintf (err, "credential is not valid on %s", node);
    }
    return 0;
}

int cred_open (const struct cred_key *k, const char *token, const char *cluster,
               const char *node, time_t now, struct msg_cred_claims *claims,
               arbor_error_t *err)
{
    arbor_error_t derr = { "" };
    const char *body = NULL;
    unsigned char *msg = NULL;
    size_t len = 0;
    int rc, e;

    if (!k || !claims) {
        errno = EINVAL;
        return errprintf (err, "cred_open: invalid argument");
    }
    memset (claims, 0, sizeof (*claims));
    if (cred_sodium (err) < 0 || cred_head (k, token, &body, err) < 0
        || cred_unbox (k, body, &msg, &len, err) < 0)
        return -1;
    rc = proto_decode (MSG_CRED_CLAIMS, (const char *)msg, len, claims, &derr);
    free (msg);
    if (rc < 0) {
        memset (claims, 0, sizeof (*claims));
        errno = EPROTO;
        return errprintf (err, "undecodable credential claims: %s", derr.text);
    }
    if (cred_check_claims (claims, cluster, node, now, err) < 0) {
        e = errno;
        proto_clear (MSG_CRED_CLAIMS, claims);
        errno = e;
        return -1;
    }
    return 0;
}

int cred_io_key (char *buf, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[128];
    size_t n, got = 0;

    if (!buf || len < 1) {
        errno = EINVAL;
        return -1;
    }
    n = (len - 1 + 1) / 2;
    if (n > sizeof (raw)) {
        errno = EINVAL;
        return -1;
    }
    while (got < n) {
        ssize_t r = getrandom (raw + got, n - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)r;
    }
    for (size_t i = 0; i + 1 < len; i++)
        buf[i] = hex[(raw[i / 2] >> ((i % 2) ? 0 : 4)) & 0xf];
    buf[len - 1] = '\0';
    return 0;
}
