/* proto_decode.c - msgpack bytes -> message structs (proto_decode).
 *
 * The bytes are read directly with a bounds-checked cursor instead of
 * msgpack_unpack(): the library's unpacker allocates an array's elements
 * as soon as it reads the array header, so a 5-byte hostile body claiming
 * 4 billion elements makes it ask for ~100 GB, and it builds an object
 * tree we would copy again. The cursor checks every length against the
 * bytes left before allocating, never recurses deeper than
 * PROTO_MAX_DEPTH, and copies each string once, straight into the struct.
 * Every field a message defines with F() must be present; one defined with
 * FO() (added in a minor version) may be absent and is then zero; unknown
 * keys are skipped (docs/admin.md, upgrading). Input limits per field are
 * below.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "proto_decode.h"
#include "proto_private.h"

/* ---- decode: a bounds-checked msgpack cursor --------------------------- */

struct cursor {
    const unsigned char *p;
    const unsigned char *end;
};

static size_t cur_left (const struct cursor *c)
{
    return (size_t)(c->end - c->p);
}

static int cur_be (struct cursor *c, unsigned nbytes, uint64_t *v)
{
    if (cur_left (c) < nbytes)
        return -1;
    uint64_t x = 0;
    for (unsigned i = 0; i < nbytes; i++)
        x = (x << 8) | c->p[i];
    c->p += nbytes;
    *v = x;
    return 0;
}

enum val_kind {
    VK_NIL,
    VK_BOOL,
    VK_UINT,
    VK_INT,
    VK_FLOAT,
    VK_STR,
    VK_BIN,
    VK_ARRAY,
    VK_MAP,
    VK_EXT,
    VK_BAD,
};

/* One msgpack value header. For STR/BIN/EXT 'ptr' and 'n' give the payload
 * (already bounds-checked and consumed); for ARRAY/MAP 'n' is the count;
 * for UINT 'u', INT 'i', BOOL 'u'. */
struct val {
    enum val_kind kind;
    uint64_t u;
    int64_t i;
    uint64_t n;
    const unsigned char *ptr;
};

static int cur_payload (struct cursor *c, unsigned lenbytes, struct val *v)
{
    if (cur_be (c, lenbytes, &v->n) < 0 || cur_left (c) < v->n)
        return -1;
    v->ptr = c->p;
    c->p += v->n;
    return 0;
}

static int cur_signed (struct cursor *c, unsigned nbytes, struct val *v)
{
    uint64_t x;
    if (cur_be (c, nbytes, &x) < 0)
        return -1;
    switch (nbytes) { /* two's complement narrowing, as GCC defines it */
    case 1: v->i = (int8_t)x; break;
    case 2: v->i = (int16_t)x; break;
    case 4: v->i = (int32_t)x; break;
    default: v->i = (int64_t)x; break;
    }
    if (v->i < 0) {
        v->kind = VK_INT;
    } else {
        v->kind = VK_UINT;
        v->u = (uint64_t)v->i;
    }
    return 0;
}

/* Skip an extension value: fixext 1..16, or ext 8/16/32 with a length;
 * either way a type byte precedes the data. */
static int cur_ext (struct cursor *c, unsigned b, struct val *v)
{
    uint64_t n;

    v->kind = VK_EXT;
    if (b >= 0xd4 && b <= 0xd8)
        n = (uint64_t)1 << (b - 0xd4);
    else if (cur_be (c, b == 0xc7 ? 1 : b == 0xc8 ? 2 : 4, &n) < 0)
        return -1;
    if (cur_left (c) < 1 || cur_left (c) - 1 < n)
        return -1;
    v->ptr = c->p + 1;
    v->n = n;
    c->p += 1 + n;
    return 0;
}

