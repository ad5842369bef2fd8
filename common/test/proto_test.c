/* proto_test.c - the message codec and frame headers.
 *
 * proto_msgs.def is expanded here too, into a random filler, a comparer
 * and a key list per message, so every message type round-trips and every
 * field is tested missing and mistyped without a hand-kept list. Hostile
 * bodies (truncations at every length, huge counts, random and mutated
 * bytes) must fail with EPROTO and leave the message cleared.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <msgpack.h>

#include "proto.h"

/* ---- a small deterministic generator ------------------------------------ */

struct rng {
    uint64_t s;
};

static uint32_t rnd (struct rng *r)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(r->s >> 33);
}

/* Mostly small values, sometimes extremes, to exercise every int format. */
static uint32_t rnd_u32 (struct rng *r)
{
    switch (rnd (r) % 4) {
    case 0: return rnd (r) % 128;
    case 1: return UINT32_MAX - rnd (r) % 3;
    default: return rnd (r) ^ (rnd (r) << 1);
    }
}

static int32_t rnd_i32 (struct rng *r)
{
    switch (rnd (r) % 4) {
    case 0: return (int32_t)(rnd (r) % 64) - 32;
    case 1: return rnd (r) & 1 ? INT32_MIN : INT32_MAX;
    default: return (int32_t)rnd (r);
    }
}

static char *rnd_str (struct rng *r)
{
    /* Long ones stay within the shortest field limit (PROTO_MAX_NAME);
     * test_field_limits covers the limits themselves. */
    uint32_t len = rnd (r) % 8 == 0 ? 300 + rnd (r) % 700 : rnd (r) % 40;
    if (rnd (r) % 10 == 0)
        return NULL;
    char *s = malloc (len + 1);
    for (uint32_t i = 0; i < len; i++)
        s[i] = (char)(1 + rnd (r) % 255); /* any byte but NUL */
    s[len] = '\0';
    return s;
}

static char *rnd_bin (struct rng *r, uint32_t *len)
{
    *len = rnd (r) % 6 == 0 ? 0 : rnd (r) % 3000;
    if (*len == 0)
        return NULL;
    char *b = malloc (*len);
    for (uint32_t i = 0; i < *len; i++)
        b[i] = rnd (r) % 3 == 0 ? 0 : (char)rnd (r);
    return b;
}

static char **rnd_strv (struct rng *r, uint32_t *n)
{
    *n = rnd (r) % 5 == 0 ? 0 : rnd (r) % 20;
    if (*n == 0)
        return NULL;
    char **v = calloc (*n, sizeof (char *));
    for (uint32_t i = 0; i < *n; i++)
        if (!(v[i] = rnd_str (r)))
            v[i] = strdup ("");
    return v;
}

static void *rnd_intv (struct rng *r, uint32_t *n, bool is_signed)
{
    *n = rnd (r) % 5 == 0 ? 0 : rnd (r) % 40;
    if (*n == 0)
        return NULL;
    uint32_t *v = calloc (*n, 4);
    for (uint32_t i = 0; i < *n; i++)
        v[i] = is_signed ? (uint32_t)rnd_i32 (r) : rnd_u32 (r);
    return v;
}

static struct proto_bin *rnd_binv (struct rng *r, uint32_t *n)
{
    *n = rnd (r) % 5 == 0 ? 0 : rnd (r) % 8;
    if (*n == 0)
        return NULL;
    struct proto_bin *v = calloc (*n, sizeof (*v));
    for (uint32_t i = 0; i < *n; i++)
        v[i].data = rnd_bin (r, &v[i].len);
    return v;
}

static bool binv_eq (const struct proto_bin *a, const struct proto_bin *b,
                     uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i].len != b[i].len
            || (a[i].len && memcmp (a[i].data, b[i].data, a[i].len)))
            return false;
    return true;
}

static bool str_eq (const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp (a, b) == 0;
}

static bool strv_eq (char **a, char **b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!str_eq (a[i], b[i]))
            return false;
    return true;
}

/* ---- generated per message: filler, comparer, keys ---------------------- */

#define FILL_BOOL(n) m->n = rnd (r) & 1;
#define FILL_I32(n) m->n = rnd_i32 (r);
#define FILL_U32(n) m->n = rnd_u32 (r);
#define FILL_U64(n) m->n = ((uint64_t)rnd_u32 (r) << 32) | rnd_u32 (r);
#define FILL_STR(n) m->n = rnd_str (r);
#define FILL_BIN(n) m->n = rnd_bin (r, &m->n##_len);
#define FILL_STRLIST(n) m->n = rnd_strv (r, &m->n##_count);
#define FILL_U32LIST(n) m->n = rnd_intv (r, &m->n##_count, false);
#define FILL_I32LIST(n) m->n = rnd_intv (r, &m->n##_count, true);
#define FILL_BINLIST(n) m->n = rnd_binv (r, &m->n##_count);

#define EQ_SCALAR(n)  \
    if (a->n != b->n) \
        return #n;
#define EQ_BOOL(n) EQ_SCALAR (n)
#define EQ_I32(n) EQ_SCALAR (n)
#define EQ_U32(n) EQ_SCALAR (n)
#define EQ_U64(n) EQ_SCALAR (n)
#define EQ_STR(n)             \
    if (!str_eq (a->n, b->n)) \
        return #n;
