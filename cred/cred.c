/* cred.c - step credentials: sign claims with munge, verify them on nodes.
 *
 * A credential is auth_encode() over the msgpack encoding of struct
 * msg_cred_claims, with a munge TTL matching claims.expires so that munged
 * itself stops honouring it when the claims do. Verification is a chain of
 * small stages, each with one reason to refuse: munge validity (replays
 * accepted on purpose, see cred.h), signer uid, claims decoding, expiry,
 * cluster, node. Both halves are split out so that a daemon can make the
 * munge call on its auth_pool (common/authpool.h): cred_claims_pack() gives
 * what cred_sign() encodes, cred_check() does what cred_verify() does after
 * the decode. Nothing here logs: every refusal is errno + err text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "auth.h"
#include "cred.h"
#include "hostlist.h"

int cred_claims_pack (const struct msg_cred_claims *claims, char **buf,
                      size_t *len, int *ttl, arbor_error_t *err)
{
    long long left;

    if (!claims || !buf || !len || !ttl) {
        errno = EINVAL;
        return errprintf (err, "cred_claims_pack: invalid argument");
    }
    if (claims->expires == 0) {
        errno = EINVAL;
        return errprintf (err, "credential has no expiry");
    }
    /* munged stops honouring the token when the claims expire, at least
     * 1 s from now (0 would mean munged's default). */
    left = (long long)claims->expires - (long long)time (NULL);
    *ttl = left < 1 ? 1 : left > 0x7fffffff ? 0x7fffffff : (int)left;
    if (proto_encode (MSG_CRED_CLAIMS, claims, buf, len) < 0)
        return errprintf (err, "encode credential claims: %s",
                          strerror (errno));
    return 0;
}

int cred_sign (struct auth *a, const struct msg_cred_claims *claims,
               char **token, arbor_error_t *err)
{
    char *buf = NULL;
    size_t len = 0;
    int ttl, rc;

    if (!a || !claims || !token) {
        errno = EINVAL;
        return errprintf (err, "cred_sign: invalid argument");
    }
    if (cred_claims_pack (claims, &buf, &len, &ttl, err) < 0)
        return -1;
    rc = auth_encode (a, buf, len, ttl, token, err);
    free (buf);
    return rc;
}

/* Stage: the token was minted by the controller's uid. */
static int cred_check_signer (uid_t uid, uid_t signer, arbor_error_t *err)
{
    if (uid != signer) {
        errno = EPERM;
        return errprintf (err,
                          "credential not signed by the controller (uid %lu)",
                          (unsigned long)signer);
    }
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

/* Stage: the payload is claims. On failure 'claims' holds nothing. */
static int cred_decode_claims (const void *payload, size_t len,
                               struct msg_cred_claims *claims,
                               arbor_error_t *err)
{
    arbor_error_t derr = { "" };

    if (!payload || len == 0
        || proto_decode (MSG_CRED_CLAIMS, payload, len, claims, &derr) < 0) {
        errno = EPROTO;
        return errprintf (err, "undecodable credential claims%s%s",
                          payload && len ? ": " : "",
                          payload && len ? derr.text : "");
    }
    return 0;
}

int cred_check (const void *payload, size_t len, uid_t minter, uid_t signer,
                const char *cluster, const char *node, time_t now,
                struct msg_cred_claims *claims, arbor_error_t *err)
{
    if (!claims) {
        errno = EINVAL;
        return errprintf (err, "cred_check: invalid argument");
    }
    memset (claims, 0, sizeof (*claims));
    if (cred_check_signer (minter, signer, err) < 0
        || cred_decode_claims (payload, len, claims, err) < 0)
        return -1;
    if (cred_check_claims (claims, cluster, node, now, err) < 0) {
        int e = errno;
        proto_clear (MSG_CRED_CLAIMS, claims);
        errno = e;
        return -1;
    }
    return 0;
}

int cred_verify (struct auth *a, const char *token, uid_t signer,
                 const char *cluster, const char *node, time_t now,
                 struct msg_cred_claims *claims, arbor_error_t *err)
{
    void *payload = NULL;
    size_t len = 0;
    uid_t uid;
    gid_t gid;
    int rc, e;

    if (!a || !token || !claims) {
        errno = EINVAL;
        return errprintf (err, "cred_verify: invalid argument");
    }
    memset (claims, 0, sizeof (*claims));
    if (auth_decode (a, token, strlen (token), AUTH_ALLOW_REPLAY, &payload,
                     &len, &uid, &gid, err)
        < 0)
        return -1;
    rc =
        cred_check (payload, len, uid, signer, cluster, node, now, claims, err);
    e = errno;
    free (payload);
    errno = e;
    return rc;
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
