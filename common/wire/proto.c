/* proto.c - the message codec: structs <-> msgpack maps, driven by tables.
 *
 * proto_msgs.def is expanded once more here into one field table per
 * message ({key, type, offset, count offset}, built with offsetof) and a
 * descriptor per type (name, fields, struct size). Encoding, decoding,
 * clearing and copying are generic loops over those tables, so adding a
 * message to the .def file is all it takes.
 *
 * Encoding uses msgpack-c's packer; decoding reads the bytes with a
 * bounds-checked cursor of its own (proto_decode.c). The tables are
 * shared through proto_private.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <msgpack.h>
#include <stdatomic.h>

#include "proto.h"
#include "proto_private.h"

#define COFF_BOOL(S, n) 0
#define COFF_I32(S, n) 0
#define COFF_U32(S, n) 0
#define COFF_U64(S, n) 0
#define COFF_STR(S, n) 0
#define COFF_BIN(S, n) offsetof (S, n##_len)
#define COFF_STRLIST(S, n) offsetof (S, n##_count)
#define COFF_U32LIST(S, n) offsetof (S, n##_count)
#define COFF_I32LIST(S, n) offsetof (S, n##_count)
#define COFF_BINLIST(S, n) offsetof (S, n##_count)

/* The descriptor of 'type', or NULL. Each case declares its table in a
 * block where S names the message struct, so F() need not know it. */