/* Read the next value's header. Returns 0, or -1 on truncation/bad byte. */
static int cur_next (struct cursor *c, struct val *v)
{
    memset (v, 0, sizeof (*v));
    if (cur_left (c) < 1)
        return -1;
    unsigned b = *c->p++;
    if (b <= 0x7f) {
        v->kind = VK_UINT;
        v->u = b;
        return 0;
    }
    if (b >= 0xe0) {
        v->kind = VK_INT;
        v->i = (int8_t)b;
        return 0;
    }
    if (b >= 0x80 && b <= 0x8f) {
        v->kind = VK_MAP;
        v->n = b & 0x0f;
        return 0;
    }
    if (b >= 0x90 && b <= 0x9f) {
        v->kind = VK_ARRAY;
        v->n = b & 0x0f;
        return 0;
    }
    if (b >= 0xa0 && b <= 0xbf) {
        v->kind = VK_STR;
        v->n = b & 0x1f;
        if (cur_left (c) < v->n)
            return -1;
        v->ptr = c->p;
        c->p += v->n;
        return 0;
    }
    switch (b) {
    case 0xc0: v->kind = VK_NIL; return 0;
    case 0xc2:
    case 0xc3:
        v->kind = VK_BOOL;
        v->u = b & 1;
        return 0;
    case 0xc4:
    case 0xc5:
    case 0xc6: v->kind = VK_BIN; return cur_payload (c, 1u << (b - 0xc4), v);
    case 0xc7:
    case 0xc8:
    case 0xc9: return cur_ext (c, b, v);
    case 0xca: v->kind = VK_FLOAT; return cur_be (c, 4, &v->u);
    case 0xcb: v->kind = VK_FLOAT; return cur_be (c, 8, &v->u);
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: v->kind = VK_UINT; return cur_be (c, 1u << (b - 0xcc), &v->u);
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: return cur_signed (c, 1u << (b - 0xd0), v);
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8: return cur_ext (c, b, v);
    case 0xd9:
    case 0xda:
    case 0xdb: v->kind = VK_STR; return cur_payload (c, 1u << (b - 0xd9), v);
    case 0xdc:
    case 0xdd: v->kind = VK_ARRAY; return cur_be (c, b == 0xdc ? 2 : 4, &v->n);
    case 0xde:
    case 0xdf: v->kind = VK_MAP; return cur_be (c, b == 0xde ? 2 : 4, &v->n);
    }
    v->kind = VK_BAD; /* 0xc1 is never used */
    return -1;
}

/* Skip the contents of a value whose header is in v. Every element takes
 * at least one byte, so a count beyond the bytes left fails at once. */
static int cur_skip_rest (struct cursor *c, const struct val *v, int depth)
{
    uint64_t n = v->n;

    if (v->kind != VK_ARRAY && v->kind != VK_MAP)
        return 0;
    if (depth >= PROTO_MAX_DEPTH)
        return -1;
    if (v->kind == VK_MAP) {
        if (n > cur_left (c) / 2)
            return -1;
        n *= 2;
    }
    if (n > cur_left (c))
        return -1;
    for (uint64_t k = 0; k < n; k++) {
        struct val e;
        if (cur_next (c, &e) < 0 || cur_skip_rest (c, &e, depth + 1) < 0)
            return -1;
    }
    return 0;
}

/* ---- decode: values into fields ----------------------------------------- */

struct dec {
    const struct msg_desc *d;
    arbor_error_t *err;
    unsigned next; /* where find_field looks first */
    bool sparse;   /* proto_decode_sparse: every field optional */
};

/* ---- decode: input limits ----------------------------------------------- */

/* What one field may hold (proto.h: "Input limits"). Fields are found by
 * key, so a field gets the limit of its kind wherever it appears. */
struct field_limit {
    const char *key;
    uint32_t max_len;   /* bytes of a string, or of each list element */
    uint32_t max_count; /* elements of a list; 0: the type's default */
};

