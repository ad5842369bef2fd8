/* json_stream.c - --json documents of one list, written as their
 * records are made; see json_stream.h.
 *
 * A record is either a jansson tree (json_stream_add) or written member
 * by member (json_put_*), which makes no tree at all: for the long
 * listings (queue, acct) building and freeing jansson's objects cost
 * more than writing their text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json_buf.h"
#include "json_doc.h"
#include "json_stream.h"

#define JSON_PUT_DEPTH 8 /* the list, a record, and lists in it */

struct json_stream {
    struct json_buf b;
    size_t n;                     /* records added */
    size_t items[JSON_PUT_DEPTH]; /* written so far at each open level */
    int depth;                    /* 0: in the list of records */
    bool failed;
};

struct json_stream *json_stream_create (const char *schema, int version,
                                        const char *list)
{
    struct json_stream *s = calloc (1, sizeof (*s));

    if (!s || json_buf_add ("{", 1, &s->b) < 0
        || json_buf_key (&s->b, "schema") < 0
        || json_buf_string (&s->b, schema, strlen (schema)) < 0
        || json_buf_add (", ", 2, &s->b) < 0
        || json_buf_key (&s->b, "version") < 0
        || json_buf_integer (&s->b, version) < 0
        || json_buf_add (", ", 2, &s->b) < 0 || json_buf_key (&s->b, list) < 0
        || json_buf_add ("[", 1, &s->b) < 0) {
        json_stream_destroy (s);
        errno = ENOMEM;
        return NULL;
    }
    return s;
}

/* The separator before the next record. */
static int json_stream_next (struct json_stream *s)
{
    return s->n++ ? json_buf_add (",\n", 2, &s->b)
                  : json_buf_add ("\n", 1, &s->b);
}

int json_stream_add (struct json_stream *s, json_t *rec)
{
    if (!rec || s->depth != 0 || json_stream_next (s) < 0
        || json_buf_value (&s->b, rec) < 0)
        s->failed = true;
    json_decref (rec);
    if (s->failed)
        errno = ENOMEM;
    return s->failed ? -1 : 0;
}

/* ---- records written member by member ---------------------------------- */

/* What comes before a value: the separator from the one before it, and
 * "key": in an object (key NULL: an item of a list). */
static void json_put_lead (struct json_stream *s, const char *key)
{
    int rc;

    if (s->depth == 0) {
        rc = json_stream_next (s);
    } else {
        rc = s->items[s->depth]++ ? json_buf_add (", ", 2, &s->b) : 0;
        if (key)
            rc |= json_buf_key (&s->b, key);
    }
    s->failed |= rc != 0;
}

static void json_put_raw (struct json_stream *s, const char *key,
                          const char *text, size_t n)
{
    json_put_lead (s, key);
    s->failed |= json_buf_add (text, n, &s->b) != 0;
}

void json_put_int (struct json_stream *s, const char *key, json_int_t v)
{
    json_put_lead (s, key);
    s->failed |= json_buf_integer (&s->b, v) != 0;
}

void json_put_null (struct json_stream *s, const char *key)
{
    json_put_raw (s, key, "null", 4);
}

void json_put_bool (struct json_stream *s, const char *key, bool v)
{
    if (v)
        json_put_raw (s, key, "true", 4);
    else
        json_put_raw (s, key, "false", 5);
}

void json_put_time (struct json_stream *s, const char *key, uint64_t t)
{
    if (t)
        json_put_int (s, key, (json_int_t)t);
    else
        json_put_null (s, key);
}

void json_put_text (struct json_stream *s, const char *key, const char *text)
{
    size_t mark;
    json_t *v;

    if (!text)
        text = "";
    json_put_lead (s, key);
    /* Plain text is copied and the rest encoded by jansson, which stops
     * at bytes that are not UTF-8 (a job name is only bytes): then
     * json_doc_text's '?'s, in place of what it began. */
    mark = s->b.len;
    if (json_buf_string (&s->b, text, strlen (text)) == 0)
        return;
    s->b.len = mark;
    v = json_doc_text (text);
    s->failed |= !v || json_buf_value (&s->b, v) != 0;
    json_decref (v);
}

static void json_put_open (struct json_stream *s, const char *key,
                           const char *bracket)
{
    json_put_raw (s, key, bracket, 1);
    if (s->depth + 1 >= JSON_PUT_DEPTH) {
        s->failed = true; /* our documents are never this deep */
        return;
    }
    s->items[++s->depth] = 0;
}

static void json_put_close (struct json_stream *s, const char *bracket)
{
    if (s->depth == 0) {
        s->failed = true;
        return;
    }
    s->depth--;
    s->failed |= json_buf_add (bracket, 1, &s->b) != 0;
}

void json_put_object (struct json_stream *s, const char *key)
{
    json_put_open (s, key, "{");
}

void json_put_object_end (struct json_stream *s)
{
    json_put_close (s, "}");
}

void json_put_list (struct json_stream *s, const char *key)
{
    json_put_open (s, key, "[");
}

void json_put_list_end (struct json_stream *s)
{
    json_put_close (s, "]");
}

/* ---- the document ------------------------------------------------------ */

int json_stream_write (struct json_stream *s, FILE *f)
{
    const char *end = s->n ? "\n]}\n" : "]}\n";
    size_t len;

    if (s->failed || s->depth != 0
        || json_buf_add (end, strlen (end), &s->b) < 0) {
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
