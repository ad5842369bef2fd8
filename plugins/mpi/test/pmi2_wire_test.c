/* pmi2_wire_test.c - unit tests of mpi/pmi2's wire code (pmi2_wire.c) and
 * key-value space (pmi2_kvs.c): good commands of both protocols parse,
 * truncated ones wait for more bytes, malformed or oversized ones are
 * refused with an errno and a sentence (never a crash), answers format
 * and parse back, the process mapping has MPICH's vector form, and fence
 * rounds merge, or are refused whole when malformed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pmi2_kvs.h"
#include "pmi2_wire.h"

static struct pmi_cmd cmd; /* large: not on the stack */

/* Frame and parse the whole of s as one command of proto. */
static int parse (enum pmi_proto proto, const char *s, size_t len,
                  arbor_error_t *err)
{
    ssize_t n = pmi_wire_frame (proto, s, len);

    if (n != (ssize_t)len)
        fail_msg ("frame of '%.*s': %zd, wanted %zu", (int)len, s, n, len);
    return pmi_wire_parse (proto, s, len, &cmd, err);
}

/* A PMI-2 command: the 6-byte prefix, then body. */
static size_t pmi2_msg (char *buf, size_t size, const char *body)
{
    return (size_t)snprintf (buf, size, "%-6zu%s", strlen (body), body);
}

/* ---- PMI-1 --------------------------------------------------------------- */

static void test_pmi1_good (void **state)
{
    arbor_error_t err = { "" };
    const char *init = "cmd=init pmi_version=1 pmi_subversion=1\n";
    const char *put = "cmd=put kvsname=7.0  key=P0-bc value=a=b:c\n";

    assert_int_equal (parse (PMI_PROTO_NONE, init, strlen (init), &err), 0);
    assert_string_equal (cmd.name, "init");
    assert_false (cmd.mcmd);
    assert_int_equal (cmd.npairs, 2);
    assert_string_equal (pmi_cmd_get (&cmd, "pmi_version"), "1");
    assert_string_equal (pmi_cmd_get (&cmd, "pmi_subversion"), "1");
    assert_null (pmi_cmd_get (&cmd, "cmd"));

    assert_int_equal (parse (PMI_PROTO_1, put, strlen (put), &err), 0);
    assert_string_equal (cmd.name, "put");
    assert_string_equal (pmi_cmd_get (&cmd, "kvsname"), "7.0");
    assert_string_equal (pmi_cmd_get (&cmd, "key"), "P0-bc");
    assert_string_equal (pmi_cmd_get (&cmd, "value"), "a=b:c"); /* first = */

    assert_int_equal (parse (PMI_PROTO_1, "cmd=barrier_in\n", 15, &err), 0);
    assert_string_equal (cmd.name, "barrier_in");
    assert_int_equal (cmd.npairs, 0);
    /* an empty value is a value */
    assert_int_equal (parse (PMI_PROTO_1, "cmd=put key=k value=\n", 21, &err),
                      0);
    assert_string_equal (pmi_cmd_get (&cmd, "value"), "");
}

static void test_pmi1_spawn_is_multiline (void **state)
{
    arbor_error_t err = { "" };
    const char *m = "mcmd=spawn\nnprocs=2\nexecname=/bin/x\nendcmd\n";
    char two[256];

    assert_int_equal (pmi_wire_frame (PMI_PROTO_1, "mcm", 3), 0);
    assert_int_equal (pmi_wire_frame (PMI_PROTO_1, m, 11), 0); /* one line */
    assert_int_equal (parse (PMI_PROTO_1, m, strlen (m), &err), 0);
    assert_true (cmd.mcmd);
    assert_string_equal (cmd.name, "spawn");
    assert_string_equal (pmi_cmd_get (&cmd, "execname"), "/bin/x");
    /* the frame ends at endcmd: what follows is the next command */
    snprintf (two, sizeof (two), "%scmd=get_maxes\n", m);
    assert_int_equal (pmi_wire_frame (PMI_PROTO_1, two, strlen (two)),
                      (ssize_t)strlen (m));
    /* "xendcmd" is not the end */
    assert_int_equal (pmi_wire_frame (PMI_PROTO_1, "mcmd=spawn\nxendcmd\n", 19),
                      0);
}

