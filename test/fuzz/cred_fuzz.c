/* cred_fuzz.c - libFuzzer target: opening step credentials.
 *
 * A noded opens whatever credential a LAUNCH carries, so cred_open must
 * never crash on any text, and every refusal must be EPERM or EPROTO with
 * the claims left zeroed. The first input byte picks what the rest is:
 *   mode 0: the whole token;
 *   mode 1: the body after a genuine head (prefix and the fixed key's
 *           id), so that the base64 and the box are reached at once;
 *   mode 2: claims bytes, sealed here under the fixed key as cred_seal
 *           would, so that the claims decoder and the checks behind the
 *           box are reached (what only the controller could send).
 * Its other bits choose whether a cluster and a node are checked and the
 * time. What opens must hold what cred_open promised, and in mode 2 must
 * seal and open again to the same claims.
 *
 *     cmake -DARBOR_FUZZ=ON -DCMAKE_C_COMPILER=clang ...
 *     build-fuzz/test-bin/cred_fuzz -max_total_time=60 corpus/
 */
#include <errno.h>
#include <sodium.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cred.h"
#include "hostlist.h"

#define PREFIX_LEN (sizeof (CRED_PREFIX) - 1)
#define HEAD_LEN (PREFIX_LEN + CRED_KEY_ID_SIZE) /* prefix, id, ':' */

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* The fixed key: bytes 0, 1, ... 31 (seeds can be sealed under it). */
static void fuzz_key (struct cred_key *k)
{
    unsigned char raw[CRED_KEY_SIZE];

    for (size_t i = 0; i < sizeof (raw); i++)
        raw[i] = (unsigned char)i;
    if (cred_key_set (k, raw, sizeof (raw), NULL) < 0)
        abort ();
}

/* The token text for mode 0 and 1, NUL-terminated; NULL if out of
 * memory. */
static char *fuzz_text (const struct cred_key *k, int mode, const uint8_t *p,
                        size_t n)
{
    size_t head = mode == 1 ? HEAD_LEN : 0;
    char *t = malloc (head + n + 1);

    if (!t)
        return NULL;
    if (mode == 1) {
        memcpy (t, CRED_PREFIX, PREFIX_LEN);
        memcpy (t + PREFIX_LEN, k->id, CRED_KEY_ID_SIZE - 1);
        t[HEAD_LEN - 1] = ':';
    }
    memcpy (t + head, p, n);
    t[head + n] = '\0';
    return t;
}

/* What an opened credential must hold. */
static void fuzz_check_open (const struct msg_cred_claims *c,
                             const char *cluster, const char *node, time_t now)
{
    struct hostlist *hl;

    if ((long long)c->expires < (long long)now)
        abort ();
    if (cluster && (!c->cluster || strcmp (c->cluster, cluster) != 0))
        abort ();
    if (node) {
        if (!(hl = hostlist_create (c->nodelist, NULL))
            || hostlist_find (hl, node) < 0)
            abort ();
        hostlist_destroy (hl);
    }
}

/* Mode 2: what opened seals again (cred_seal) and opens to the same
 * encoding. */
static void fuzz_reseal (const struct cred_key *k,
                         const struct msg_cred_claims *c, const char *cluster,
                         const char *node, time_t now)
{
    struct msg_cred_claims again;
    char *token = NULL, *b1 = NULL, *b2 = NULL;
    size_t l1 = 0, l2 = 0;

    if (c->expires == 0) /* cred_seal refuses: only now 0 lets it open */
        return;
    if (cred_seal (k, c, &token, NULL) < 0)
        abort ();
    if (cred_open (k, token, cluster, node, now, &again, NULL) < 0)
        abort ();
    if (proto_encode (MSG_CRED_CLAIMS, c, &b1, &l1) < 0
        || proto_encode (MSG_CRED_CLAIMS, &again, &b2, &l2) < 0 || l1 != l2
        || memcmp (b1, b2, l1) != 0)
        abort ();
    proto_clear (MSG_CRED_CLAIMS, &again);
    free (b1);
    free (b2);
    free (token);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static const struct msg_cred_claims zero;
    struct cred_key key, *k = &key;
    struct msg_cred_claims c;
    int mode;
    const char *cluster, *node;
    time_t now;
    char *token;

    if (size < 1)
        return 0;
    fuzz_key (k);
    mode = data[0] % 3;
    cluster = (data[0] & 0x04) ? NULL : "fuzz";
    node = (data[0] & 0x08) ? NULL : "n1";
    now = (data[0] & 0x10) ? 0 : 1700000000;
    token = mode == 2 ? cred_seal_bytes (k, data + 1, size - 1)
                      : fuzz_text (k, mode, data + 1, size - 1);
    if (!token)
        return 0;
    memset (&c, 0xa5, sizeof (c));
    if (cred_open (k, token, cluster, node, now, &c, NULL) < 0) {
        if (errno != EPERM && errno != EPROTO)
            abort ();
        if (memcmp (&c, &zero, sizeof (c)) != 0)
            abort ();
    } else {
        fuzz_check_open (&c, cluster, node, now);
        if (mode == 2)
            fuzz_reseal (k, &c, cluster, node, now);
        proto_clear (MSG_CRED_CLAIMS, &c);
    }
    free (token);
    return 0;
}