static const struct field_limit field_limits[] = {
    /* names: jobs, users, partitions, nodes, states, reasons */
    { "name", PROTO_MAX_NAME, 0 },
    { "job_name", PROTO_MAX_NAME, 0 },
    { "names", PROTO_MAX_NAME, 0 },
    { "partition", PROTO_MAX_NAME, 0 },
    { "account", PROTO_MAX_NAME, 0 },
    { "partitions", PROTO_MAX_NAME, 0 },
    { "user", PROTO_MAX_NAME, 0 },
    { "users", PROTO_MAX_NAME, 0 },
    { "state", PROTO_MAX_NAME, 0 },
    { "states", PROTO_MAX_NAME, 0 },
    { "reason", PROTO_MAX_NAME, 0 },
    { "reasons", PROTO_MAX_NAME, 0 },
    { "drain_reason", PROTO_MAX_NAME, 0 },
    { "node", PROTO_MAX_NAME, 0 },
    { "node_name", PROTO_MAX_NAME, 0 },
    { "cluster", PROTO_MAX_NAME, 0 },
    { "cluster_name", PROTO_MAX_NAME, 0 },
    { "version", PROTO_MAX_NAME, 0 },
    { "io_key", PROTO_MAX_NAME, 0 },
    { "io_host", PROTO_MAX_NAME, 0 },
    /* paths */
    { "cwd", PROTO_MAX_PATH, 0 },
    { "std_out", PROTO_MAX_PATH, 0 },
    { "std_err", PROTO_MAX_PATH, 0 },
    { "std_in", PROTO_MAX_PATH, 0 },
    { "submit_host", PROTO_MAX_NAME, 0 },
    /* a batch script, as sbatch bounds it (4 MiB) */
    { "script", PROTO_MAX_SCRIPT, 0 },
    { "script_argv", PROTO_MAX_ARG, PROTO_MAX_ARGS },
    /* what a task is started with: execve's own per-string limit */
    { "argv", PROTO_MAX_ARG, PROTO_MAX_ARGS },
    { "env", PROTO_MAX_ARG, PROTO_MAX_ARGS },
    /* credentials and node lists grow with the cluster */
    { "cred", PROTO_MAX_LONG_STR, 0 },
    { "ticket", PROTO_MAX_TOKEN, 0 },
    { "nodelist", PROTO_MAX_LONG_STR, 0 },
    { "nodelists", PROTO_MAX_LONG_STR, 0 },
    { "step_nodelist", PROTO_MAX_LONG_STR, 0 },
    { "job_nodelist", PROTO_MAX_LONG_STR, 0 },
    { "exclude", PROTO_MAX_LONG_STR, 0 },
    /* task output and stdin (chunks of 64 KiB and less) */
    { "data", PROTO_MAX_LONG_STR, 0 },
    /* the stepds' MPI exchange: a fence's gathered data */
    { "payload", PROTO_MAX_PAYLOAD, 0 },
    { "mpi", PROTO_MAX_NAME, 0 },
    /* srun -m, --multi-prog, --cpu-bind (LAUNCH, STEPD_INIT) */
    { "distribution", PROTO_MAX_NAME, 0 },
    { "multi_prog", PROTO_MAX_LONG_STR, 0 }, /* 1 MiB */
    /* the controller's state records (JOB_REC ...) */
    { "request", PROTO_MAX_LONG_STR, 0 },
    { "node_names", PROTO_MAX_NAME, 0 },
    { "events", PROTO_MAX_PATH, 0 },
    { "texts", PROTO_MAX_PATH, 0 },
    /* scontrol update JobId=: a few KEY=VALUE pairs */
    { "keys", PROTO_MAX_NAME, 32 },
    { "values", PROTO_MAX_NAME, 32 },
    /* accounting records (ACCT_REPLY): each record's encoding */
    { "jobs", PROTO_MAX_LONG_STR, 0 },
    { "steps", PROTO_MAX_LONG_STR, 0 },
};

/* field_limits' row for a field name + 1, or -1 for none. */
static int16_t field_limit_row (const char *key)
{
    for (size_t i = 0; i < sizeof (field_limits) / sizeof (field_limits[0]);
         i++)
        if (strcmp (field_limits[i].key, key) == 0)
            return (int16_t)(i + 1);
    return -1;
}

/* The limits of field fl of the message being decoded: the table is
 * searched once per field, then the descriptor remembers the row (a
 * search per string was a tenth of decoding). */
static struct field_limit field_limit (const struct dec *x,
                                       const struct field *fl)
{
    struct field_limit l = { fl->key, PROTO_MAX_STR, PROTO_MAX_LIST };
    _Atomic int16_t *slot = &x->d->limits[fl - x->d->fields];
    int16_t row = atomic_load_explicit (slot, memory_order_relaxed);

    if (row == 0) {
        row = field_limit_row (fl->key);
        atomic_store_explicit (slot, row, memory_order_relaxed);
    }
    if (row > 0) {
        l.max_len = field_limits[row - 1].max_len;
        if (field_limits[row - 1].max_count)
            l.max_count = field_limits[row - 1].max_count;
    }
    return l;
}