static void test_pmi1_frames_and_truncation (void **state)
{
    const char *two = "cmd=get_maxes\ncmd=get_appnum\n";
    const char *line = "cmd=get kvsname=1.0 key=PMI_process_mapping\n";

    assert_int_equal (pmi_wire_frame (PMI_PROTO_1, two, strlen (two)), 14);
    assert_int_equal (pmi_wire_frame (PMI_PROTO_1, two + 14, 15), 15);
    for (size_t i = 0; i < strlen (line); i++)
        assert_int_equal (pmi_wire_frame (PMI_PROTO_1, line, i), 0);
}

static void test_pmi1_oversized (void **state)
{
    char *big = malloc (PMI_WIRE_MAX_CMD + 10);

    memset (big, 'a', PMI_WIRE_MAX_CMD + 10);
    memcpy (big, "cmd=put value=", 14);
    errno = 0;
    assert_int_equal (pmi_wire_frame (PMI_PROTO_1, big, PMI_WIRE_MAX_CMD - 1),
                      0);
    assert_int_equal (pmi_wire_frame (PMI_PROTO_1, big, PMI_WIRE_MAX_CMD), -1);
    assert_int_equal (errno, EMSGSIZE);
    /* a newline past the limit does not make it acceptable */
    big[PMI_WIRE_MAX_CMD + 5] = '\n';
    errno = 0;
    assert_int_equal (pmi_wire_frame (PMI_PROTO_1, big, PMI_WIRE_MAX_CMD + 10),
                      -1);
    assert_int_equal (errno, EMSGSIZE);
    /* and a spawn that never ends */
    memcpy (big, "mcmd=spawn\n", 11);
    assert_int_equal (pmi_wire_frame (PMI_PROTO_1, big, PMI_WIRE_MAX_CMD + 10),
                      -1);
    assert_int_equal (errno, EMSGSIZE);
    free (big);
}

static void expect_bad (enum pmi_proto proto, const char *s, size_t len,
                        const char *text)
{
    arbor_error_t err = { "" };

    errno = 0;
    assert_int_equal (pmi_wire_parse (proto, s, len, &cmd, &err), -1);
    assert_int_equal (errno, EPROTO);
    if (!strstr (err.text, text))
        fail_msg ("'%.*s': error '%s', wanted '%s'", (int)len, s, err.text,
                  text);
}

static void test_pmi1_malformed (void **state)
{
    char many[2048];
    size_t n = 0;

    expect_bad (PMI_PROTO_1, "key=x cmd=put\n", 14, "cmd= was expected");
    expect_bad (PMI_PROTO_1, "cmd=put key\n", 12, "not key=value");
    expect_bad (PMI_PROTO_1, "cmd=put =v\n", 11, "empty key");
    expect_bad (PMI_PROTO_1, "cmd= key=v\n", 11, "empty command name");
    expect_bad (PMI_PROTO_1, "\n", 1, "no cmd=");
    expect_bad (PMI_PROTO_1, "cmd=put key=a\0b\n", 16, "NUL byte");
    expect_bad (PMI_PROTO_1, "endcmd\n", 7, "not key=value");
    n = (size_t)snprintf (many, sizeof (many), "cmd=put");
    for (int i = 0; i <= PMI_WIRE_MAX_PAIRS; i++)
        n += (size_t)snprintf (many + n, sizeof (many) - n, " k%d=v", i);
    many[n++] = '\n';
    expect_bad (PMI_PROTO_1, many, n, "more than");
}

/* ---- PMI-2 --------------------------------------------------------------- */

