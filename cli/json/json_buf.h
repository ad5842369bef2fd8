/* json_buf.h - the text of a --json document as it is written: a
 * growing buffer, and values written into it in jansson's layout (one
 * line, ", " between items, ": " after keys). Private to json_doc.c and
 * json_stream.c.
 */
#ifndef ARBOR_CLI_JSON_BUF_H
#define ARBOR_CLI_JSON_BUF_H

#include <stddef.h>
#include <string.h>

#include <jansson.h>

struct json_buf {
    char *p;
    size_t len, cap;
};

/* Room for n more bytes (and a NUL): 0, or -1 out of memory. */
int json_buf_grow (struct json_buf *b, size_t n);

/* Append n bytes: 0, or -1 out of memory. Called for every token, so the
 * room check is inline and growing aside. 'arg' is the json_buf (the
 * shape of jansson's dump callback). */
static inline int json_buf_add (const char *s, size_t n, void *arg)
{
    struct json_buf *b = arg;

    if (b->len + n + 1 > b->cap && json_buf_grow (b, n) < 0)
        return -1;
    memcpy (b->p + b->len, s, n);
    b->len += n;
    return 0;
}

/* Each: 0, or -1 (out of memory, or text jansson cannot encode). */
int json_buf_string (struct json_buf *b, const char *s, size_t n);
int json_buf_integer (struct json_buf *b, json_int_t i);
int json_buf_value (struct json_buf *b, const json_t *v);
/* "key": , for one of our member names (plain ASCII: not escaped) */
int json_buf_key (struct json_buf *b, const char *key);

#endif