const struct msg_desc *proto_desc (int type)
{
    switch (type) {
#define F(t, n) \
    { #n, sizeof (#n) - 1, FT_##t, false, offsetof (S, n), COFF_##t (S, n) },
#undef FO
#define FO(t, n) \
    { #n, sizeof (#n) - 1, FT_##t, true, offsetof (S, n), COFF_##t (S, n) },
#define MSG(id, UP, low, fields)                                               \
    case id: {                                                                 \
        typedef struct msg_##low S;                                            \
        static const struct field f[] = { fields };                            \
        static _Atomic int16_t lim[sizeof (f) / sizeof (f[0])];                \
        static const struct msg_desc d = { #UP, f, sizeof (f) / sizeof (f[0]), \
                                           sizeof (S), lim };                  \
        _Static_assert(sizeof (S) < 65536, "struct too large");                \
        _Static_assert(sizeof (f) / sizeof (f[0]) <= PROTO_MAX_FIELDS,         \
                       "many");                                                \
        return &d;                                                             \
    }
#include "proto_msgs.def"
#undef MSG
#undef F
    }
    return NULL;
}

const char *proto_msg_name (int type)
{
    const struct msg_desc *d = proto_desc (type);
    return d ? d->name : NULL;
}

bool proto_msg_known (int type)
{
    return proto_desc (type) != NULL;
}

/* ---- encode ------------------------------------------------------------ */

/* A struct that cannot be encoded (a count with a NULL pointer). */
static int invalid (void)
{
    errno = EINVAL;
    return -1;
}

static int pack_strlist (msgpack_packer *pk, char *const *v, uint32_t n)
{
    if (n && !v)
        return invalid ();
    if (msgpack_pack_array (pk, n) < 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!v[i])
            return invalid (); /* lists hold strings, never nil */
        size_t len = strlen (v[i]);
        if (msgpack_pack_str_with_body (pk, v[i], len) < 0)
            return -1;
    }
    return 0;
}

static int pack_intlist (msgpack_packer *pk, const void *v, uint32_t n,
                         bool is_signed)
{
    if (n && !v)
        return invalid ();
    if (msgpack_pack_array (pk, n) < 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        int rc = is_signed ? msgpack_pack_int32 (pk, ((const int32_t *)v)[i])
                           : msgpack_pack_uint32 (pk, ((const uint32_t *)v)[i]);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int pack_binlist (msgpack_packer *pk, const struct proto_bin *v,
                         uint32_t n)
{
    if (n && !v)
        return invalid ();
    if (msgpack_pack_array (pk, n) < 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i].len && !v[i].data)
            return invalid ();
        if (msgpack_pack_bin_with_body (pk, v[i].data, v[i].len) < 0)
            return -1;
    }
    return 0;
}

static int pack_field (msgpack_packer *pk, const struct field *fl,
                       const void *msg)
{
    uint32_t n = 0;
    if (fl->count_off)
        n = *FCPTR (msg, fl->count_off, uint32_t);

    if (msgpack_pack_str_with_body (pk, fl->key, fl->keylen) < 0)
        return -1;
    switch (fl->type) {
    case FT_BOOL:
        return *FCPTR (msg, fl->off, bool) ? msgpack_pack_true (pk)
                                           : msgpack_pack_false (pk);
    case FT_I32: return msgpack_pack_int32 (pk, *FCPTR (msg, fl->off, int32_t));
    case FT_U32:
        return msgpack_pack_uint32 (pk, *FCPTR (msg, fl->off, uint32_t));
    case FT_U64:
        return msgpack_pack_uint64 (pk, *FCPTR (msg, fl->off, uint64_t));
    case FT_STR: {
        const char *s = *FCPTR (msg, fl->off, char *);
        if (!s)
            return msgpack_pack_nil (pk);
        return msgpack_pack_str_with_body (pk, s, strlen (s));
    }
    case FT_BIN: {
        const char *b = *FCPTR (msg, fl->off, char *);
        if (n && !b)
            return invalid ();
        return msgpack_pack_bin_with_body (pk, b, n);
    }
    case FT_STRLIST: return pack_strlist (pk, *FCPTR (msg, fl->off, strv), n);
    case FT_U32LIST:
        return pack_intlist (pk, *FCPTR (msg, fl->off, uint32_t *), n, false);
    case FT_I32LIST:
        return pack_intlist (pk, *FCPTR (msg, fl->off, int32_t *), n, true);
    case FT_BINLIST:
        return pack_binlist (pk, *FCPTR (msg, fl->off, struct proto_bin *), n);
    }
    return -1;
}

/* The sbuffer's data, in a block of its own size: its first allocation
 * is 8 KiB, and an encoded message may be kept long (a job's request
 * until the job is purged: 8 KiB each for 200 bytes, 80 MB for 10,000
 * finished jobs). A copy, not a shrink in place: the whole 8 KiB block
 * goes back to be the next encoding's, where a shrink would leave holes
 * too small for it between the kept messages. */
static char *proto_fit (msgpack_sbuffer *sb)
{
    size_t used = sb->size, room = sb->alloc;
    char *data = msgpack_sbuffer_release (sb);
    char *fit;

    if (!data || used + 256 >= room || !(fit = malloc (used ? used : 1)))
        return data;
    memcpy (fit, data, used);
    free (data);
    return fit;
}

/* Does field fl hold nothing (false, 0, NULL or "", no elements)? */
static bool field_is_zero (const struct field *fl, const void *msg)
{
    switch (fl->type) {
    case FT_BOOL: return !*FCPTR (msg, fl->off, bool);
    case FT_I32: return *FCPTR (msg, fl->off, int32_t) == 0;
    case FT_U32: return *FCPTR (msg, fl->off, uint32_t) == 0;
    case FT_U64: return *FCPTR (msg, fl->off, uint64_t) == 0;
    case FT_STR: {
        const char *str = *FCPTR (msg, fl->off, char *);
        return !str || !*str;
    }
    default: /* BIN and lists: their count */
        return *FCPTR (msg, fl->count_off, uint32_t) == 0;
    }
}

static int proto_encode_fields (int type, const void *msg, bool sparse,
                                char **buf, size_t *len)
{
    const struct msg_desc *d = proto_desc (type);
    msgpack_sbuffer sb;
    msgpack_packer pk;
    uint32_t n = 0;

    if (!d || !msg || !buf || !len) {
        errno = EINVAL;
        return -1;
    }
    for (unsigned i = 0; i < d->nfields; i++)
        n += !sparse || !field_is_zero (&d->fields[i], msg);
    errno = 0;
    msgpack_sbuffer_init (&sb);
    msgpack_packer_init (&pk, &sb, msgpack_sbuffer_write);
    if (msgpack_pack_map (&pk, n) < 0)
        goto fail;
    for (unsigned i = 0; i < d->nfields; i++)
        if ((!sparse || !field_is_zero (&d->fields[i], msg))
            && pack_field (&pk, &d->fields[i], msg) < 0)
            goto fail;
    if (sb.size > PROTO_MAX_BODY) {
        msgpack_sbuffer_destroy (&sb);
        errno = EMSGSIZE;
        return -1;
    }
    *len = sb.size;
    *buf = proto_fit (&sb);
    return 0;
fail:
    /* pack_* set EINVAL for a NULL list entry; the sbuffer fails only on
     * allocation. */
    if (errno != EINVAL)
        errno = ENOMEM;
    msgpack_sbuffer_destroy (&sb);
    return -1;
}

int proto_encode (int type, const void *msg, char **buf, size_t *len)
{
    return proto_encode_fields (type, msg, false, buf, len);
}

int proto_encode_sparse (int type, const void *msg, char **buf, size_t *len)
{
    return proto_encode_fields (type, msg, true, buf, len);
}

/* ---- clear and copy ------------------------------------------------------ */

void proto_clear (int type, void *msg)
{
    const struct msg_desc *d = proto_desc (type);
    int saved = errno;

    if (!d || !msg)
        return;
    for (unsigned i = 0; i < d->nfields; i++) {
        const struct field *fl = &d->fields[i];
        if (fl->type == FT_STRLIST) {
            char **v = *FPTR (msg, fl->off, char **);
            uint32_t n = *FPTR (msg, fl->count_off, uint32_t);
            for (uint32_t k = 0; v && k < n; k++)
                free (v[k]);
            free (v);
        } else if (fl->type == FT_BINLIST) {
            struct proto_bin *v = *FPTR (msg, fl->off, struct proto_bin *);
            uint32_t n = *FPTR (msg, fl->count_off, uint32_t);
            for (uint32_t k = 0; v && k < n; k++)
                free (v[k].data);
            free (v);
        } else if (fl->type >= FT_STR) {
            free (*FPTR (msg, fl->off, void *));
        }
    }
    memset (msg, 0, d->size);
    errno = saved;
}

void proto_bins_free (struct proto_bin *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free (v[i].data);
    free (v);
}

static void *mem_dup (const void *p, size_t len)
{
    void *q = malloc (len ? len : 1);
    if (q && len)
        memcpy (q, p, len);
    return q;
}

static int copy_field (const struct field *fl, const void *src, void *dst)
{
    const void *sp = *FCPTR (src, fl->off, void *);
    void **dp = FPTR (dst, fl->off, void *);
    uint32_t n = fl->count_off ? *FCPTR (src, fl->count_off, uint32_t) : 0;

    if (!sp)
        return 0;
    switch (fl->type) {
    case FT_STR: return (*dp = strdup (sp)) ? 0 : -1;
    case FT_BIN: /* keep the spare NUL proto_decode adds */
        if (!(*dp = malloc ((size_t)n + 1)))
            return -1;
        memcpy (*dp, sp, n);
        ((char *)*dp)[n] = '\0';
        return 0;
    case FT_U32LIST:
    case FT_I32LIST: return (*dp = mem_dup (sp, (size_t)n * 4)) ? 0 : -1;
    case FT_STRLIST: {
        char *const *sv = sp;
        char **dv = calloc (n ? n : 1, sizeof (char *));
        if (!(*dp = dv))
            return -1;
        for (uint32_t k = 0; k < n; k++) {
            *FPTR (dst, fl->count_off, uint32_t) = k + 1;
            if (sv[k] && !(dv[k] = strdup (sv[k])))
                return -1;
        }
        return 0;
    }
    case FT_BINLIST: {
        const struct proto_bin *sv = sp;
        struct proto_bin *dv = calloc (n ? n : 1, sizeof (*dv));
        if (!(*dp = dv))
            return -1;
        for (uint32_t k = 0; k < n; k++) {
            *FPTR (dst, fl->count_off, uint32_t) = k + 1;
            if (sv[k].data && !(dv[k].data = malloc ((size_t)sv[k].len + 1)))
                return -1;
            if (sv[k].data) {
                memcpy (dv[k].data, sv[k].data, sv[k].len);
                dv[k].data[sv[k].len] = '\0';
            }
            dv[k].len = sv[k].len;
        }
        return 0;
    }
    }
    return 0;
}

int proto_copy (int type, const void *src, void *dst)
{
    const struct msg_desc *d = proto_desc (type);

    if (!d || !src || !dst) {
        errno = EINVAL;
        return -1;
    }
    /* Scalars and counts come with the struct copy; pointers are then
     * replaced one by one (string list counts grow with them), so that a
     * failure leaves dst safe to clear. */
    memcpy (dst, src, d->size);
    for (unsigned i = 0; i < d->nfields; i++) {
        const struct field *fl = &d->fields[i];
        if (fl->type >= FT_STR)
            *FPTR (dst, fl->off, void *) = NULL;
        if (fl->type == FT_STRLIST || fl->type == FT_BINLIST)
            *FPTR (dst, fl->count_off, uint32_t) = 0;
    }
    for (unsigned i = 0; i < d->nfields; i++) {
        const struct field *fl = &d->fields[i];
        if (fl->type >= FT_STR && copy_field (fl, src, dst) < 0) {
            proto_clear (type, dst);
            errno = ENOMEM;
            return -1;
        }
        if (fl->type == FT_STRLIST || fl->type == FT_BINLIST)
            *FPTR (dst, fl->count_off, uint32_t) =
                *FCPTR (src, fl->count_off, uint32_t);
    }
    return 0;
}

/* Bytes of one element of a list field, 0 for other types. */
static size_t list_elem_size (uint8_t type)
{
    switch (type) {
    case FT_STRLIST: return sizeof (char *);
    case FT_U32LIST: return sizeof (uint32_t);
    case FT_I32LIST: return sizeof (int32_t);
    case FT_BINLIST: return sizeof (struct proto_bin);
    default: return 0;
    }
}

int proto_append (int type, void *dst, void *src)
{
    const struct msg_desc *d = proto_desc (type);

    if (!d || !src || !dst) {
        errno = EINVAL;
        return -1;
    }
    /* Grow every list of dst first (its counts unchanged), so that a
     * failure leaves both messages as they were; moving cannot fail. */
    for (unsigned i = 0; i < d->nfields; i++) {
        const struct field *fl = &d->fields[i];
        size_t es = list_elem_size (fl->type);
        uint64_t n;
        void **dp, *grown;
        if (!es)
            continue;
        dp = FPTR (dst, fl->off, void *);
        n = (uint64_t)*FPTR (dst, fl->count_off, uint32_t)
            + *FPTR (src, fl->count_off, uint32_t);
        if (n > UINT32_MAX) {
            errno = EOVERFLOW;
            return -1;
        }
        if (!(grown = realloc (*dp, (size_t)(n ? n : 1) * es))) {
            errno = ENOMEM;
            return -1;
        }
        *dp = grown;
    }
    for (unsigned i = 0; i < d->nfields; i++) {
        const struct field *fl = &d->fields[i];
        size_t es = list_elem_size (fl->type);
        uint32_t *dn, *sn;
        void **sp;
        if (!es)
            continue;
        dn = FPTR (dst, fl->count_off, uint32_t);
        sn = FPTR (src, fl->count_off, uint32_t);
        sp = FPTR (src, fl->off, void *);
        if (*sn)
            memcpy ((char *)*FPTR (dst, fl->off, void *) + (size_t)*dn * es,
                    *sp, (size_t)*sn * es);
        *dn += *sn;
        free (*sp);
        *sp = NULL;
        *sn = 0;
    }
    return 0;
}