static void test_pmi2_good (void **state)
{
    arbor_error_t err = { "" };
    char m[256];
    size_t n;

    n = pmi2_msg (m, sizeof (m),
                  "cmd=fullinit;pmijobid=7.0;pmirank=3;threaded=FALSE;");
    assert_int_equal (parse (PMI_PROTO_2, m, n, &err), 0);
    assert_string_equal (cmd.name, "fullinit");
    assert_int_equal (cmd.npairs, 3);
    assert_string_equal (pmi_cmd_get (&cmd, "pmirank"), "3");
    assert_string_equal (pmi_cmd_get (&cmd, "threaded"), "FALSE");

    /* ";;" is a ';' inside a value; '=' after the key's is the value's */
    n = pmi2_msg (m, sizeof (m), "cmd=kvs-put;key=a b;value=x;;y=z;;;");
    assert_int_equal (parse (PMI_PROTO_2, m, n, &err), 0);
    assert_string_equal (pmi_cmd_get (&cmd, "key"), "a b");
    assert_string_equal (pmi_cmd_get (&cmd, "value"), "x;y=z;");

    /* no final ';', empty value, header right-justified */
    n = (size_t)snprintf (m, sizeof (m), "%6zu%s",
                          strlen ("cmd=kvs-get;key=k;v="),
                          "cmd=kvs-get;key=k;v=");
    assert_int_equal (parse (PMI_PROTO_2, m, n, &err), 0);
    assert_string_equal (cmd.name, "kvs-get");
    assert_string_equal (pmi_cmd_get (&cmd, "v"), "");

    n = pmi2_msg (m, sizeof (m), "cmd=kvs-fence;");
    assert_int_equal (parse (PMI_PROTO_2, m, n, &err), 0);
    assert_string_equal (cmd.name, "kvs-fence");
    assert_int_equal (cmd.npairs, 0);
}

static void test_pmi2_frames_and_truncation (void **state)
{
    char m[256];
    size_t n = pmi2_msg (m, sizeof (m), "cmd=kvs-get;jobid=1.0;key=k;");
    size_t n2 = n + pmi2_msg (m + n, sizeof (m) - n, "cmd=finalize;");

    for (size_t i = 0; i < n; i++)
        assert_int_equal (pmi_wire_frame (PMI_PROTO_2, m, i), 0);
    assert_int_equal (pmi_wire_frame (PMI_PROTO_2, m, n2), (ssize_t)n);
    assert_int_equal (pmi_wire_frame (PMI_PROTO_2, m + n, n2 - n),
                      (ssize_t)(n2 - n));
}

static void expect_bad_frame (const char *hdr, int want)
{
    char m[64];

    snprintf (m, sizeof (m), "%scmd=x;", hdr);
    errno = 0;
    assert_int_equal (pmi_wire_frame (PMI_PROTO_2, m, strlen (m)), -1);
    if (errno != want)
        fail_msg ("header '%s': errno %d, wanted %d", hdr, errno, want);
}

static void test_pmi2_bad_frames (void **state)
{
    expect_bad_frame ("abcdef", EPROTO);
    expect_bad_frame ("0     ", EPROTO);
    expect_bad_frame ("      ", EPROTO);
    expect_bad_frame ("1 2   ", EPROTO);
    expect_bad_frame ("-5    ", EPROTO);
    expect_bad_frame ("6\n    ", EPROTO);
    expect_bad_frame ("999999", EMSGSIZE);
    expect_bad_frame ("4091  ", EMSGSIZE); /* one past the limit */
}

static void test_pmi2_malformed (void **state)
{
    char m[256];
    size_t n;

    n = pmi2_msg (m, sizeof (m), "key=x;cmd=kvs-get;");
    expect_bad (PMI_PROTO_2, m, n, "cmd= was expected");
    n = pmi2_msg (m, sizeof (m), "cmd=kvs-get;key;");
    expect_bad (PMI_PROTO_2, m, n, "not key=value");
    n = pmi2_msg (m, sizeof (m), "cmd=kvs-get;=v;");
    expect_bad (PMI_PROTO_2, m, n, "empty key");
    n = pmi2_msg (m, sizeof (m), "cmd=kvs-get;key=a;b;");
    expect_bad (PMI_PROTO_2, m, n, "not key=value");
    /* the prefix must say the length parsed */
    n = pmi2_msg (m, sizeof (m), "cmd=kvs-fence;");
    expect_bad (PMI_PROTO_2, m, n - 1, "length prefix");
    expect_bad (PMI_PROTO_2, "12", 2, "length prefix");
    memcpy (m, "10    cmd=a\0b=c;", 16);
    expect_bad (PMI_PROTO_2, m, 16, "NUL byte");
}

/* ---- answers ------------------------------------------------------------- */

