/* cred_test.c - step credentials against a private munged.
 *
 * Signs claims and verifies them back, then checks every refusal cred.h
 * promises: tampered, truncated, expired, foreign signer, wrong node, wrong
 * cluster and a token whose payload is not claims at all. Replays are
 * accepted (emulated nodes share one munged). The split halves,
 * cred_claims_pack() and cred_check(), are tested without munged. The
 * munge cases skip, saying why, when munged cannot be started.
 */
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

#include "skip.h"

#include "auth.h"
#include "cred.h"
#include "munged_fixture.h"

/* Two auth handles, as in real life: the controller signs, noded verifies
 * (and a failed munge_decode must not disturb the signer's context). */
struct fixture {
    struct munged_fixture munged;
    struct auth *auth; /* verifier */
    struct auth *signer;
};

static int group_setup (void **state)
{
    struct fixture *f = calloc (1, sizeof (*f));
    arbor_error_t err = { "" };

    if (!f)
        return -1;
    if (munged_fixture_start (&f->munged) < 0) {
        fprintf (stderr,
                 "cred_test: skipping: cannot start a private munged\n");
        free (f);
        *state = NULL;
        return 0;
    }
    if (!(f->auth = auth_create (f->munged.socket, &err))
        || !(f->signer = auth_create (f->munged.socket, &err))) {
        auth_destroy (f->auth);
        fprintf (stderr, "cred_test: auth_create: %s\n", err.text);
        munged_fixture_stop (&f->munged);
        free (f);
        return -1;
    }
    *state = f;
    return 0;
}

static int group_teardown (void **state)
{
    struct fixture *f = *state;

    if (f) {
        auth_destroy (f->auth);
        auth_destroy (f->signer);
        munged_fixture_stop (&f->munged);
        free (f);
    }
    return 0;
}

static struct auth *need_auth (void **state)
{
    struct fixture *f = *state;

    if (!f)
        ARBOR_SKIP ("munged could not be started");
    return f->auth;
}

static struct auth *need_signer (void **state)
{
    struct fixture *f = *state;

    if (!f)
        ARBOR_SKIP ("munged could not be started");
    return f->signer;
}

static uint32_t test_cpus[] = { 4, 2, 8 };

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
}

static char *sign_or_fail (void **state, time_t expires)
{
    struct auth *a = need_signer (state);
    struct msg_cred_claims c;
    arbor_error_t err = { "" };
    char *token = NULL;

    claims_init (&c, expires);
    if (cred_sign (a, &c, &token, &err) < 0)
        fail_msg ("cred_sign: %s", err.text);
    return token;
}

/* Expect cred_verify to refuse with errno 'e' and text containing 'want'. */
static void expect_refusal (struct auth *a, const char *token, uid_t signer,
                            const char *cluster, const char *node, int e,
                            const char *want)
{
    struct msg_cred_claims c;
    arbor_error_t err = { "" };

    errno = 0;
    assert_int_equal (
        cred_verify (a, token, signer, cluster, node, time (NULL), &c, &err),
        -1);
    assert_int_equal (errno, e);
    if (want && !strstr (err.text, want))
        fail_msg ("error '%s' does not contain '%s'", err.text, want);
}

static void test_round_trip (void **state)
{
    struct auth *a = need_auth (state);
    char *token = sign_or_fail (state, time (NULL) + 60);
    struct msg_cred_claims c;
    arbor_error_t err = { "" };

    assert_int_equal (cred_verify (a, token, getuid (), "demo", "node2",
                                   time (NULL), &c, &err),
                      0);
    assert_int_equal (c.job_id, 42);
    assert_int_equal (c.step_id, 7);
    assert_int_equal (c.uid, getuid ());
    assert_int_equal (c.gid, getgid ());
    assert_string_equal (c.user, "alice");
    assert_string_equal (c.nodelist, "node[1-3]");
    assert_int_equal (c.cpus_count, 3);
    assert_int_equal (c.cpus[0], 4);
    assert_int_equal (c.cpus[1], 2);
    assert_int_equal (c.cpus[2], 8);
    assert_int_equal (c.mem_mb, 2048);
    assert_string_equal (c.io_key, "0123abcd");
    assert_true (c.expires > (uint64_t)time (NULL));
    assert_string_equal (c.cluster, "demo");
    proto_clear (MSG_CRED_CLAIMS, &c);

    /* node NULL: no node binding checked. */
    assert_int_equal (
        cred_verify (a, token, getuid (), "demo", NULL, time (NULL), &c, &err),
        0);
    proto_clear (MSG_CRED_CLAIMS, &c);
    free (token);
}

