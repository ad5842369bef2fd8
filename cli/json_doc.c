/* json_doc.c - the common parts of the --json documents; see json_doc.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json_doc.h"

json_t *json_doc_text (const char *s)
{
    json_t *v;
    char *copy;

    if (!s)
        s = "";
    if ((v = json_string (s)))
        return v;
    if (!(copy = strdup (s)))
        return NULL;
    for (char *p = copy; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    v = json_string (copy);
    free (copy);
    return v;
}

json_t *json_doc_time (uint64_t t)
{
    return t ? json_integer ((json_int_t)t) : json_null ();
}

json_t *json_doc_create (const char *schema, int version, const char *list_name,
                         json_t **list)
{
    json_t *doc;

    *list = json_array ();
    doc = json_pack ("{s:s,s:i,s:o}", "schema", schema, "version", version,
                     list_name, *list);
    if (!doc) {
        *list = NULL;
        errno = ENOMEM;
    }
    return doc;
}

/* The document's text, grown as jansson's dump hands it over. */
struct json_buf {
    char *p;
    size_t len, cap;
};

/* Room for n more bytes (and a NUL): 0, or -1 out of memory. */
static int json_buf_grow (struct json_buf *b, size_t n)
{
    size_t cap = b->cap ? b->cap : 1 << 16;
    char *p;

    while (cap < b->len + n + 1)
        cap *= 2;
    if (!(p = realloc (b->p, cap)))
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

/* Called for every token: the room check inline, growing aside. */
static inline int json_buf_add (const char *s, size_t n, void *arg)
{
    struct json_buf *b = arg;

    if (b->len + n + 1 > b->cap && json_buf_grow (b, n) < 0)
        return -1;
    memcpy (b->p + b->len, s, n);
    b->len += n;
    return 0;
}

/* A string as JSON: bytes from ' ' to '~' other than '"' and '\\' stand
 * for themselves, and most of our text (names, states, node lists) is
 * only those, so it is copied as it is. Anything else (escapes, UTF-8)
 * is jansson's to encode. */
static bool json_plain (const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
            return false;
    }
    return true;
}

static int json_buf_jansson (struct json_buf *b, const json_t *v)
{
    return json_dump_callback (v, json_buf_add, b,
                               JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
}

static int json_buf_string (struct json_buf *b, const char *s, size_t n)
{
    json_t *v;
    int rc;

    if (json_plain (s, n))
        return json_buf_add ("\"", 1, b) | json_buf_add (s, n, b)
               | json_buf_add ("\"", 1, b);
    if (!(v = json_stringn_nocheck (s, n)))
        return -1;
    rc = json_buf_jansson (b, v);
    json_decref (v);
    return rc;
}

static int json_buf_integer (struct json_buf *b, json_int_t i)
{
    char d[24], *p = d + sizeof (d);
    /* as unsigned, so that the most negative value has a magnitude */
    unsigned long long u =
        i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;

    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10));
    if (i < 0)
        *--p = '-';
    return json_buf_add (p, (size_t)(d + sizeof (d) - p), b);
}

static int json_buf_value (struct json_buf *b, const json_t *v);

/* {"k": v, "k2": v2}, members in the order set, as jansson writes it. */
static int json_buf_object (struct json_buf *b, const json_t *o)
{
    size_t n = 0;
    int rc = json_buf_add ("{", 1, b);

    for (void *it = json_object_iter ((json_t *)o); rc == 0 && it;
         it = json_object_iter_next ((json_t *)o, it)) {
        const char *k = json_object_iter_key (it);
        rc = (n++ ? json_buf_add (", ", 2, b) : 0)
             | json_buf_string (b, k, json_object_iter_key_len (it))
             | json_buf_add (": ", 2, b)
             | json_buf_value (b, json_object_iter_value (it));
    }
    return rc | json_buf_add ("}", 1, b);
}

static int json_buf_array (struct json_buf *b, const json_t *a)
{
    int rc = json_buf_add ("[", 1, b);

    for (size_t i = 0; rc == 0 && i < json_array_size (a); i++)
        rc = (i ? json_buf_add (", ", 2, b) : 0)
             | json_buf_value (b, json_array_get (a, i));
    return rc | json_buf_add ("]", 1, b);
}

/* One value on one line, members in the order set: the text jansson's
 * json_dump_callback makes with JSON_PRESERVE_ORDER, written here for
 * the common kinds of value because jansson's own dump was two thirds
 * of a --json listing's time (json_doc_test holds the two equal). */
