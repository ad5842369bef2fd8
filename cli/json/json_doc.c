/* json_doc.c - the common parts of the --json documents; see json_doc.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json_buf.h"
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