static void test_replay_accepted (void **state)
{
    struct auth *a = need_auth (state);
    char *token = sign_or_fail (state, time (NULL) + 60);
    struct msg_cred_claims c;
    arbor_error_t err = { "" };

    for (int i = 0; i < 3; i++) {
        if (cred_verify (a, token, getuid (), "demo", "node1", time (NULL), &c,
                         &err)
            < 0)
            fail_msg ("decode %d: %s", i + 1, err.text);
        assert_int_equal (c.job_id, 42);
        proto_clear (MSG_CRED_CLAIMS, &c);
    }
    free (token);
}

static void test_tampered (void **state)
{
    struct auth *a = need_auth (state);
    char *token = sign_or_fail (state, time (NULL) + 60);
    size_t mid = strlen (token) / 2;

    token[mid] = token[mid] == 'A' ? 'B' : 'A';
    expect_refusal (a, token, getuid (), "demo", "node1", EPERM, NULL);
    free (token);
}

static void test_truncated (void **state)
{
    struct auth *a = need_auth (state);
    char *token = sign_or_fail (state, time (NULL) + 60);

    token[strlen (token) / 2] = '\0';
    expect_refusal (a, token, getuid (), "demo", "node1", EPERM, NULL);
    expect_refusal (a, "", getuid (), "demo", "node1", EPERM, NULL);
    free (token);
}

static void test_expired (void **state)
{
    struct auth *a = need_auth (state);
    char *token = sign_or_fail (state, time (NULL) - 10);
    struct msg_cred_claims c;
    arbor_error_t err = { "" };

    /* The same token was valid before its expiry (munge TTL is >= 1 s). */
    if (cred_verify (a, token, getuid (), "demo", "node1", time (NULL) - 20, &c,
                     &err)
        < 0)
        fail_msg ("verify before expiry: %s", err.text);
    proto_clear (MSG_CRED_CLAIMS, &c);
    expect_refusal (a, token, getuid (), "demo", "node1", EPERM,
                    "credential expired");
    free (token);
}

static void test_wrong_signer (void **state)
{
    struct auth *a = need_auth (state);
    char *token = sign_or_fail (state, time (NULL) + 60);
    char want[80];

    snprintf (want, sizeof (want),
              "credential not signed by the controller (uid %lu)",
              (unsigned long)getuid () + 1);
    expect_refusal (a, token, getuid () + 1, "demo", "node1", EPERM, want);
    free (token);
}

static void test_wrong_node (void **state)
{
    struct auth *a = need_auth (state);
    char *token = sign_or_fail (state, time (NULL) + 60);

    expect_refusal (a, token, getuid (), "demo", "node7", EPERM,
                    "credential is not valid on node7");
    expect_refusal (a, token, getuid (), "demo", "node", EPERM,
                    "credential is not valid on node");
    free (token);
}

static void test_wrong_cluster (void **state)
{
    struct auth *a = need_auth (state);
    char *token = sign_or_fail (state, time (NULL) + 60);

    expect_refusal (a, token, getuid (), "other", "node1", EPERM, "cluster");
    free (token);
}

static void test_garbage_payload (void **state)
{
    struct auth *a = need_auth (state);
    arbor_error_t err = { "" };
    char *token = NULL;

    if (auth_encode (need_signer (state), "not msgpack claims", 18, 0, &token,
                     &err)
        < 0)
        fail_msg ("auth_encode: %s", err.text);
    expect_refusal (a, token, getuid (), "demo", "node1", EPROTO, NULL);
    free (token);

    /* Empty payload is not claims either. */
    if (auth_encode (need_signer (state), NULL, 0, 0, &token, &err) < 0)
        fail_msg ("auth_encode: %s", err.text);
    expect_refusal (a, token, getuid (), "demo", "node1", EPROTO, NULL);
    free (token);
}

/* cred_claims_pack + cred_check need no munged: the payload is checked as
 * if a pool had decoded it and reported 'minter'. */
static char *pack_or_fail (time_t expires, size_t *len, int *ttl)
{
    struct msg_cred_claims c;
    arbor_error_t err = { "" };
    char *buf = NULL;

    claims_init (&c, expires);
    if (cred_claims_pack (&c, &buf, len, ttl, &err) < 0)
        fail_msg ("cred_claims_pack: %s", err.text);
    return buf;
}

static void expect_check_refusal (const char *buf, size_t len, uid_t minter,
                                  const char *node, time_t now, int e,
                                  const char *want)
{
    struct msg_cred_claims c;
    arbor_error_t err = { "" };

    errno = 0;
    assert_int_equal (
        cred_check (buf, len, minter, getuid (), "demo", node, now, &c, &err),
        -1);
    assert_int_equal (errno, e);
    if (want && !strstr (err.text, want))
        fail_msg ("error '%s' does not contain '%s'", err.text, want);
}