#define EQ_BIN(n)                                           \
    if (a->n##_len != b->n##_len                            \
        || (a->n##_len && memcmp (a->n, b->n, a->n##_len))) \
        return #n;
#define EQ_STRLIST(n)                                                        \
    if (a->n##_count != b->n##_count || !strv_eq (a->n, b->n, a->n##_count)) \
        return #n;
#define EQ_INTLIST(n)                                               \
    if (a->n##_count != b->n##_count                                \
        || (a->n##_count && memcmp (a->n, b->n, 4 * a->n##_count))) \
        return #n;
#define EQ_U32LIST(n) EQ_INTLIST (n)
#define EQ_I32LIST(n) EQ_INTLIST (n)
#define EQ_BINLIST(n)                                                        \
    if (a->n##_count != b->n##_count || !binv_eq (a->n, b->n, a->n##_count)) \
        return #n;

/* What a wrong-typed value is called in the decoder's complaint. */
#define KIND_BOOL "is not a boolean"
#define KIND_I32 "is not an integer"
#define KIND_U32 "is not an unsigned integer"
#define KIND_U64 "is not an unsigned integer"
#define KIND_STR "is not a string"
#define KIND_BIN "is not binary data"
#define KIND_STRLIST "is not a list"
#define KIND_U32LIST "is not a list"
#define KIND_I32LIST "is not a list"
#define KIND_BINLIST "is not a list"

struct key {
    const char *name;
    const char *complaint;
    char type;     /* 'I' I32, 'U' U32, 'L' U64, 's' STR, other '?' */
    bool optional; /* FO(): may be left out, then decodes as zero */
};
#define KTYPE_BOOL '?'
#define KTYPE_I32 'I'
#define KTYPE_U32 'U'
#define KTYPE_U64 'L'
#define KTYPE_STR 's'
#define KTYPE_BIN '?'
#define KTYPE_STRLIST '?'
#define KTYPE_U32LIST '?'
#define KTYPE_I32LIST '?'
#define KTYPE_BINLIST '?'

#define F(t, n) FILL_##t (n)
#define MSG(id, UP, low, fields)                    \
    static void fill_##low (struct rng *r, void *p) \
    {                                               \
        struct msg_##low *m = p;                    \
        memset (m, 0, sizeof (*m));                 \
        fields                                      \
    }
#include "proto_msgs.def"
#undef MSG
#undef F

#define F(t, n) EQ_##t (n)
#define MSG(id, UP, low, fields)                                 \
    static const char *eq_##low (const void *pa, const void *pb) \
    {                                                            \
        const struct msg_##low *a = pa, *b = pb;                 \
        fields return NULL;                                      \
    }
#include "proto_msgs.def"
#undef MSG
#undef F

#define F(t, n) { #n, KIND_##t, KTYPE_##t, false },
#undef FO
#define FO(t, n) { #n, KIND_##t, KTYPE_##t, true },
#define MSG(id, UP, low, fields) \
    static const struct key keys_##low[] = { fields{ NULL, NULL, 0, false } };
#include "proto_msgs.def"
#undef MSG
#undef F
#undef FO
#define FO(t, n) F (t, n)

struct msg_test {
    int type;
    const char *name;
    size_t size;
    void (*fill) (struct rng *r, void *m);
    const char *(*eq) (const void *a, const void *b);
    const struct key *keys;
};

static const struct msg_test msgs[] = {
#define F(t, n)
#define MSG(id, UP, low, fields)                         \
    {                                                    \
        MSG_##UP,   #UP,      sizeof (struct msg_##low), \
        fill_##low, eq_##low, keys_##low                 \
    },
#include "proto_msgs.def"
#undef MSG
#undef F
};
#define NMSGS (sizeof (msgs) / sizeof (msgs[0]))

static bool all_zero (const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        if (b[i])
            return false;
    return true;
}

/* ---- round trips -----------------------------------------------------------
 */

/* A sparse body (zero fields left out) is never larger than the full one,
 * decodes with proto_decode_sparse, and encodes again to the same bytes:
 * nothing but zeros was left out. */
static void test_sparse_roundtrip_all (void **state)
{
    struct rng r = { 7 };
    union msg_any a, b;
    arbor_error_t err;

    for (size_t k = 0; k < NMSGS; k++) {
        const struct msg_test *t = &msgs[k];
        for (int iter = 0; iter < 30; iter++) {
            char *full, *sp, *again;
            size_t flen, slen, alen;

            t->fill (&r, &a);
            assert_int_equal (proto_encode (t->type, &a, &full, &flen), 0);
            assert_int_equal (proto_encode_sparse (t->type, &a, &sp, &slen), 0);
            assert_true (slen <= flen);
            if (proto_decode_sparse (t->type, sp, slen, &b, &err) < 0)
                fail_msg ("%s: %s", t->name, err.text);
            assert_int_equal (proto_encode_sparse (t->type, &b, &again, &alen),
                              0);
            if (alen != slen || memcmp (again, sp, slen))
                fail_msg ("%s: differs after a sparse round trip", t->name);
            /* a full body is a sparse one too */
            proto_clear (t->type, &b);
            assert_int_equal (
                proto_decode_sparse (t->type, full, flen, &b, &err), 0);
            proto_clear (t->type, &a);
            proto_clear (t->type, &b);
            free (full);
            free (sp);
            free (again);
        }
    }
}

/* proto_decode refuses what only proto_decode_sparse takes: a body
 * without a required field. */
static void test_sparse_needs_its_decoder (void **state)
{
    struct msg_node_register m = { .name = "n1" }; /* the rest zero */
    union msg_any got;
    arbor_error_t err;
    char *sp;
    size_t slen;

    assert_int_equal (proto_encode_sparse (MSG_NODE_REGISTER, &m, &sp, &slen),
                      0);
    assert_int_equal (proto_decode (MSG_NODE_REGISTER, sp, slen, &got, &err),
                      -1);
    assert_non_null (strstr (err.text, "missing field"));
    assert_int_equal (
        proto_decode_sparse (MSG_NODE_REGISTER, sp, slen, &got, &err), 0);
    assert_string_equal (got.node_register.name, "n1");
    proto_clear (MSG_NODE_REGISTER, &got);
    free (sp);
}

static void test_roundtrip_all (void **state)
{
    struct rng r = { 42 };
    union msg_any a, b, c;
    arbor_error_t err;

    for (size_t k = 0; k < NMSGS; k++) {
        const struct msg_test *t = &msgs[k];
        for (int iter = 0; iter < 60; iter++) {
            char *buf;
            size_t len;
            const char *diff;

            t->fill (&r, &a);
            assert_int_equal (proto_encode (t->type, &a, &buf, &len), 0);
            if (proto_decode (t->type, buf, len, &b, &err) < 0)
                fail_msg ("%s: %s", t->name, err.text);
            if ((diff = t->eq (&a, &b)))
                fail_msg ("%s: field %s differs after decode", t->name, diff);
            assert_int_equal (proto_copy (t->type, &b, &c), 0);
            if ((diff = t->eq (&a, &c)))
                fail_msg ("%s: field %s differs after copy", t->name, diff);
            proto_clear (t->type, &a);
            proto_clear (t->type, &b);
            assert_true (all_zero (&b, t->size));
            proto_clear (t->type, &c);
            free (buf);
        }
    }
}

static void roundtrip (int type, const void *in, void *out)
{
    arbor_error_t err;
    char *buf;
    size_t len;

    assert_int_equal (proto_encode (type, in, &buf, &len), 0);
    if (proto_decode (type, buf, len, out, &err) < 0)
        fail_msg ("%s", err.text);
    free (buf);
}

static void test_launch (void **state)
{
    char *slice[] = { "node3", "node4", "node5" };
    char *argv[] = { "/bin/echo", "hello world", "" };
    char *env[] = { "PATH=/usr/bin", "A=b=c" };
    uint32_t tasks[] = { 4, 4, 3 }, cpus[] = { 8, 8, 6 };
    struct msg_launch m = {
        .cred = "MUNGE:AwQFAAA=:",
        .job_id = 17,
        .step_id = 3,
        .slice = slice,
        .slice_count = 3,
        .budget_ms = 2400,
        .argv = argv,
        .argv_count = 3,
        .env = env,
        .env_count = 2,
        .cwd = NULL,
        .io_host = "127.0.0.1",
        .io_port = 40123,
        .step_nodelist = "node[3-5]",
        .tasks = tasks,
        .tasks_count = 3,
        .cpus = cpus,
        .cpus_count = 3,
        .job_nodelist = "node[1-8]",
        .cpus_per_task = 2,
        .stdin_task = STDIN_NONE,
        .job_name = "hello",
    };
    struct msg_launch d;

    roundtrip (MSG_LAUNCH, &m, &d);
    assert_string_equal (d.cred, "MUNGE:AwQFAAA=:");
    assert_int_equal (d.job_id, 17);
    assert_int_equal (d.slice_count, 3);
    assert_string_equal (d.slice[2], "node5");
    assert_string_equal (d.argv[1], "hello world");
    assert_string_equal (d.argv[2], "");
    assert_string_equal (d.env[1], "A=b=c");
    assert_null (d.cwd);
    assert_int_equal (d.io_port, 40123);
    assert_int_equal (d.tasks[2], 3);
    assert_int_equal (d.cpus[0], 8);
    assert_int_equal (d.stdin_task, STDIN_NONE);
    assert_string_equal (d.job_name, "hello");
    proto_clear (MSG_LAUNCH, &d);
}

static void test_io_data_binary (void **state)
{
    char data[] = { 'a', 0, 0, 'b', '\n', 0 };
    struct msg_io_data m = {
        .task = 7, .stream = 2, .data = data, .data_len = sizeof (data)
    };
    struct msg_io_data d, e;

    roundtrip (MSG_IO_DATA, &m, &d);
    assert_int_equal (d.task, 7);
    assert_int_equal (d.stream, 2);
    assert_int_equal (d.data_len, sizeof (data));
    assert_memory_equal (d.data, data, sizeof (data));
    proto_clear (MSG_IO_DATA, &d);

    m.data = NULL; /* EOF marker */
    m.data_len = 0;
    roundtrip (MSG_IO_DATA, &m, &e);
    assert_int_equal (e.data_len, 0);
    assert_null (e.data);
    proto_clear (MSG_IO_DATA, &e);
}

static void test_task_exit_and_claims (void **state)
{
    uint32_t tasks[] = { 0, 1, 2 };
    int32_t codes[] = { 0, 255, -1 }, sigs[] = { 0, 0, 9 };
    struct msg_task_exit m = { tasks, 3, codes, 3, sigs, 3, true };
    struct msg_task_exit d;
    uint32_t cpus[] = { 1, 64 };
    struct msg_cred_claims cl = {
        .job_id = UINT32_MAX,
        .step_id = STEP_ID_ALL,
        .uid = 1000,
        .gid = 1000,
        .user = "alice",
        .nodelist = "n[1-2]",
        .cpus = cpus,
        .cpus_count = 2,
        .mem_mb = UINT64_MAX,
        .io_key = "k",
        .expires = 1700000000ull,
        .cluster = "c",
        .issued = 1699999700ull,
    };
    struct msg_cred_claims dc;
    struct msg_step_created sc = { .job_id = 5, .step_id = 0 }, dsc;

    roundtrip (MSG_TASK_EXIT, &m, &d);
    assert_int_equal (d.exit_codes[2], -1);
    assert_int_equal (d.signals[2], 9);
    assert_int_equal (d.tasks_count, 3);
    proto_clear (MSG_TASK_EXIT, &d);

    roundtrip (MSG_CRED_CLAIMS, &cl, &dc);
    assert_int_equal (dc.job_id, UINT32_MAX);
    assert_true (dc.mem_mb == UINT64_MAX);
    assert_string_equal (dc.user, "alice");
    assert_int_equal (dc.cpus[1], 64);
    assert_true (dc.issued == 1699999700ull);
    proto_clear (MSG_CRED_CLAIMS, &dc);

    roundtrip (MSG_STEP_CREATED, &sc, &dsc); /* all lists empty, strs nil */
    assert_int_equal (dsc.job_id, 5);
    assert_null (dsc.addrs);
    assert_int_equal (dsc.addrs_count, 0);
    assert_null (dsc.cred);
    proto_clear (MSG_STEP_CREATED, &dsc);
}

/* STEP_LIVE (issue 32 item 8): a noded's question, every field back. */
static void test_step_live (void **state)
{
    struct msg_step_live m = { .job_id = 7,
                               .step_id = STEP_ID_BATCH,
                               .restarts = 2,
                               .node = "node3" },
                         d;

    roundtrip (MSG_STEP_LIVE, &m, &d);
    assert_int_equal (d.job_id, 7);
    assert_int_equal (d.step_id, STEP_ID_BATCH);
    assert_int_equal (d.restarts, 2);
    assert_string_equal (d.node, "node3");
    assert_string_equal (proto_msg_name (MSG_STEP_LIVE), "STEP_LIVE");
    proto_clear (MSG_STEP_LIVE, &d);
}

static void test_names_and_args (void **state)
{
    struct msg_launch m = { 0 };
    char *bad[] = { "a", NULL };
    char *buf;
    size_t len;

    assert_string_equal (proto_msg_name (MSG_LAUNCH), "LAUNCH");
    assert_string_equal (proto_msg_name (MSG_RC), "RC");
    assert_string_equal (proto_msg_name (MSG_CRED_CLAIMS), "CRED_CLAIMS");
    assert_null (proto_msg_name (0));
    assert_null (proto_msg_name (99));
    assert_true (proto_msg_known (MSG_IO_DATA));
    assert_false (proto_msg_known (12345));
    errno = 0;
    assert_int_equal (proto_encode (99, &m, &buf, &len), -1);
    assert_int_equal (errno, EINVAL);
    m.argv = bad;
    m.argv_count = 2;
    assert_int_equal (proto_encode (MSG_LAUNCH, &m, &buf, &len), -1);
    assert_int_equal (errno, EINVAL);
}

/* ---- hostile bodies --------------------------------------------------------
 */

/* Decode must fail with EPROTO, text starting "NAME: ", msg cleared. */
static void expect_reject (const struct msg_test *t, const char *buf,
                           size_t len, const char *text)
{
    union msg_any m;
    arbor_error_t err = { "" };
    char prefix[64];

    memset (&m, 0xa5, sizeof (m));
    errno = 0;
    if (proto_decode (t->type, buf, len, &m, &err) == 0)
        fail_msg ("%s: accepted a bad body (len %zu)", t->name, len);
    assert_int_equal (errno, EPROTO);
    assert_true (all_zero (&m, t->size));
    snprintf (prefix, sizeof (prefix), "%s: ", t->name);
    if (strncmp (err.text, prefix, strlen (prefix)) != 0)
        fail_msg ("error text '%s' lacks prefix '%s'", err.text, prefix);
    if (text && strcmp (err.text, text) != 0)
        fail_msg ("error text '%s', expected '%s'", err.text, text);
}

static void test_truncated (void **state)
{
    struct rng r = { 7 };
    union msg_any a;

    for (size_t k = 0; k < NMSGS; k++) {
        const struct msg_test *t = &msgs[k];
        char *buf;
        size_t len;

        t->fill (&r, &a);
        assert_int_equal (proto_encode (t->type, &a, &buf, &len), 0);
        proto_clear (t->type, &a);
        /* Every prefix of a big body is slow under valgrind; step through
         * long ones but always cover the first and last 512 bytes. */
        for (size_t l = 0; l < len; l++) {
            if (l > 512 && l + 512 < len && l % 97)
                continue;
            char *copy = malloc (l ? l : 1); /* exact size for ASan */
            memcpy (copy, buf, l);
            expect_reject (t, copy, l, NULL);
            free (copy);
        }
        free (buf);
    }
}

/* Re-pack the map in 'buf' leaving out key 'drop' and, if 'repl' is set,
 * replacing the value of key 'swap' by packing it with repl(). */
typedef void (*repl_f) (msgpack_packer *pk, void *arg);

static char *repack (const char *buf, size_t len, const char *drop,
                     const char *swap, repl_f repl, void *arg, size_t *out)
{
    msgpack_unpacked u;
    msgpack_sbuffer sb;
    msgpack_packer pk;
    size_t off = 0;

    msgpack_unpacked_init (&u);
    assert_int_equal (msgpack_unpack_next (&u, buf, len, &off),
                      MSGPACK_UNPACK_SUCCESS);
    msgpack_object_map *map = &u.data.via.map;
    msgpack_sbuffer_init (&sb);
    msgpack_packer_init (&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map (&pk, map->size - (drop ? 1 : 0));
    for (uint32_t i = 0; i < map->size; i++) {
        msgpack_object_str *k = &map->ptr[i].key.via.str;
        if (drop && k->size == strlen (drop) && !memcmp (k->ptr, drop, k->size))
            continue;
        msgpack_pack_object (&pk, map->ptr[i].key);
        if (swap && k->size == strlen (swap) && !memcmp (k->ptr, swap, k->size))
            repl (&pk, arg);
        else
            msgpack_pack_object (&pk, map->ptr[i].val);
    }
    msgpack_unpacked_destroy (&u);
    *out = sb.size;
    return msgpack_sbuffer_release (&sb);
}

static void pack_float (msgpack_packer *pk, void *arg)
{
    msgpack_pack_double (pk, 1.5);
}

static void pack_u64 (msgpack_packer *pk, void *arg)
{
    msgpack_pack_uint64 (pk, *(uint64_t *)arg);
}

static void pack_i64 (msgpack_packer *pk, void *arg)
{
    msgpack_pack_int64 (pk, *(int64_t *)arg);
}

static void pack_nul_str (msgpack_packer *pk, void *arg)
{
    msgpack_pack_str_with_body (pk, "a\0b", 3);
}

/* A body without optional field 'key' decodes, and every other field of
 * the message still decodes: the message equals one whose field is zero. */
static void expect_optional_absent (const struct msg_test *t,
                                    const struct key *key, const char *body,
                                    size_t blen)
{
    union msg_any m;
    arbor_error_t err = { "" };
    char *again;
    size_t alen;

    if (proto_decode (t->type, body, blen, &m, &err) < 0)
        fail_msg ("%s without optional '%s': %s", t->name, key->name, err.text);
    assert_int_equal (proto_encode (t->type, &m, &again, &alen), 0);
    /* Encoded again, it has the field, zero: longer than the body. */
    assert_true (alen > blen);
    free (again);
    proto_clear (t->type, &m);
}

static void check_field (const struct msg_test *t, const struct key *key,
                         const char *buf, size_t len)
{
    char want[200], *body;
    size_t blen;

    body = repack (buf, len, key->name, NULL, NULL, NULL, &blen);
    if (key->optional) {
        expect_optional_absent (t, key, body, blen);
    } else {
        snprintf (want, sizeof (want), "%s: missing field '%s'", t->name,
                  key->name);
        expect_reject (t, body, blen, want);
    }
    free (body);

    snprintf (want, sizeof (want), "%s: field '%s' %s", t->name, key->name,
              key->complaint);
    body = repack (buf, len, NULL, key->name, pack_float, NULL, &blen);
    expect_reject (t, body, blen, want);
    free (body);

    snprintf (want, sizeof (want), "%s: field '%s' is out of range", t->name,
              key->name);
    uint64_t big = key->type == 'I' ? (uint64_t)INT32_MAX + 1 : 1ull << 32;
    int64_t neg = key->type == 'I' ? (int64_t)INT32_MIN - 1 : -1;
    if (key->type == 'I' || key->type == 'U') {
        body = repack (buf, len, NULL, key->name, pack_u64, &big, &blen);
        expect_reject (t, body, blen, want);
        free (body);
    }
    if (key->type == 'I' || key->type == 'U' || key->type == 'L') {
        body = repack (buf, len, NULL, key->name, pack_i64, &neg, &blen);
        expect_reject (t, body, blen, want);
        free (body);
    }
    if (key->type == 's') {
        snprintf (want, sizeof (want), "%s: field '%s' holds a NUL byte",
                  t->name, key->name);
        body = repack (buf, len, NULL, key->name, pack_nul_str, NULL, &blen);
        expect_reject (t, body, blen, want);
        free (body);
    }
}

static void test_missing_and_wrong_types (void **state)
{
    struct rng r = { 99 };
    union msg_any a;

    for (size_t k = 0; k < NMSGS; k++) {
        const struct msg_test *t = &msgs[k];
        char *buf;
        size_t len;

        t->fill (&r, &a);
        assert_int_equal (proto_encode (t->type, &a, &buf, &len), 0);
        proto_clear (t->type, &a);
        for (const struct key *key = t->keys; key->name; key++)
            check_field (t, key, buf, len);
        free (buf);
    }
}

static const struct msg_test *find_test (int type)
{
    for (size_t k = 0; k < NMSGS; k++)
        if (msgs[k].type == type)
            return &msgs[k];
    fail ();
    return NULL;
}

static void test_specific_rejects (void **state)
{
    const struct msg_test *launch = find_test (MSG_LAUNCH);
    const struct msg_test *rc = find_test (MSG_RC);
    /* map{ "argv": array32 of 4 billion } with nothing after */
    const char huge_list[] = "\x81\xa4"
                             "argv"
                             "\xdd\xff\xff\xff\xff";
    const char huge_map[] = "\xdf\xff\xff\xff\xff\xa1x\xc0";
    const char nested[] = "\x81\xa1x\x91\x91\x91\x91\x91\x91\x91\x91\x91"
                          "\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91"
                          "\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91"
                          "\x91\x91\x91\x91\x91\x91\xc0";
    const char dup[] = "\x83\xa6"
                       "errnum"
                       "\x01\xa4text\xc0\xa6"
                       "errnum"
                       "\x02";
    const char trailing[] = "\x82\xa6"
                            "errnum"
                            "\x01\xa4text\xc0\xc0";
    const char intkey[] = "\x81\x01\x02";

    expect_reject (launch, huge_list, sizeof (huge_list) - 1,
                   "LAUNCH: field 'argv' is longer than the body");
    expect_reject (launch, huge_map, sizeof (huge_map) - 1,
                   "LAUNCH: truncated body");
    expect_reject (rc, nested, sizeof (nested) - 1, NULL);
    expect_reject (rc, dup, sizeof (dup) - 1,
                   "RC: field 'errnum' appears twice");
    expect_reject (rc, trailing, sizeof (trailing) - 1,
                   "RC: trailing bytes after the body");
    expect_reject (rc, intkey, sizeof (intkey) - 1,
                   "RC: map key is not a string");
    expect_reject (rc, "\x92\x01\x02", 3, "RC: body is not a map");
    expect_reject (rc, "\xc0", 1, "RC: body is not a map");
    expect_reject (rc, "\x05", 1, "RC: body is not a map");
    expect_reject (rc, "", 0, "RC: truncated body");
    expect_reject (rc, "\xc1", 1, "RC: malformed body");
    expect_reject (launch, "\x80", 1, "LAUNCH: missing field 'cred'");
}

static void test_lenient_forms (void **state)
{
    /* unknown keys (even nested, with ext types) are skipped; text as
     * bin for BIN; nil STR; signed encodings of small positive ints. */
    const char body[] = "\x85\xa5"
                        "extra"
                        "\x92\x81\xa1k\xd4\x01\x02\xc7"
                        "\x02\x05\xaa\xbb"
                        "\xa4task\xd0\x05"
                        "\xa6stream\xd1\x00\x02"
                        "\xa4"
                        "data"
                        "\xa3"
                        "abc"
                        "\xa3zzz\xcb"
                        "\x3f\xf0\x00\x00\x00\x00\x00\x00";
    const char rc_body[] = "\x82\xa6"
                           "errnum"
                           "\xff\xa4text\xc0";
    struct msg_io_data d;
    struct msg_rc r;
    arbor_error_t err;

    if (proto_decode (MSG_IO_DATA, body, sizeof (body) - 1, &d, &err) < 0)
        fail_msg ("%s", err.text);
    assert_int_equal (d.task, 5);
    assert_int_equal (d.stream, 2);
    assert_int_equal (d.data_len, 3);
    assert_memory_equal (d.data, "abc", 3);
    proto_clear (MSG_IO_DATA, &d);

    if (proto_decode (MSG_RC, rc_body, sizeof (rc_body) - 1, &r, &err) < 0)
        fail_msg ("%s", err.text);
    assert_int_equal (r.errnum, -1);
    assert_null (r.text);
}

/* Random bytes, and valid bodies with a few bytes changed: never crash,
 * and whatever is accepted must re-encode. */
static void test_random_bodies (void **state)
{
    struct rng r = { 12345 };
    union msg_any a, m;
    arbor_error_t err;
    int accepted = 0;

    for (int iter = 0; iter < 6000; iter++) {
        const struct msg_test *t = &msgs[rnd (&r) % NMSGS];
        char *buf;
        size_t len;

        if (iter % 2) {
            len = rnd (&r) % 200;
            buf = malloc (len ? len : 1);
            for (size_t i = 0; i < len; i++)
                buf[i] = (char)rnd (&r);
        } else {
            t->fill (&r, &a);
            assert_int_equal (proto_encode (t->type, &a, &buf, &len), 0);
            proto_clear (t->type, &a);
            for (int j = 1 + rnd (&r) % 4; j > 0 && len; j--)
                buf[rnd (&r) % len] = (char)rnd (&r);
        }
        if (proto_decode (t->type, buf, len, &m, &err) == 0) {
            char *again;
            size_t alen;
            accepted++;
            assert_int_equal (proto_encode (t->type, &m, &again, &alen), 0);
            free (again);
            proto_clear (t->type, &m);
        } else {
            assert_int_equal (errno, EPROTO);
            assert_true (all_zero (&m, t->size));
        }
        free (buf);
    }
    print_message ("random bodies: %d of 6000 accepted\n", accepted);
}

/* ---- frame headers
 * ----------------------------------------------------------- */

/* Every field kind has a size limit; one byte (or element) over it is
 * refused with a message naming the field and the limit. */
static void test_field_limits (void **state)
{
    size_t n = PROTO_MAX_NAME + 1;
    char *name = malloc (n + 1);
    struct msg_job_alloc a = { .cpus_per_task = 1 };
    union msg_any out;
    arbor_error_t err;
    char *buf;
    size_t len;

    memset (name, 'x', n);
    name[n] = '\0';
    a.name = name;
    assert_int_equal (proto_encode (MSG_JOB_ALLOC, &a, &buf, &len), 0);
    assert_int_equal (proto_decode (MSG_JOB_ALLOC, buf, len, &out, &err), -1);
    assert_int_equal (errno, EPROTO);
    assert_string_equal (err.text, "JOB_ALLOC: field 'name' is 1025 bytes "
                                   "long, more than 1024");
    free (buf);
    name[n - 1] = '\0'; /* exactly at the limit: accepted */
    assert_int_equal (proto_encode (MSG_JOB_ALLOC, &a, &buf, &len), 0);
    assert_int_equal (proto_decode (MSG_JOB_ALLOC, buf, len, &out, &err), 0);
    proto_clear (MSG_JOB_ALLOC, &out);
    free (buf);

    /* a list over its count limit: env of PROTO_MAX_ARGS + 1 strings */
    struct msg_launch l = { 0 };
    l.env_count = PROTO_MAX_ARGS + 1;
    l.env = calloc (l.env_count, sizeof (char *));
    for (uint32_t i = 0; i < l.env_count; i++)
        l.env[i] = "A=1";
    assert_int_equal (proto_encode (MSG_LAUNCH, &l, &buf, &len), 0);
    assert_int_equal (proto_decode (MSG_LAUNCH, buf, len, &out, &err), -1);
    assert_non_null (strstr (err.text, "field 'env' has 65537 elements"));
    free (buf);
    free (l.env);

    /* a batch script one byte over PROTO_MAX_SCRIPT */
    a.name = "x";
    a.script_len = PROTO_MAX_SCRIPT + 1;
    a.script = calloc (1, a.script_len);
    assert_int_equal (proto_encode (MSG_JOB_ALLOC, &a, &buf, &len), 0);
    assert_int_equal (proto_decode (MSG_JOB_ALLOC, buf, len, &out, &err), -1);
    assert_non_null (strstr (err.text, "field 'script'"));
    free (buf);
    free (a.script);
    free (name);
}

/* An encoding is kept in a block of about its own size (a job keeps its
 * request's until it is purged), small or large, and decodes as sent. */
static void test_encoding_fits (void **state)
{
    struct msg_rc rc = { .errnum = 2, .text = "small" };
    union msg_any back;
    arbor_error_t err;
    char *buf, *big = malloc (20000);
    size_t len;

    (void)state;
    assert_int_equal (proto_encode (MSG_RC, &rc, &buf, &len), 0);
    assert_true (malloc_usable_size (buf) < len + 256);
    assert_int_equal (proto_decode (MSG_RC, buf, len, &back, &err), 0);
    assert_string_equal (back.rc.text, "small");
    proto_clear (MSG_RC, &back);
    free (buf);

    assert_non_null (big);
    memset (big, 'b', 19999);
    big[19999] = '\0';
    rc.text = big;
    assert_int_equal (proto_encode (MSG_RC, &rc, &buf, &len), 0);
    assert_true (len > 20000 && malloc_usable_size (buf) < len + 256);
    assert_int_equal (proto_decode (MSG_RC, buf, len, &back, &err), 0);
    assert_string_equal (back.rc.text, big);
    proto_clear (MSG_RC, &back);
    free (buf);
    free (big);
}

static void test_frame_header (void **state)
{
    struct frame_header h = {
        PROTO_VERSION_MAJOR, 7,   MSG_LAUNCH, FRAME_F_RESPONSE,
        0xdeadbeef,          123, 4567
    };
    struct frame_header d;
    unsigned char buf[PROTO_HEADER_SIZE];
    arbor_error_t err;

    frame_header_pack (&h, buf);
    assert_memory_equal (buf, "ARBR", 4);
    assert_int_equal (frame_header_unpack (buf, &d, &err), 0);
    assert_int_equal (d.major, PROTO_VERSION_MAJOR);
    assert_int_equal (d.minor, 7);
    assert_int_equal (d.type, MSG_LAUNCH);
    assert_int_equal (d.flags, FRAME_F_RESPONSE);
    assert_int_equal (d.matchtag, 0xdeadbeef);
    assert_int_equal (d.token_len, 123);
    assert_int_equal (d.body_len, 4567);

    buf[0] = 'X';
    errno = 0;
    assert_int_equal (frame_header_unpack (buf, &d, &err), -1);
    assert_int_equal (errno, EPROTO);
    assert_non_null (strstr (err.text, "magic"));

    h.major = PROTO_VERSION_MAJOR + 1;
    frame_header_pack (&h, buf);
    assert_int_equal (frame_header_unpack (buf, &d, &err), -1);
    assert_int_equal (errno, EPROTO);
    assert_non_null (strstr (err.text, "version"));

    h.major = PROTO_VERSION_MAJOR;
    h.body_len = PROTO_MAX_BODY + 1;
    frame_header_pack (&h, buf);
    assert_int_equal (frame_header_unpack (buf, &d, &err), -1);
    assert_non_null (strstr (err.text, "body"));

    h.body_len = PROTO_MAX_BODY;
    h.token_len = PROTO_MAX_TOKEN + 1;
    frame_header_pack (&h, buf);
    assert_int_equal (frame_header_unpack (buf, &d, &err), -1);
    assert_non_null (strstr (err.text, "token"));

    h.token_len = PROTO_MAX_TOKEN;
    frame_header_pack (&h, buf);
    assert_int_equal (frame_header_unpack (buf, &d, NULL), 0);
}

/* proto_append: pages of a listing into one answer, every list type;
 * src left empty, scalars of both untouched. */
static void test_append (void **state)
{
    uint32_t ids1[] = { 3 }, ids2[] = { 5, 6 };
    int32_t rc2[] = { -1, 7 };
    char *n2[] = { "x", "y" };
    struct msg_job_info_reply a = { .job_ids = ids1,
                                    .job_ids_count = 1,
                                    .more_after = 3 },
                              da, db, empty = { 0 };
    struct msg_job_info_reply b = { .job_ids = ids2,
                                    .job_ids_count = 2,
                                    .exit_codes = rc2,
                                    .exit_codes_count = 2,
                                    .names = n2,
                                    .names_count = 2 };
    struct proto_bin bins[] = { { "ab", 2 } };
    struct msg_acct_reply ra = { 0 }, rb = { .jobs = bins, .jobs_count = 1 },
                          dra, drb;

    (void)state;
    assert_int_equal (proto_copy (MSG_JOB_INFO_REPLY, &a, &da), 0);
    assert_int_equal (proto_copy (MSG_JOB_INFO_REPLY, &b, &db), 0);
    assert_int_equal (proto_append (MSG_JOB_INFO_REPLY, &da, &db), 0);
    assert_int_equal (da.job_ids_count, 3);
    assert_int_equal (da.job_ids[2], 6);
    assert_int_equal (da.exit_codes_count, 2);
    assert_int_equal (da.exit_codes[0], -1);
    assert_int_equal (da.names_count, 2);
    assert_string_equal (da.names[1], "y");
    assert_int_equal (da.more_after, 3);
    assert_int_equal (db.job_ids_count, 0);
    assert_null (db.job_ids);
    assert_null (db.names);
    assert_int_equal (proto_append (MSG_JOB_INFO_REPLY, &da, &empty), 0);
    assert_int_equal (da.job_ids_count, 3);
    proto_clear (MSG_JOB_INFO_REPLY, &da);
    proto_clear (MSG_JOB_INFO_REPLY, &db);
    assert_int_equal (proto_copy (MSG_ACCT_REPLY, &ra, &dra), 0);
    assert_int_equal (proto_copy (MSG_ACCT_REPLY, &rb, &drb), 0);
    assert_int_equal (proto_append (MSG_ACCT_REPLY, &dra, &drb), 0);
    assert_int_equal (dra.jobs_count, 1);
    assert_memory_equal (dra.jobs[0].data, "ab", 2);
    proto_clear (MSG_ACCT_REPLY, &dra);
    proto_clear (MSG_ACCT_REPLY, &drb);
    assert_int_equal (proto_append (-5, &da, &db), -1);
    assert_int_equal (errno, EINVAL);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_roundtrip_all),
        cmocka_unit_test (test_sparse_roundtrip_all),
        cmocka_unit_test (test_sparse_needs_its_decoder),
        cmocka_unit_test (test_launch),
        cmocka_unit_test (test_io_data_binary),
        cmocka_unit_test (test_task_exit_and_claims),
        cmocka_unit_test (test_step_live),
        cmocka_unit_test (test_names_and_args),
        cmocka_unit_test (test_truncated),
        cmocka_unit_test (test_missing_and_wrong_types),
        cmocka_unit_test (test_specific_rejects),
        cmocka_unit_test (test_lenient_forms),
        cmocka_unit_test (test_random_bodies),
        cmocka_unit_test (test_field_limits),
        cmocka_unit_test (test_frame_header),
        cmocka_unit_test (test_encoding_fits),
        cmocka_unit_test (test_append),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