static int dec_fail (struct dec *x, const struct field *fl, const char *what)
{
    errno = EPROTO;
    if (fl)
        return errprintf (x->err, "%s: field '%s' %s", x->d->name, fl->key,
                          what);
    return errprintf (x->err, "%s: %s", x->d->name, what);
}

/* An integer value as int64 range [lo, hi]; uint64 values over INT64_MAX
 * only pass when hi is UINT64_MAX (handled by the caller for U64). */
static int val_uint (const struct val *v, uint64_t max, uint64_t *out)
{
    if (v->kind != VK_UINT || v->u > max)
        return -1;
    *out = v->u;
    return 0;
}

static int val_int32 (const struct val *v, int32_t *out)
{
    if (v->kind == VK_UINT && v->u <= INT32_MAX) {
        *out = (int32_t)v->u;
        return 0;
    }
    if (v->kind == VK_INT && v->i >= INT32_MIN) {
        *out = (int32_t)v->i;
        return 0;
    }
    return -1;
}

static const char *int_complaint (const struct val *v, bool is_signed)
{
    if (v->kind == VK_UINT || v->kind == VK_INT)
        return "is out of range";
    return is_signed ? "is not an integer" : "is not an unsigned integer";
}

/* A NUL-terminated copy of a str payload; NULL with *bad set if it holds
 * a NUL byte. */
static char *str_copy (const struct val *v, bool *bad)
{
    if (memchr (v->ptr, '\0', v->n)) {
        *bad = true;
        return NULL;
    }
    char *s = malloc (v->n + 1);
    if (!s)
        return NULL;
    memcpy (s, v->ptr, v->n);
    s[v->n] = '\0';
    return s;
}

/* A string of at most 'max' bytes (the field's limit, looked up once by
 * the caller: a list of strings shares one lookup). */
static int dec_str (struct dec *x, const struct field *fl, const struct val *v,
                    uint32_t max, char **out)
{
    bool bad = false;
    if (v->kind == VK_NIL) {
        *out = NULL;
        return 0;
    }
    if (v->kind != VK_STR)
        return dec_fail (x, fl, "is not a string");
    if (v->n > max) {
        char what[96];
        snprintf (what, sizeof (what), "is %llu bytes long, more than %u",
                  (unsigned long long)v->n, (unsigned)max);
        return dec_fail (x, fl, what);
    }
    if (!(*out = str_copy (v, &bad))) {
        if (bad)
            return dec_fail (x, fl, "holds a NUL byte");
        return errprintf (x->err, "%s: out of memory", x->d->name);
    }
    return 0;
}

static int dec_bin (struct dec *x, const struct field *fl, const struct val *v,
                    void *msg)
{
    char **out = FPTR (msg, fl->off, char *);
    uint32_t *len = FPTR (msg, fl->count_off, uint32_t);

    if (v->kind == VK_NIL
        || ((v->kind == VK_BIN || v->kind == VK_STR) && v->n == 0))
        return 0; /* empty: NULL, 0 */
    if (v->kind != VK_BIN && v->kind != VK_STR)
        return dec_fail (x, fl, "is not binary data");
    if (v->n > field_limit (x, fl).max_len) {
        char what[96];
        snprintf (what, sizeof (what), "is %llu bytes long, more than %u",
                  (unsigned long long)v->n,
                  (unsigned)field_limit (x, fl).max_len);
        return dec_fail (x, fl, what);
    }
    /* One spare NUL so text payloads can be used as strings. */
    if (!(*out = malloc (v->n + 1)))
        return errprintf (x->err, "%s: out of memory", x->d->name);
    memcpy (*out, v->ptr, v->n);
    (*out)[v->n] = '\0';
    *len = (uint32_t)v->n;
    return 0;
}

/* One element of a BINLIST: bin (or str) of at most 'max' bytes. */
static int dec_bin_elem (struct dec *x, const struct field *fl,
                         const struct val *v, uint32_t max,
                         struct proto_bin *out)
{
    if (v->kind != VK_BIN && v->kind != VK_STR)
        return dec_fail (x, fl, "holds non-binary data");
    if (v->n > max) {
        char what[96];
        snprintf (what, sizeof (what), "holds %llu bytes, more than %u",
                  (unsigned long long)v->n, (unsigned)max);
        return dec_fail (x, fl, what);
    }
    if (!(out->data = malloc (v->n + 1)))
        return errprintf (x->err, "%s: out of memory", x->d->name);
    memcpy (out->data, v->ptr, v->n);
    out->data[v->n] = '\0';
    out->len = (uint32_t)v->n;
    return 0;
}

