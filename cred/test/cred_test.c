/* cred_test.c - step credentials sealed and opened with crypto_secretbox.
 *
 * Seals claims and opens them back, then checks every refusal cred.h
 * promises: a changed character anywhere in the box, truncation, a box
 * from another key (with its own key id, or with ours spliced in), no
 * credential, not ours, expired, wrong cluster, wrong node, a body that is
 * not base64 and a box that opens but holds no claims. Every refusal must
 * leave the claims zeroed. Needs nothing running: keys are made here.
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <sodium.h>

#include "cred.h"

#define PREFIX_LEN (sizeof (CRED_PREFIX) - 1)
#define HEAD_LEN (PREFIX_LEN + CRED_KEY_ID_SIZE) /* prefix, id, ':' */
#define B64 sodium_base64_VARIANT_URLSAFE_NO_PADDING

static const char b64_chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static uint32_t test_cpus[] = { 4, 2, 8 };
static uint32_t test_tasks[] = { 4, 1, 2 };
static uint32_t test_gids[] = { 100, 27, 1000 };
static char core0[] = "0-3", core1[] = "2,5", core2[] = "0-7";
static char *test_cores[] = { core0, core1, core2 };

/* Two fixed keys, A (the cluster's) and B (another controller's). */
static void keys_init (struct cred_key *a, struct cred_key *b)
{
    unsigned char raw[CRED_KEY_SIZE];
    arbor_error_t err = { "" };

    for (size_t i = 0; i < sizeof (raw); i++)
        raw[i] = (unsigned char)i;
    if (cred_key_set (a, raw, sizeof (raw), &err) < 0)
        fail_msg ("cred_key_set A: %s", err.text);
    for (size_t i = 0; i < sizeof (raw); i++)
        raw[i] = (unsigned char)(0xff - i);
    if (cred_key_set (b, raw, sizeof (raw), &err) < 0)
        fail_msg ("cred_key_set B: %s", err.text);
}

static void claims_init (struct msg_cred_claims *c, time_t expires)
{
    memset (c, 0, sizeof (*c));
    c->job_id = 42;
    c->step_id = 7;
    c->uid = (uint32_t)getuid ();
    c->gid = (uint32_t)getgid ();
    c->user = "alice";
    c->nodelist = "node[1-3]";
    c->cpus = test_cpus;
    c->cpus_count = 3;
    c->mem_mb = 2048;
    c->io_key = "0123abcd";
    c->expires = (uint64_t)expires;
    c->cluster = "demo";
    c->cores = test_cores;
    c->cores_count = 3;
    c->tasks = test_tasks;
    c->tasks_count = 3;
    c->gids = test_gids;
    c->gids_count = 3;
    c->home = "/home/alice";
    c->restarts = 2;
}

static char *seal_or_fail (const struct cred_key *k, time_t expires)
{
    struct msg_cred_claims c;
    arbor_error_t err = { "" };
    char *token = NULL;

    claims_init (&c, expires);
    if (cred_seal (k, &c, &token, &err) < 0)
        fail_msg ("cred_seal: %s", err.text);
    assert_non_null (token);
    return token;
}

/* 'len' bytes of ours sealed under 'k' (the box opens). Caller frees. */
static char *seal_raw (const struct cred_key *k, const void *msg, size_t len)
{
    char *token = cred_seal_bytes (k, msg, len);

    assert_non_null (token);
    return token;
}

static void assert_claims_zero (const struct msg_cred_claims *c)
{
    static const struct msg_cred_claims zero;

    assert_memory_equal (c, &zero, sizeof (zero));
}

/* Open 'token' expecting a refusal: -1, errno 'e' and text containing
 * 'want'; the claims (filled with junk first) zeroed. */
