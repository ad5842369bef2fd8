/* licspec.c - license lists: parse, print, copy. See licspec.h.
 *
 * The parser is a loop over items cut at the list's separator; each
 * item is a name and an optional ":count". Everything a user or an
 * administrator can get wrong is refused naming the item, so that a
 * mistake in a script or in arbor.conf is found where it was made.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "licspec.h"

/* The separator of 's': ',' or '|' (',' when it has neither); -1 with
 * err when both appear. */
static int licspec_sep (const char *s, arbor_error_t *err)
{
    bool all = strchr (s, ',') != NULL, any = strchr (s, '|') != NULL;

    if (all && any) {
        errno = EINVAL;
        return errprintf (err,
                          "'%.80s': ',' (all of) and '|' (any one of) "
                          "cannot be mixed",
                          s);
    }
    return any ? '|' : ',';
}

static bool licspec_name_ok (const char *name, size_t len)
{
    if (len == 0 || len > LICSPEC_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!isgraph (c) || c == '=')
            return false;
    }
    return true;
}

/* ":count" after a name, up to 'end'. */
static int licspec_count (const char *s, const char *end, enum licspec_use use,
                          uint32_t *out)
{
    uint64_t v = 0;

    if (s == end)
        return -1;
    for (const char *p = s; p < end; p++) {
        if (!isdigit ((unsigned char)*p))
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > LICSPEC_COUNT_MAX)
            return -1;
    }
    if (v == 0 && use == LICSPEC_JOB)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Index of 'name' among the first n items, or -1. */
static long licspec_find (const struct licspec *s, const char *name, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen (s->items[i].name) == len
            && !memcmp (s->items[i].name, name, len))
            return (long)i;
    return -1;
}

/* One item, [s, end): a new entry of l, or added to its earlier one. */
static int licspec_item (struct licspec *l, const char *s, const char *end,
                         enum licspec_use use, arbor_error_t *err)
{
    const char *colon = memchr (s, ':', (size_t)(end - s));
    size_t len = colon ? (size_t)(colon - s) : (size_t)(end - s);
    uint32_t count = 1;
    long i;

    errno = EINVAL;
    if (!licspec_name_ok (s, len))
        return errprintf (err,
                          "'%.*s': a license name is 1 to %d printable "
                          "characters, without ',', '|', ':' or '='",
                          (int)(end - s > 80 ? 80 : end - s), s,
                          LICSPEC_NAME_MAX);
    if (colon && licspec_count (colon + 1, end, use, &count) < 0)
        return errprintf (err,
                          "'%.*s': the count must be a number from %d "
                          "to %d",
                          (int)(end - s > 80 ? 80 : end - s), s,
                          use == LICSPEC_JOB ? 1 : 0, LICSPEC_COUNT_MAX);
    if ((i = licspec_find (l, s, len)) >= 0 && !l->any) {
        if (use == LICSPEC_CONF)
            return errprintf (err, "license '%.*s' is listed twice", (int)len,
                              s);
        if (l->items[i].count + (uint64_t)count > LICSPEC_COUNT_MAX)
            return errprintf (err, "license '%.*s': more than %d in all",
                              (int)len, s, LICSPEC_COUNT_MAX);
        l->items[i].count += count;
        return 0;
    }
    if (l->n == LICSPEC_MAX)
        return errprintf (err, "more than %d licenses", LICSPEC_MAX);
    if (!(l->items[l->n].name = strndup (s, len))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    l->items[l->n++].count = count;
    return 0;
}

int licspec_parse (const char *s, enum licspec_use use, struct licspec *out,
                   arbor_error_t *err)
{
    struct licspec l = { 0 };
    int sep;

    if (!s || !*s) {
        *out = l;
        return 0;
    }
    if ((sep = licspec_sep (s, err)) < 0)
        return -1;
    if (sep == '|' && use == LICSPEC_CONF) {
        errno = EINVAL;
        return errprintf (err,
                          "'%.80s': '|' (any one of) is for job "
                          "requests, not a list of licenses",
                          s);
    }
    if (!(l.items = calloc (LICSPEC_MAX, sizeof (*l.items)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    l.any = sep == '|';
    for (const char *p = s;; p++) {
        const char *end = strchr (p, sep);
        if (!end)
            end = p + strlen (p);
        if (licspec_item (&l, p, end, use, err) < 0) {
            licspec_clear (&l);
            return -1;
        }
        if (!*end)
            break;
        p = end;
    }
    *out = l;
    return 0;
}

char *licspec_text (const struct licspec *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);

    if (!f)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        fprintf (f, "%s%s:%u", i ? (s->any ? "|" : ",") : "", s->items[i].name,
                 s->items[i].count);
    if (fclose (f) != 0) {
        free (buf);
        errno = ENOMEM;
        return NULL;
    }
    return buf;
}

int licspec_copy (struct licspec *dst, const struct licspec *src)
{
    struct licspec l = { .n = 0, .any = src->any };

    if (!(l.items = calloc (src->n + 1, sizeof (*l.items))))
        return -1;
    for (; l.n < src->n; l.n++) {
        l.items[l.n].count = src->items[l.n].count;
        if (!(l.items[l.n].name = strdup (src->items[l.n].name))) {
            licspec_clear (&l);
            errno = ENOMEM;
            return -1;
        }
    }
    *dst = l;
    return 0;
}

void licspec_clear (struct licspec *s)
{
    int saved = errno;

    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free (s->items[i].name);
    free (s->items);
    memset (s, 0, sizeof (*s));
    errno = saved;
}

size_t licspec_choices (const struct licspec *s)
{
    if (s->any)
        return s->n;
    return s->n ? 1 : 0;
}

void licspec_choice (const struct licspec *s, size_t k, size_t *first,
                     size_t *count)
{
    *first = s->any ? k : 0;
    *count = s->any ? 1 : s->n;
}