static void test_answers_round_trip (void **state)
{
    struct pmi_resp r;
    arbor_error_t err = { "" };

    pmi_resp_init (&r, PMI_PROTO_1, "get_result");
    pmi_resp_addint (&r, "rc", 0);
    pmi_resp_add (&r, "value", "a=b");
    assert_int_equal (pmi_resp_end (&r), 0);
    assert_string_equal (r.buf, "cmd=get_result rc=0 value=a=b\n");

    pmi_resp_init (&r, PMI_PROTO_2, "kvs-get-response");
    pmi_resp_addint (&r, "rc", 0);
    pmi_resp_add (&r, "found", "TRUE");
    pmi_resp_add (&r, "value", "x;y");
    assert_int_equal (pmi_resp_end (&r), 0);
    assert_string_equal (r.buf, "48    cmd=kvs-get-response;rc=0;found=TRUE;"
                                "value=x;;y;");
    assert_int_equal (parse (PMI_PROTO_2, r.buf, r.len, &err), 0);
    assert_string_equal (pmi_cmd_get (&cmd, "value"), "x;y");
}

static void test_answers_refused (void **state)
{
    struct pmi_resp r;
    char *big = malloc (PMI_WIRE_MAX_CMD + 1);

    /* PMI-1 cannot carry a space in a value */
    pmi_resp_init (&r, PMI_PROTO_1, "get_result");
    pmi_resp_add (&r, "value", "a b");
    pmi_resp_addint (&r, "rc", 0); /* the error sticks */
    errno = 0;
    assert_int_equal (pmi_resp_end (&r), -1);
    assert_int_equal (errno, EINVAL);
    /* nor PMI-2 a ';' in a key */
    pmi_resp_init (&r, PMI_PROTO_2, "x");
    pmi_resp_add (&r, "a;b", "v");
    assert_int_equal (pmi_resp_end (&r), -1);
    assert_int_equal (errno, EINVAL);
    /* too long */
    memset (big, 'v', PMI_WIRE_MAX_CMD);
    big[PMI_WIRE_MAX_CMD] = '\0';
    pmi_resp_init (&r, PMI_PROTO_1, "get_result");
    pmi_resp_add (&r, "value", big);
    assert_int_equal (pmi_resp_end (&r), -1);
    assert_int_equal (errno, EMSGSIZE);
    /* text is made to fit the protocol */
    pmi_resp_init (&r, PMI_PROTO_1, "error");
    pmi_resp_addtext (&r, "msg", "no such key\n");
    assert_int_equal (pmi_resp_end (&r), 0);
    assert_string_equal (r.buf, "cmd=error msg=no_such_key_\n");
    pmi_resp_init (&r, PMI_PROTO_2, "error-response");
    pmi_resp_addtext (&r, "errmsg", big);
    assert_int_equal (pmi_resp_end (&r), 0);
    free (big);
}

static void test_mapping (void **state)
{
    uint32_t even[] = { 2, 2, 2, 2 }, uneven[] = { 3, 3, 2, 2, 1 };
    char buf[64];

    assert_int_equal (pmi_wire_mapping (buf, sizeof (buf), even, 4), 0);
    assert_string_equal (buf, "(vector,(0,4,2))");
    assert_int_equal (pmi_wire_mapping (buf, sizeof (buf), uneven, 5), 0);
    assert_string_equal (buf, "(vector,(0,2,3),(2,2,2),(4,1,1))");
    assert_int_equal (pmi_wire_mapping (buf, sizeof (buf), even, 1), 0);
    assert_string_equal (buf, "(vector,(0,1,2))");
    assert_int_equal (pmi_wire_mapping (buf, 16, even, 4), -1); /* no ')' */
    assert_int_equal (errno, EMSGSIZE);
    assert_int_equal (pmi_wire_mapping (buf, 17, even, 4), 0);
    assert_int_equal (pmi_wire_mapping (buf, sizeof (buf), even, 0), -1);
    assert_int_equal (errno, EINVAL);
}

static void check_mapping (const uint32_t *tasks, uint32_t nnodes,
                           const uint32_t *ranks, const char *want)
{
    char buf[128];

    assert_int_equal (
        pmi_wire_mapping_ranks (buf, sizeof (buf), tasks, nnodes, ranks), 0);
    assert_string_equal (buf, want);
}