static void expect_refusal_at (const struct cred_key *k, const char *token,
                               const char *cluster, const char *node,
                               time_t now, int e, const char *want)
{
    struct msg_cred_claims c;
    arbor_error_t err = { "" };

    memset (&c, 0xa5, sizeof (c));
    errno = 0;
    assert_int_equal (cred_open (k, token, cluster, node, now, &c, &err), -1);
    if (errno != e)
        fail_msg ("errno %d (%s), want %d; text '%s'", errno, strerror (errno),
                  e, err.text);
    if (!strstr (err.text, want))
        fail_msg ("error '%s' does not contain '%s'", err.text, want);
    assert_claims_zero (&c);
}

static void expect_refusal (const struct cred_key *k, const char *token, int e,
                            const char *want)
{
    expect_refusal_at (k, token, "demo", "node1", time (NULL), e, want);
}

static void open_or_fail (const struct cred_key *k, const char *token,
                          const char *node, time_t now,
                          struct msg_cred_claims *c)
{
    arbor_error_t err = { "" };

    if (cred_open (k, token, "demo", node, now, c, &err) < 0)
        fail_msg ("cred_open: %s", err.text);
}

static void test_round_trip (void **state)
{
    struct cred_key a, b;
    struct msg_cred_claims c;
    time_t now = time (NULL);
    char *token, *again;
    char head[HEAD_LEN + 1];

    (void)state;
    keys_init (&a, &b);
    token = seal_or_fail (&a, now + 60);
    snprintf (head, sizeof (head), "%s%s:", CRED_PREFIX, a.id);
    assert_int_equal (strncmp (token, head, HEAD_LEN), 0);
    open_or_fail (&a, token, "node2", now, &c);
    assert_int_equal (c.job_id, 42);
    assert_int_equal (c.step_id, 7);
    assert_int_equal (c.uid, getuid ());
    assert_int_equal (c.gid, getgid ());
    assert_string_equal (c.user, "alice");
    assert_string_equal (c.nodelist, "node[1-3]");
    assert_int_equal (c.cpus_count, 3);
    assert_memory_equal (c.cpus, test_cpus, sizeof (test_cpus));
    assert_int_equal (c.mem_mb, 2048);
    assert_string_equal (c.io_key, "0123abcd");
    assert_int_equal (c.expires, (uint64_t)now + 60);
    assert_string_equal (c.cluster, "demo");
    assert_int_equal (c.cores_count, 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal (c.cores[i], test_cores[i]);
    assert_int_equal (c.tasks_count, 3);
    assert_memory_equal (c.tasks, test_tasks, sizeof (test_tasks));
    assert_int_equal (c.gids_count, 3);
    assert_memory_equal (c.gids, test_gids, sizeof (test_gids));
    assert_string_equal (c.home, "/home/alice");
    assert_int_equal (c.restarts, 2);
    proto_clear (MSG_CRED_CLAIMS, &c);
    assert_claims_zero (&c);

    /* A credential opens as often as it is presented (every node of the
     * step), and two seals of the same claims differ (a fresh nonce). */
    open_or_fail (&a, token, "node3", now, &c);
    proto_clear (MSG_CRED_CLAIMS, &c);
    again = seal_or_fail (&a, now + 60);
    assert_string_not_equal (token, again);
    open_or_fail (&a, again, "node1", now, &c);
    assert_int_equal (c.job_id, 42);
    proto_clear (MSG_CRED_CLAIMS, &c);
    free (again);
    free (token);
}

/* The box hides the claims: the I/O key is nowhere in its bytes. */
static void test_claims_hidden (void **state)
{
    struct cred_key a, b;
    char *token;
    unsigned char bin[4096];
    size_t bin_len = 0;

    (void)state;
    keys_init (&a, &b);
    token = seal_or_fail (&a, time (NULL) + 60);
    assert_int_equal (sodium_base642bin (bin, sizeof (bin), token + HEAD_LEN,
                                         strlen (token + HEAD_LEN), NULL,
                                         &bin_len, NULL, B64),
                      0);
    assert_true (bin_len
                 > crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES);
    assert_null (memmem (bin, bin_len, "0123abcd", 8));
    assert_null (memmem (bin, bin_len, "alice", 5));
    free (token);
}

static void test_key_set (void **state)
{
    struct cred_key k1, k2, k3, untouched;
    unsigned char raw[CRED_KEY_SIZE + 1];
    arbor_error_t err = { "" };

    (void)state;
    for (size_t i = 0; i < sizeof (raw); i++)
        raw[i] = (unsigned char)(i * 7 + 1);
    assert_int_equal (cred_key_set (&k1, raw, CRED_KEY_SIZE, &err), 0);
    assert_int_equal (cred_key_set (&k2, raw, CRED_KEY_SIZE, &err), 0);
    assert_memory_equal (k1.key, raw, CRED_KEY_SIZE);
    assert_string_equal (k1.id, k2.id);
    assert_int_equal (strlen (k1.id), CRED_KEY_ID_SIZE - 1);
    assert_int_equal (strspn (k1.id, "0123456789abcdef"), CRED_KEY_ID_SIZE - 1);

    raw[CRED_KEY_SIZE - 1] ^= 1; /* another key, by one bit */
    assert_int_equal (cred_key_set (&k3, raw, CRED_KEY_SIZE, &err), 0);
    assert_string_not_equal (k1.id, k3.id);

    /* 31 and 33 bytes, or none, are not a key; k is left alone. */
    memset (&untouched, 0x5a, sizeof (untouched));
    k3 = untouched;
    errno = 0;
    assert_int_equal (cred_key_set (&k3, raw, CRED_KEY_SIZE - 1, &err), -1);
    assert_int_equal (errno, EINVAL);
    if (!strstr (err.text, "32 bytes, not 31"))
        fail_msg ("error '%s' does not say 32 bytes, not 31", err.text);
    assert_memory_equal (&k3, &untouched, sizeof (k3));
    errno = 0;
    assert_int_equal (cred_key_set (&k3, raw, CRED_KEY_SIZE + 1, &err), -1);
    assert_int_equal (errno, EINVAL);
    errno = 0;
    assert_int_equal (cred_key_set (&k3, NULL, CRED_KEY_SIZE, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_memory_equal (&k3, &untouched, sizeof (k3));
}

static void test_key_new (void **state)
{
    struct cred_key k1, k2, k1_again;
    arbor_error_t err = { "" };

    (void)state;
    assert_int_equal (cred_key_new (&k1, &err), 0);
    assert_int_equal (cred_key_new (&k2, &err), 0);
    assert_memory_not_equal (k1.key, k2.key, CRED_KEY_SIZE);
    assert_string_not_equal (k1.id, k2.id);
    /* The id is a function of the key bytes alone. */
    assert_int_equal (cred_key_set (&k1_again, k1.key, CRED_KEY_SIZE, &err), 0);
    assert_string_equal (k1.id, k1_again.id);
}

/* Changing any character of the base64 body (nonce, MAC or ciphertext)
 * breaks the box. Each character's sextet gets its top bit flipped: that
 * bit is always a used one, even in the last character, whose unused low
 * bits libsodium requires to be zero (a change there would be "malformed",
 * not "tampered"). */
static void test_tampered (void **state)
{
    struct cred_key a, b;
    struct msg_cred_claims c;
    char *token, *copy;
    size_t len;

    (void)state;
    keys_init (&a, &b);
    token = seal_or_fail (&a, time (NULL) + 60);
    len = strlen (token);
    assert_true (len > HEAD_LEN);
    copy = strdup (token);
    assert_non_null (copy);
    for (size_t i = HEAD_LEN; i < len; i++) {
        const char *p = strchr (b64_chars, token[i]);
        assert_non_null (p);
        copy[i] = b64_chars[(p - b64_chars) ^ 32];
        expect_refusal (&a, copy, EPERM, "forged or tampered");
        copy[i] = token[i];
    }
    /* ... and the restored copy opens: the refusals were earned. */
    open_or_fail (&a, copy, "node1", time (NULL), &c);
    proto_clear (MSG_CRED_CLAIMS, &c);
    free (copy);
    free (token);
}

/* Every prefix of a token is refused, saying why. */
static void test_truncated (void **state)
{
    struct cred_key a, b;
    char *token, *copy;
    size_t len;
    unsigned malformed = 0, forged = 0;

    (void)state;
    keys_init (&a, &b);
    token = seal_or_fail (&a, time (NULL) + 60);
    len = strlen (token);
    copy = strdup (token);
    assert_non_null (copy);
    for (size_t n = 0; n < len; n++) {
        struct msg_cred_claims c;
        arbor_error_t err = { "" };

        memcpy (copy, token, n);
        copy[n] = '\0';
        memset (&c, 0xa5, sizeof (c));
        errno = 0;
        assert_int_equal (
            cred_open (&a, copy, "demo", "node1", time (NULL), &c, &err), -1);
        assert_claims_zero (&c);
        if (n == 0) {
            assert_int_equal (errno, EPERM);
            assert_non_null (strstr (err.text, "no credential"));
        } else if (n < HEAD_LEN) {
            assert_int_equal (errno, EPERM);
            assert_non_null (strstr (err.text, "not an Arbor credential"));
        } else if (errno == EPROTO
                   && strstr (err.text, "malformed credential")) {
            malformed++;
        } else if (errno == EPERM && strstr (err.text, "forged or tampered")) {
            forged++;
        } else {
            fail_msg ("truncated to %zu: errno %d, '%s'", n, errno, err.text);
        }
    }
    /* Too short for a box, or bad base64: malformed; whole base64 groups
     * of a shorter box: the box does not open. Both must have happened. */
    assert_true (malformed > 0);
    assert_true (forged > 0);
    free (copy);
    free (token);
}

/* Sealed under B with A's id written over B's: gets past the key id, and
 * the box does not open under A. */
static void test_spliced_key_id (void **state)
{
    struct cred_key a, b;
    char *token;

    (void)state;
    keys_init (&a, &b);
    token = seal_or_fail (&b, time (NULL) + 60);
    memcpy (token + PREFIX_LEN, a.id, CRED_KEY_ID_SIZE - 1);
    expect_refusal (&a, token, EPERM, "forged or tampered");
    free (token);
}

/* Sealed under B, as it is: the refusal names both keys. */
static void test_other_key (void **state)
{
    struct cred_key a, b;
    struct msg_cred_claims c;
    char *token;

    (void)state;
    keys_init (&a, &b);
    assert_string_not_equal (a.id, b.id);
    token = seal_or_fail (&b, time (NULL) + 60);
    expect_refusal (&a, token, EPERM, a.id);
    expect_refusal (&a, token, EPERM, b.id);
    open_or_fail (&b, token, "node1", time (NULL), &c); /* B's own opens */
    proto_clear (MSG_CRED_CLAIMS, &c);
    free (token);
}

static void test_no_credential (void **state)
{
    struct cred_key a, b;

    (void)state;
    keys_init (&a, &b);
    expect_refusal (&a, "", EPERM, "no credential");
    expect_refusal (&a, NULL, EPERM, "no credential");
}

static void test_not_ours (void **state)
{
    struct cred_key a, b;
    char *token;
    char *other;

    (void)state;
    keys_init (&a, &b);
    token = seal_or_fail (&a, time (NULL) + 60);
    expect_refusal (&a, "MUNGE:AwQFAAB1Y2Jf", EPERM, "not an Arbor credential");
    expect_refusal (&a, "arbor-cred1", EPERM, "not an Arbor credential");
    /* Another version of the format. */
    other = strdup (token);
    assert_non_null (other);
    other[PREFIX_LEN - 2] = '2';
    expect_refusal (&a, other, EPERM, "not an Arbor credential");
    /* The ':' after the key id missing. */
    memcpy (other, token, strlen (token));
    other[HEAD_LEN - 1] = 'x';
    expect_refusal (&a, other, EPERM, "not an Arbor credential");
    /* A key id that is not hex (it would be echoed in logs). */
    memcpy (other, token, strlen (token));
    other[PREFIX_LEN + 3] = '\n';
    expect_refusal (&a, other, EPERM, "not an Arbor credential");
    free (other);
    free (token);
}

static void test_expired (void **state)
{
    struct cred_key a, b;
    struct msg_cred_claims c;
    time_t now = time (NULL);
    char *token;

    (void)state;
    keys_init (&a, &b);
    token = seal_or_fail (&a, now);
    /* Valid up to and including its expiry second... */
    open_or_fail (&a, token, "node1", now - 100, &c);
    proto_clear (MSG_CRED_CLAIMS, &c);
    open_or_fail (&a, token, "node1", now, &c);
    proto_clear (MSG_CRED_CLAIMS, &c);
    /* ... and not after. */
    expect_refusal_at (&a, token, "demo", "node1", now + 1, EPERM,
                       "credential expired");
    expect_refusal_at (&a, token, "demo", "node1", now + 3600, EPERM,
                       "credential expired");
    free (token);
}

static void test_wrong_cluster (void **state)
{
    struct cred_key a, b;
    char *token;

    (void)state;
    keys_init (&a, &b);
    token = seal_or_fail (&a, time (NULL) + 60);
    expect_refusal_at (&a, token, "other", "node1", time (NULL), EPERM,
                       "credential is for cluster 'demo', not 'other'");
    expect_refusal_at (&a, token, "", "node1", time (NULL), EPERM,
                       "credential is for cluster 'demo'");
    free (token);
}

static void test_wrong_node (void **state)
{
    struct cred_key a, b;
    struct msg_cred_claims c;
    char *token;

    (void)state;
    keys_init (&a, &b);
    token = seal_or_fail (&a, time (NULL) + 60);
    expect_refusal_at (&a, token, "demo", "node7", time (NULL), EPERM,
                       "credential is not valid on node7");
    expect_refusal_at (&a, token, "demo", "node", time (NULL), EPERM,
                       "credential is not valid on node");
    expect_refusal_at (&a, token, "demo", "", time (NULL), EPERM,
                       "credential is not valid on");
    /* node NULL: no node binding checked. */
    open_or_fail (&a, token, NULL, time (NULL), &c);
    assert_string_equal (c.nodelist, "node[1-3]");
    proto_clear (MSG_CRED_CLAIMS, &c);
    free (token);
}

static void test_seal_needs_expiry (void **state)
{
    struct cred_key a, b;
    struct msg_cred_claims c;
    arbor_error_t err = { "" };
    char *token = NULL;

    (void)state;
    keys_init (&a, &b);
    claims_init (&c, 0);
    errno = 0;
    assert_int_equal (cred_seal (&a, &c, &token, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "no expiry"));
    assert_null (token);
}

static void test_malformed_body (void **state)
{
    struct cred_key a, b;
    char buf[256];
    char *token, *nl;
    size_t len;

    (void)state;
    keys_init (&a, &b);
    snprintf (buf, sizeof (buf), "%s%s:%s", CRED_PREFIX, a.id,
              "!!not*base64 at all!!");
    expect_refusal (&a, buf, EPROTO, "malformed credential");
    /* Standard base64 with padding is not base64url without. */
    snprintf (buf, sizeof (buf), "%s%s:%s", CRED_PREFIX, a.id,
              "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA+/"
              "A==");
    expect_refusal (&a, buf, EPROTO, "malformed credential");
    /* Too short to hold a nonce and a MAC. */
    snprintf (buf, sizeof (buf), "%s%s:%s", CRED_PREFIX, a.id, "AAAA");
    expect_refusal (&a, buf, EPROTO, "malformed credential");
    snprintf (buf, sizeof (buf), "%s%s:", CRED_PREFIX, a.id);
    expect_refusal (&a, buf, EPROTO, "malformed credential");
    /* A genuine token with a newline after it (read from a file). */
    token = seal_or_fail (&a, time (NULL) + 60);
    len = strlen (token);
    nl = malloc (len + 2);
    assert_non_null (nl);
    memcpy (nl, token, len);
    memcpy (nl + len, "\n", 2);
    expect_refusal (&a, nl, EPROTO, "malformed credential");
    free (nl);
    free (token);
}

/* A box that opens under our key but holds no claims. */
static void test_undecodable (void **state)
{
    struct cred_key a, b;
    struct msg_cred_claims c;
    char *buf = NULL, *token;
    size_t len = 0;
    char *longer;
    static const unsigned char empty_map[] = { 0x80 };

    (void)state;
    keys_init (&a, &b);
    /* Control: seal_raw of genuine claims opens, so what follows is
     * refused for its contents, not for seal_raw's layout. */
    claims_init (&c, time (NULL) + 60);
    assert_int_equal (proto_encode (MSG_CRED_CLAIMS, &c, &buf, &len), 0);
    token = seal_raw (&a, buf, len);
    open_or_fail (&a, token, "node1", time (NULL), &c);
    assert_string_equal (c.io_key, "0123abcd");
    proto_clear (MSG_CRED_CLAIMS, &c);
    free (token);

    token = seal_raw (&a, "not msgpack claims", 18);
    expect_refusal (&a, token, EPROTO, "undecodable credential claims");
    free (token);
    token = seal_raw (&a, empty_map, sizeof (empty_map));
    expect_refusal (&a, token, EPROTO, "undecodable credential claims");
    free (token);
    token = seal_raw (&a, buf, len - 1); /* cut short */
    expect_refusal (&a, token, EPROTO, "undecodable credential claims");
    free (token);
    longer = malloc (len + 1); /* a byte after the map */
    assert_non_null (longer);
    memcpy (longer, buf, len);
    longer[len] = 0;
    token = seal_raw (&a, longer, len + 1);
    expect_refusal (&a, token, EPROTO, "undecodable credential claims");
    free (token);
    free (longer);
    free (buf);

    /* An empty box is no credential either. */
    token = seal_raw (&a, "", 0);
    expect_refusal (&a, token, EPROTO, "malformed credential");
    free (token);
}

static void test_io_key (void **state)
{
    char k1[33], k2[33];

    (void)state;
    assert_int_equal (cred_io_key (k1, sizeof (k1)), 0);
    assert_int_equal (cred_io_key (k2, sizeof (k2)), 0);
    assert_int_equal (strlen (k1), 32);
    assert_int_equal (strspn (k1, "0123456789abcdef"), 32);
    assert_string_not_equal (k1, k2);
    assert_int_equal (cred_io_key (k1, 8), 0);
    assert_int_equal (strlen (k1), 7);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_round_trip),
        cmocka_unit_test (test_claims_hidden),
        cmocka_unit_test (test_key_set),
        cmocka_unit_test (test_key_new),
        cmocka_unit_test (test_tampered),
        cmocka_unit_test (test_truncated),
        cmocka_unit_test (test_spliced_key_id),
        cmocka_unit_test (test_other_key),
        cmocka_unit_test (test_no_credential),
        cmocka_unit_test (test_not_ours),
        cmocka_unit_test (test_expired),
        cmocka_unit_test (test_wrong_cluster),
        cmocka_unit_test (test_wrong_node),
        cmocka_unit_test (test_seal_needs_expiry),
        cmocka_unit_test (test_malformed_body),
        cmocka_unit_test (test_undecodable),
        cmocka_unit_test (test_io_key),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