static int dec_list (struct dec *x, struct cursor *c, const struct field *fl,
                     const struct val *v, void *msg)
{
    size_t esize = fl->type == FT_STRLIST   ? sizeof (char *)
                   : fl->type == FT_BINLIST ? sizeof (struct proto_bin)
                                            : 4;
    uint32_t *count = FPTR (msg, fl->count_off, uint32_t);
    void **out = FPTR (msg, fl->off, void *);

    if (v->kind == VK_NIL)
        return 0;
    if (v->kind != VK_ARRAY)
        return dec_fail (x, fl, "is not a list");
    if (v->n > cur_left (c))
        return dec_fail (x, fl, "is longer than the body");
    if (v->n == 0)
        return 0;
    struct field_limit lim = field_limit (x, fl);
    if (v->n > lim.max_count) {
        char what[96];
        snprintf (what, sizeof (what), "has %llu elements, more than %u",
                  (unsigned long long)v->n, (unsigned)lim.max_count);
        return dec_fail (x, fl, what);
    }
    if (!(*out = calloc (v->n, esize)))
        return errprintf (x->err, "%s: out of memory", x->d->name);
    for (uint64_t k = 0; k < v->n; k++) {
        struct val e;
        if (cur_next (c, &e) < 0)
            return dec_fail (x, NULL, "truncated body");
        *count = (uint32_t)k + 1; /* so proto_clear frees what is set */
        if (fl->type == FT_STRLIST) {
            if (e.kind != VK_STR)
                return dec_fail (x, fl, "holds a non-string");
            if (dec_str (x, fl, &e, lim.max_len, &((char **)*out)[k]) < 0)
                return -1;
        } else if (fl->type == FT_BINLIST) {
            if (dec_bin_elem (x, fl, &e, lim.max_len,
                              &((struct proto_bin *)*out)[k])
                < 0)
                return -1;
        } else if (fl->type == FT_U32LIST) {
            uint64_t u;
            if (val_uint (&e, UINT32_MAX, &u) < 0)
                return dec_fail (x, fl,
                                 e.kind == VK_UINT || e.kind == VK_INT
                                     ? "holds a value out of range"
                                     : "holds a non-integer");
            ((uint32_t *)*out)[k] = (uint32_t)u;
        } else if (val_int32 (&e, &((int32_t *)*out)[k]) < 0) {
            return dec_fail (x, fl,
                             e.kind == VK_UINT || e.kind == VK_INT
                                 ? "holds a value out of range"
                                 : "holds a non-integer");
        }
    }
    return 0;
}

static int dec_field (struct dec *x, struct cursor *c, const struct field *fl,
                      const struct val *v, void *msg)
{
    uint64_t u;

    switch (fl->type) {
    case FT_BOOL:
        if (v->kind != VK_BOOL)
            return dec_fail (x, fl, "is not a boolean");
        *FPTR (msg, fl->off, bool) = v->u != 0;
        return 0;
    case FT_I32:
        if (val_int32 (v, FPTR (msg, fl->off, int32_t)) < 0)
            return dec_fail (x, fl, int_complaint (v, true));
        return 0;
    case FT_U32:
    case FT_U64:
        if (val_uint (v, fl->type == FT_U32 ? UINT32_MAX : UINT64_MAX, &u) < 0)
            return dec_fail (x, fl, int_complaint (v, false));
        if (fl->type == FT_U32)
            *FPTR (msg, fl->off, uint32_t) = (uint32_t)u;
        else
            *FPTR (msg, fl->off, uint64_t) = u;
        return 0;
    case FT_STR:
        return dec_str (x, fl, v, field_limit (x, fl).max_len,
                        FPTR (msg, fl->off, char *));
    case FT_BIN: return dec_bin (x, fl, v, msg);
    default: return dec_list (x, c, fl, v, msg);
    }
}

/* The field 'key' names. Senders write the fields in table order, so
 * the search starts after the last one found. */