/* srun -m placements, ranks node by node as the stepd gives them. */
static void test_mapping_ranks (void **state)
{
    const uint32_t two[] = { 2, 2 }, four[] = { 4, 4 }, odd[] = { 2, 1 };
    const uint32_t uneven[] = { 3, 3, 2, 2, 1 };
    const uint32_t block[] = { 0, 1, 2, 3 }, cyclic[] = { 0, 2, 1, 3 };
    const uint32_t plane2[] = { 0, 1, 4, 5, 2, 3, 6, 7 };
    const uint32_t cyc_odd[] = { 0, 2, 1 };
    const uint32_t arb[] = { 1, 2, 0, 3 }; /* node 0: 1,2; node 1: 0,3 */
    const uint32_t seq[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    char buf[17]; /* "(vector,(0,2,1))" and its NUL */

    check_mapping (two, 2, block, "(vector,(0,2,2))");
    check_mapping (two, 2, NULL, "(vector,(0,2,2))");
    check_mapping (uneven, 5, seq, "(vector,(0,2,3),(2,2,2),(4,1,1))");
    check_mapping (two, 2, cyclic, "(vector,(0,2,1))");
    check_mapping (four, 2, plane2, "(vector,(0,2,2))");
    check_mapping (odd, 2, cyc_odd, "(vector,(0,2,1),(0,1,1))");
    check_mapping (two, 2, arb, "(vector,(1,1,1),(0,1,2),(1,1,1))");
    assert_int_equal (
        pmi_wire_mapping_ranks (buf, sizeof (buf), two, 2, cyclic), 0);
    assert_int_equal (pmi_wire_mapping_ranks (buf, 16, two, 2, cyclic), -1);
    assert_int_equal (errno, EMSGSIZE);
}

/* ---- the KVS and fence rounds -------------------------------------------- */

static void test_kvs_limits (void **state)
{
    struct pmi_kvs *k = pmi_kvs_create (100);
    char key[PMI_MAX_KEYLEN + 2], val[PMI_MAX_VALLEN + 2];

    assert_non_null (k);
    assert_int_equal (pmi_kvs_put (k, "a", "1"), 0);
    assert_int_equal (pmi_kvs_put (k, "a", "22"), 0); /* replaced */
    assert_string_equal (pmi_kvs_get (k, "a"), "22");
    assert_null (pmi_kvs_get (k, "b"));
    memset (key, 'k', sizeof (key) - 1);
    key[sizeof (key) - 1] = '\0';
    assert_int_equal (pmi_kvs_put (k, key, "v"), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (pmi_kvs_put (k, "", "v"), -1);
    memset (val, 'v', sizeof (val) - 1);
    val[sizeof (val) - 1] = '\0';
    assert_int_equal (pmi_kvs_put (k, "b", val), -1);
    assert_int_equal (errno, EINVAL);
    val[90] = '\0';
    assert_int_equal (pmi_kvs_put (k, "c", val), 0);
    assert_int_equal (pmi_kvs_put (k, "d", "0123456789"), -1); /* 100 bytes */
    assert_int_equal (errno, ENOSPC);
    assert_null (pmi_kvs_get (k, "d"));
    assert_int_equal (pmi_kvs_count (k), 2);
    pmi_kvs_destroy (k);
}

/* Two nodes' batches, gathered and merged; then a round of each kind
 * of damage is refused whole. */
static void test_kvs_rounds (void **state)
{
    struct pmi_kvs *k = pmi_kvs_create (1 << 20);
    struct pmi_batch a, b;
    const void *pa, *pb;
    size_t la, lb, nodes = 0;
    char round[512], key[16];

    pmi_batch_init (&a, 1000);
    pmi_batch_init (&b, 1000);
    assert_int_equal (pmi_batch_add (&a, "k0", "v0"), 0);
    assert_int_equal (pmi_batch_add (&a, "k1", ""), 0);
    assert_int_equal (pmi_batch_add (&a, "", "x"), -1);
    assert_non_null (pa = pmi_batch_seal (&a, &la));
    assert_non_null (pb = pmi_batch_seal (&b, &lb)); /* nothing put */
    assert_int_equal (lb, 4);
    memcpy (round, pa, la);
    memcpy (round + la, pb, lb);
    assert_int_equal (pmi_kvs_merge (k, round, la + lb, &nodes), 0);
    assert_int_equal (nodes, 2);
    assert_string_equal (pmi_kvs_get (k, "k0"), "v0");
    assert_string_equal (pmi_kvs_get (k, "k1"), "");
    /* every truncation of a round is refused and merges nothing */
    pmi_batch_reset (&a);
    assert_int_equal (pmi_batch_add (&a, "new", "1"), 0);
    pa = pmi_batch_seal (&a, &la);
    for (size_t i = 1; i < la; i++) {
        errno = 0;
        assert_int_equal (pmi_kvs_merge (k, pa, i, NULL), -1);
        assert_int_equal (errno, EPROTO);
    }
    assert_null (pmi_kvs_get (k, "new"));
    /* a NUL in a key, and a key too long */
    memcpy (round, pa, la);
    round[12] = '\0';
    assert_int_equal (pmi_kvs_merge (k, round, la, NULL), -1);
    memcpy (round, "\0\0\0\x49\0\0\0\x41\0\0\0\0", 12);
    memset (round + 12, 'k', 0x41);
    assert_int_equal (pmi_kvs_merge (k, round, 12 + 0x41, NULL), -1);
    assert_int_equal (errno, EPROTO);
    /* the batch limit */
    for (int i = 0; i < 100; i++) {
        snprintf (key, sizeof (key), "key%d", i);
        if (pmi_batch_add (&a, key, "0123456789") < 0)
            break;
    }
    assert_int_equal (errno, EMSGSIZE);
    assert_true (a.len - 4 <= 1000);
    pmi_batch_free (&a);
    pmi_batch_free (&b);
    pmi_kvs_destroy (k);
}

/* Random bytes through every entry point: errors, never a crash (the
 * fuzz target, test/fuzz/pmi2_fuzz.c, goes further). */
static void test_random_bytes (void **state)
{
    static char buf[PMI_WIRE_MAX_CMD + 64];
    struct pmi_kvs *k = pmi_kvs_create (1 << 20);
    arbor_error_t err;
    unsigned seed = 12345;
    const char alphabet[] = "cmd=;; \n0123456789 abcdefghijklmnop=\0";

    for (int iter = 0; iter < 20000; iter++) {
        size_t len = (size_t)(rand_r (&seed) % (int)sizeof (buf));
        for (size_t i = 0; i < len; i++)
            buf[i] =
                iter % 2
                    ? (char)rand_r (&seed)
                    : alphabet[rand_r (&seed) % (int)(sizeof (alphabet) - 1)];
        if (iter % 3 == 0 && len > 6) { /* a right length prefix */
            char hdr[24];
            snprintf (hdr, sizeof (hdr), "%-6zu", len - 6);
            memcpy (buf, hdr, 6);
        }
        for (int p = 0; p < 3; p++) {
            ssize_t n = pmi_wire_frame ((enum pmi_proto)p, buf, len);
            assert_true (n <= (ssize_t)len);
            if (n > 0)
                pmi_wire_parse ((enum pmi_proto)p, buf, (size_t)n, &cmd, &err);
        }
        pmi_kvs_merge (k, buf, len, NULL);
    }
    pmi_kvs_destroy (k);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_pmi1_good),
        cmocka_unit_test (test_pmi1_spawn_is_multiline),
        cmocka_unit_test (test_pmi1_frames_and_truncation),
        cmocka_unit_test (test_pmi1_oversized),
        cmocka_unit_test (test_pmi1_malformed),
        cmocka_unit_test (test_pmi2_good),
        cmocka_unit_test (test_pmi2_frames_and_truncation),
        cmocka_unit_test (test_pmi2_bad_frames),
        cmocka_unit_test (test_pmi2_malformed),
        cmocka_unit_test (test_answers_round_trip),
        cmocka_unit_test (test_answers_refused),
        cmocka_unit_test (test_mapping),
        cmocka_unit_test (test_mapping_ranks),
        cmocka_unit_test (test_kvs_limits),
        cmocka_unit_test (test_kvs_rounds),
        cmocka_unit_test (test_random_bytes),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