static void test_pack (void **state)
{
    struct msg_cred_claims c;
    arbor_error_t err = { "" };
    size_t len;
    int ttl;
    char *buf = pack_or_fail (time (NULL) + 60, &len, &ttl);

    (void)state;
    assert_true (len > 0);
    assert_true (ttl >= 59 && ttl <= 60);
    free (buf);
    /* Already expired claims still get a TTL munged honours (>= 1 s). */
    buf = pack_or_fail (time (NULL) - 10, &len, &ttl);
    assert_int_equal (ttl, 1);
    free (buf);
    claims_init (&c, 0);
    buf = NULL;
    errno = 0;
    assert_int_equal (cred_claims_pack (&c, &buf, &len, &ttl, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_null (buf);
}

static void test_check (void **state)
{
    struct msg_cred_claims c;
    arbor_error_t err = { "" };
    size_t len;
    int ttl;
    time_t now = time (NULL);
    char *buf = pack_or_fail (now + 60, &len, &ttl);
    char want[80];

    (void)state;
    assert_int_equal (cred_check (buf, len, getuid (), getuid (), "demo",
                                  "node3", now, &c, &err),
                      0);
    assert_int_equal (c.job_id, 42);
    assert_int_equal (c.step_id, 7);
    assert_string_equal (c.nodelist, "node[1-3]");
    assert_string_equal (c.io_key, "0123abcd");
    proto_clear (MSG_CRED_CLAIMS, &c);

    snprintf (want, sizeof (want),
              "credential not signed by the controller (uid %lu)",
              (unsigned long)getuid ());
    expect_check_refusal (buf, len, getuid () + 1, "node1", now, EPERM, want);
    expect_check_refusal (buf, len, getuid (), "node1", now + 61, EPERM,
                          "credential expired");
    expect_check_refusal (buf, len, getuid (), "node4", now, EPERM,
                          "credential is not valid on node4");
    expect_check_refusal (buf, len - 1, getuid (), "node1", now, EPROTO,
                          "undecodable");
    expect_check_refusal (NULL, 0, getuid (), "node1", now, EPROTO,
                          "undecodable");
    free (buf);
}

/* The split halves around a munge call made elsewhere (as an auth_pool
 * would) agree with cred_sign/cred_verify. */
static void test_halves_with_munge (void **state)
{
    struct auth *a = need_auth (state);
    struct msg_cred_claims c;
    arbor_error_t err = { "" };
    void *payload = NULL;
    char *token = NULL, *buf;
    size_t len, plen = 0;
    uid_t uid;
    int ttl;

    buf = pack_or_fail (time (NULL) + 60, &len, &ttl);
    if (auth_encode (need_signer (state), buf, len, ttl, &token, &err) < 0)
        fail_msg ("auth_encode: %s", err.text);
    free (buf);
    if (cred_verify (a, token, getuid (), "demo", "node1", time (NULL), &c,
                     &err)
        < 0)
        fail_msg ("cred_verify: %s", err.text);
    proto_clear (MSG_CRED_CLAIMS, &c);
    if (auth_decode (a, token, strlen (token), AUTH_ALLOW_REPLAY, &payload,
                     &plen, &uid, NULL, &err)
        < 0)
        fail_msg ("auth_decode: %s", err.text);
    assert_int_equal (cred_check (payload, plen, uid, getuid (), "demo",
                                  "node2", time (NULL), &c, &err),
                      0);
    assert_int_equal (c.job_id, 42);
    proto_clear (MSG_CRED_CLAIMS, &c);
    free (payload);
    free (token);
}

static void test_io_key (void **state)
{
    char k1[33], k2[33];

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
        cmocka_unit_test (test_replay_accepted),
        cmocka_unit_test (test_tampered),
        cmocka_unit_test (test_truncated),
        cmocka_unit_test (test_expired),
        cmocka_unit_test (test_wrong_signer),
        cmocka_unit_test (test_wrong_node),
        cmocka_unit_test (test_wrong_cluster),
        cmocka_unit_test (test_garbage_payload),
        cmocka_unit_test (test_pack),
        cmocka_unit_test (test_check),
        cmocka_unit_test (test_halves_with_munge),
        cmocka_unit_test (test_io_key),
    };
    int failed = cmocka_run_group_tests (tests, group_setup, group_teardown);

    return arbor_test_exit (failed);
}
