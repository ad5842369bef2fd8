/* json_doc.c - the common parts of the --json documents; see json_doc.h.
 */
#define _GNU_SOURCE
#include <errno.h>
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

int json_doc_write (const json_t *doc, FILE *f)
{
    errno = 0;
    if (json_dumpf (doc, f, JSON_INDENT (2) | JSON_PRESERVE_ORDER) < 0
        || fputc ('\n', f) == EOF) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}
