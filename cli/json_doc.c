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

static int json_buf_add (const char *s, size_t n, void *arg)
{
    struct json_buf *b = arg;

    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        char *p;
        while (cap < b->len + n + 1)
            cap *= 2;
        if (!(p = realloc (b->p, cap)))
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy (b->p + b->len, s, n);
    b->len += n;
    return 0;
}

/* One value on one line, members in the order set. */
static int json_buf_value (struct json_buf *b, const json_t *v)
{
    return json_dump_callback (v, json_buf_add, b,
                               JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
}

/* "key": */
static int json_buf_key (struct json_buf *b, const char *key)
{
    json_t *k = json_string (key);
    int rc = !k || json_buf_value (b, k) < 0 || json_buf_add (": ", 2, b) < 0;

    json_decref (k);
    return rc ? -1 : 0;
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