static const struct field *find_field (struct dec *x, const struct val *key,
                                       unsigned *idx)
{
    const struct msg_desc *d = x->d;
    unsigned i = x->next < d->nfields ? x->next : 0;

    for (unsigned k = 0; k < d->nfields;
         k++, i = i + 1 < d->nfields ? i + 1 : 0) {
        const struct field *fl = &d->fields[i];
        if (fl->keylen == key->n && !memcmp (fl->key, key->ptr, key->n)) {
            *idx = i;
            x->next = i + 1;
            return fl;
        }
    }
    return NULL;
}

/* Which fields a body has given, by index (at most PROTO_MAX_FIELDS). */
struct seen {
    uint64_t bits[PROTO_MAX_FIELDS / 64];
};

static bool seen_test_and_set (struct seen *s, unsigned idx)
{
    uint64_t bit = 1ull << (idx % 64);
    bool was = s->bits[idx / 64] & bit;

    s->bits[idx / 64] |= bit;
    return was;
}

static int dec_entry (struct dec *x, struct cursor *c, void *msg,
                      struct seen *seen)
{
    struct val key, v;
    unsigned idx;

    if (cur_next (c, &key) < 0 || cur_next (c, &v) < 0)
        return dec_fail (x, NULL, "truncated body");
    if (key.kind != VK_STR)
        return dec_fail (x, NULL, "map key is not a string");
    const struct field *fl = find_field (x, &key, &idx);
    if (!fl) { /* unknown key (a newer minor version): skip its value */
        if (cur_skip_rest (c, &v, 0) < 0)
            return dec_fail (x, NULL, "truncated or too deeply nested body");
        return 0;
    }
    if (seen_test_and_set (seen, idx))
        return dec_fail (x, fl, "appears twice");
    return dec_field (x, c, fl, &v, msg);
}

static int dec_body (struct dec *x, struct cursor *c, void *msg)
{
    struct val top;
    struct seen seen = { { 0 } };

    if (cur_next (c, &top) < 0)
        return dec_fail (
            x, NULL, top.kind == VK_BAD ? "malformed body" : "truncated body");
    if (top.kind != VK_MAP)
        return dec_fail (x, NULL, "body is not a map");
    if (top.n > cur_left (c) / 2)
        return dec_fail (x, NULL, "truncated body");
    for (uint64_t k = 0; k < top.n; k++)
        if (dec_entry (x, c, msg, &seen) < 0)
            return -1;
    if (cur_left (c))
        return dec_fail (x, NULL, "trailing bytes after the body");
    for (unsigned i = 0; i < x->d->nfields; i++) {
        if (!x->sparse && !x->d->fields[i].optional
            && !seen_test_and_set (&seen, i)) {
            errno = EPROTO;
            return errprintf (x->err, "%s: missing field '%s'", x->d->name,
                              x->d->fields[i].key);
        }
    }
    return 0;
}

static int proto_decode_as (int type, const char *buf, size_t len, void *msg,
                            bool sparse, arbor_error_t *err)
{
    struct dec x = { .d = proto_desc (type), .err = err, .sparse = sparse };
    struct cursor c = { (const unsigned char *)buf,
                        (const unsigned char *)buf + len };

    if (!x.d || !msg || (!buf && len)) {
        errno = EINVAL;
        if (!x.d)
            return errprintf (err, "unknown message type %d", type);
        return errprintf (err, "%s: invalid arguments", x.d->name);
    }
    memset (msg, 0, x.d->size);
    if (len > PROTO_MAX_BODY) {
        errno = EPROTO;
        return errprintf (err, "%s: body too large", x.d->name);
    }
    if (!buf) /* len 0: make the cursor valid */
        c.p = c.end = (const unsigned char *)"";
    if (dec_body (&x, &c, msg) < 0) {
        int e = errno == ENOMEM ? ENOMEM : EPROTO;
        proto_clear (type, msg);
        errno = e;
        return -1;
    }
    return 0;
}

int proto_decode (int type, const char *buf, size_t len, void *msg,
                  arbor_error_t *err)
{
    return proto_decode_as (type, buf, len, msg, false, err);
}

int proto_decode_sparse (int type, const char *buf, size_t len, void *msg,
                         arbor_error_t *err)
{
    return proto_decode_as (type, buf, len, msg, true, err);
}
