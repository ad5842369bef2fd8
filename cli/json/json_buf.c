/* json_buf.c - --json text written from jansson values; see json_buf.h.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "json_buf.h"

/* Room for n more bytes (and a NUL): 0, or -1 out of memory. */
int json_buf_grow (struct json_buf *b, size_t n)
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

int json_buf_string (struct json_buf *b, const char *s, size_t n)
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

int json_buf_integer (struct json_buf *b, json_int_t i)
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
int json_buf_value (struct json_buf *b, const json_t *v)
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

int json_buf_key (struct json_buf *b, const char *key)
{
    size_t n = strlen (key);

    if (b->len + n + 5 > b->cap && json_buf_grow (b, n + 4) < 0)
        return -1;
    b->p[b->len] = '"';
    memcpy (b->p + b->len + 1, key, n);
    memcpy (b->p + b->len + 1 + n, "\": ", 3);
    b->len += n + 4;
    return 0;
}
