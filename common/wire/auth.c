/* auth.c - munge, in one place: encode and decode payloads.
 *
 * A struct auth holds two munge contexts with the socket path: one to
 * encode (TTL set per call) and one to decode, because munge_decode()
 * copies the decoded credential's settings into its context, and a bad
 * token would otherwise leave e.g. an invalid MAC type for the next
 * encode. Errors are mapped to errno: EIO when munged cannot be
 * reached, ENOMEM, EINVAL for bad arguments, EPERM for every verdict on a
 * credential (invalid, expired, rewound, replayed, unauthorized). The
 * text is "munge: " and munge's own name for the error.
 *
 * A munge context is not thread-safe: a struct auth belongs to one thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <munge.h>

#include "auth.h"
#include "proto.h"

struct auth {
    munge_ctx_t enc;
    munge_ctx_t dec;
};

static int munge_errno (munge_err_t e)
{
    switch (e) {
    case EMUNGE_SOCKET:
    case EMUNGE_TIMEOUT: return EIO;
    case EMUNGE_NO_MEMORY: return ENOMEM;
    case EMUNGE_BAD_ARG:
    case EMUNGE_BAD_LENGTH:
    case EMUNGE_OVERFLOW: return EINVAL;
    default: return EPERM;
    }
}

static int munge_fail (munge_err_t e, arbor_error_t *err)
{
    errno = munge_errno (e);
    return errprintf (err, "munge: %s", munge_strerror (e));
}

struct auth *auth_create (const char *socket, arbor_error_t *err)
{
    struct auth *a = calloc (1, sizeof (*a));
    munge_err_t e;

    if (!a) {
        errprintf (err, "munge: out of memory");
        return NULL;
    }
    if (!(a->enc = munge_ctx_create ()) || !(a->dec = munge_ctx_create ())) {
        auth_destroy (a);
        errno = ENOMEM;
        errprintf (err, "munge: cannot create a context");
        return NULL;
    }
    if (socket
        && ((e = munge_ctx_set (a->enc, MUNGE_OPT_SOCKET, socket))
                != EMUNGE_SUCCESS
            || (e = munge_ctx_set (a->dec, MUNGE_OPT_SOCKET, socket))
                   != EMUNGE_SUCCESS)) {
        munge_fail (e, err);
        auth_destroy (a);
        return NULL;
    }
    return a;
}

void auth_destroy (struct auth *a)
{
    int saved = errno;

    if (a) {
        if (a->enc)
            munge_ctx_destroy (a->enc);
        if (a->dec)
            munge_ctx_destroy (a->dec);
        free (a);
    }
    errno = saved;
}

int auth_encode (struct auth *a, const void *payload, size_t len, int ttl,
                 char **token, arbor_error_t *err)
{
    return auth_encode_for (a, payload, len, ttl, (uid_t)-1, token, err);
}

int auth_encode_for (struct auth *a, const void *payload, size_t len, int ttl,
                     uid_t restrict_uid, char **token, arbor_error_t *err)
{
    munge_err_t e;

    if (!a || !token || len > INT32_MAX || (len && !payload)) {
        errno = EINVAL;
        return errprintf (err, "munge: invalid arguments");
    }
    /* 0 restores munged's default, so a ttl never leaks between calls. */
    e = munge_ctx_set (a->enc, MUNGE_OPT_TTL, ttl > 0 ? ttl : 0);
    if (e == EMUNGE_SUCCESS)
        e = munge_ctx_set (a->enc, MUNGE_OPT_UID_RESTRICTION,
                           restrict_uid == (uid_t)-1 ? (int)MUNGE_UID_ANY
                                                     : (int)restrict_uid);
    if (e != EMUNGE_SUCCESS)
        return munge_fail (e, err);
    *token = NULL;
    e = munge_encode (token, a->enc, payload, (int)len);
    if (e != EMUNGE_SUCCESS) {
        free (*token);
        *token = NULL;
        return munge_fail (e, err);
    }
    return 0;
}

/* munge_decode wants a NUL-terminated string; frames carry a length. */
static char *token_string (const char *token, size_t len, char *stackbuf,
                           size_t stacklen)
{
    char *s = len < stacklen ? stackbuf : malloc (len + 1);
    if (s) {
        memcpy (s, token, len);
        s[len] = '\0';
    }
    return s;
}

int auth_decode (struct auth *a, const char *token, size_t token_len,
                 void **payload, size_t *len, uid_t *uid, gid_t *gid,
                 arbor_error_t *err)
{
    char stackbuf[PROTO_MAX_TOKEN + 1];
    void *buf = NULL;
    int blen = 0;
    uid_t u;
    gid_t g;

    if (!a || !token || !payload || !len) {
        errno = EINVAL;
        return errprintf (err, "munge: invalid arguments");
    }
    if (token_len == 0 || memchr (token, '\0', token_len)) {
        errno = EPERM;
        return errprintf (err, "munge: %s", munge_strerror (EMUNGE_BAD_CRED));
    }
    char *s = token_string (token, token_len, stackbuf, sizeof (stackbuf));
    if (!s)
        return errprintf (err, "munge: out of memory");
    munge_err_t e = munge_decode (s, a->dec, &buf, &blen, &u, &g);
    if (s != stackbuf)
        free (s);
    if (e != EMUNGE_SUCCESS) {
        free (buf); /* munge returns the payload for some errors too */
        return munge_fail (e, err);
    }
    if (blen == 0) {
        free (buf);
        buf = NULL;
    }
    *payload = buf;
    *len = (size_t)blen;
    if (uid)
        *uid = u;
    if (gid)
        *gid = g;
    return 0;
}

uid_t auth_last_restriction (struct auth *a)
{
    uid_t u = (uid_t)-1;

    if (munge_ctx_get (a->dec, MUNGE_OPT_UID_RESTRICTION, &u) != EMUNGE_SUCCESS
        || u == (uid_t)MUNGE_UID_ANY)
        return (uid_t)-1;
    return u;
}