static int json_buf_value (struct json_buf *b, const json_t *v)
{
    switch (json_typeof (v)) {
    case JSON_OBJECT: return json_buf_object (b, v);
    case JSON_ARRAY: return json_buf_array (b, v);
    case JSON_STRING:
        return json_buf_string (b, json_string_value (v),
                                json_string_length (v));
    case JSON_INTEGER: return json_buf_integer (b, json_integer_value (v));
    case JSON_TRUE: return json_buf_add ("true", 4, b);
    case JSON_FALSE: return json_buf_add ("false", 5, b);
    case JSON_NULL: return json_buf_add ("null", 4, b);
    default: return json_buf_jansson (b, v); /* reals */
    }
}

/* "key": */
static int json_buf_key (struct json_buf *b, const char *key)
{
    return json_buf_string (b, key, strlen (key)) | json_buf_add (": ", 2, b);
}

/* "key": value, a list one item a line. */
static int json_buf_member (struct json_buf *b, const char *key,
                            const json_t *v)
{
    if (json_buf_key (b, key) < 0)
        return -1;
    if (!json_is_array (v) || json_array_size (v) == 0)
        return json_buf_value (b, v);
    for (size_t i = 0; i < json_array_size (v); i++)
        if (json_buf_add (i ? ",\n" : "[\n", 2, b) < 0
            || json_buf_value (b, json_array_get (v, i)) < 0)
            return -1;
    return json_buf_add ("\n]", 2, b);
}

int json_doc_write (const json_t *doc, FILE *f)
{
    struct json_buf b = { NULL, 0, 0 };
    const char *key;
    size_t n = 0;
    int rc = json_buf_add ("{", 1, &b);

    for (void *it = json_object_iter ((json_t *)doc); rc == 0 && it;
         it = json_object_iter_next ((json_t *)doc, it)) {
        key = json_object_iter_key (it);
        rc = (n++ && json_buf_add (", ", 2, &b) < 0)
             || json_buf_member (&b, key, json_object_iter_value (it)) < 0;
    }
    if (rc || json_buf_add ("}\n", 2, &b) < 0) {
        free (b.p);
        errno = ENOMEM;
        return -1;
    }
    errno = 0;
    rc = fwrite (b.p, 1, b.len, f) == b.len ? 0 : -1;
    free (b.p);
    if (rc < 0 && !errno)
        errno = EIO;
    return rc;
}

/* ---- streamed documents ------------------------------------------------- */

struct json_stream {
    struct json_buf b;
    size_t n; /* records added */
    bool failed;
};

struct json_stream *json_stream_create (const char *schema, int version,
                                        const char *list)
{
    struct json_stream *s = calloc (1, sizeof (*s));
    json_t *name = json_string (schema), *v = json_integer (version);

    if (!s || !name || !v || json_buf_add ("{", 1, &s->b) < 0
        || json_buf_member (&s->b, "schema", name) < 0
        || json_buf_add (", ", 2, &s->b) < 0
        || json_buf_member (&s->b, "version", v) < 0
        || json_buf_add (", ", 2, &s->b) < 0 || json_buf_key (&s->b, list) < 0
        || json_buf_add ("[", 1, &s->b) < 0) {
        json_stream_destroy (s);
        s = NULL;
        errno = ENOMEM;
    }
    json_decref (name);
    json_decref (v);
    return s;
}

int json_stream_add (struct json_stream *s, json_t *rec)
{
    const char *sep = s->n++ ? ",\n" : "\n";

    if (!rec || json_buf_add (sep, strlen (sep), &s->b) < 0
        || json_buf_value (&s->b, rec) < 0)
        s->failed = true;
    json_decref (rec);
    if (s->failed)
        errno = ENOMEM;
    return s->failed ? -1 : 0;
}

int json_stream_write (struct json_stream *s, FILE *f)
{
    const char *end = s->n ? "\n]}\n" : "]}\n";
    size_t len;

    if (s->failed || json_buf_add (end, strlen (end), &s->b) < 0) {
        errno = ENOMEM;
        return -1;
    }
    len = s->b.len;
    s->b.len -= strlen (end); /* records may still be added */
    errno = 0;
    if (fwrite (s->b.p, 1, len, f) != len) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}

void json_stream_destroy (struct json_stream *s)
{
    int e = errno;

    if (!s)
        return;
    free (s->b.p);
    free (s);
    errno = e;
}
