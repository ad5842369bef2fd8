/* gresalloc.c - what a job or step holds on one node; see gresalloc.h.
 * The parser cuts items at ';' and each item's list at ','; every number
 * is checked against the bounds before it is used, so a damaged text
 * costs nothing and is named in the error. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gresalloc.h"

static int fail (arbor_error_t *err, const char *s, const char *what)
{
    errno = EINVAL;
    if (strlen (s) > 60)
        return errprintf (err, "invalid resources: %s", what);
    return errprintf (err, "invalid resources \"%s\": %s", s, what);
}

/* A decimal number of at most 'max' at *p (advanced). */
static int number (const char **p, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    const char *s = *p;

    if (!isdigit ((unsigned char)*s))
        return -1;
    while (isdigit ((unsigned char)*s)) {
        v = v * 10 + (uint64_t)(*s++ - '0');
        if (v > max)
            return -1;
    }
    *p = s;
    *out = v;
    return 0;
}

/* "0-1,3" up to the item's end into it's bits. */
static int indices (const char *p, const char *end, struct gresalloc_item *it)
{
    while (p < end) {
        uint64_t lo, hi;
        if (number (&p, GRESALLOC_IDX_MAX - 1, &lo) < 0)
            return -1;
        hi = lo;
        if (*p == '-' && (p++, number (&p, GRESALLOC_IDX_MAX - 1, &hi) < 0))
            return -1;
        if (hi < lo || (p < end && *p != ','))
            return -1;
        for (uint64_t i = lo; i <= hi; i++)
            gresalloc_set (it, (uint32_t)i);
        if (p < end && ++p == end)
            return -1; /* a trailing ',' */
    }
    return 0;
}

static int item (const char *s, const char *p, const char *end,
                 struct gresalloc *out, arbor_error_t *err)
{
    size_t len = strcspn (p, "=*;");
    struct gresalloc_item *it;
    uint64_t count;

    if (len == 0 || len > GRESALLOC_NAME_MAX || p + len >= end)
        return fail (err, s, "NAME=INDICES or NAME*COUNT expected");
    for (size_t i = 0; i < len; i++)
        if (!isalnum ((unsigned char)p[i]) && p[i] != '_')
            return fail (err, s, "a bad resource name");
    if (out->n == GRESALLOC_MAX)
        return fail (err, s, "too many resources");
    it = &out->v[out->n];
    memcpy (it->name, p, len);
    for (size_t k = 0; k < out->n; k++)
        if (!strcmp (out->v[k].name, it->name))
            return fail (err, s, "a resource named twice");
    out->n++;
    it->indexed = p[len] == '=';
    p += len + 1;
    if (it->indexed)
        return indices (p, end, it) < 0 || it->count == 0
                   ? fail (err, s, "bad indices")
                   : 0;
    if (number (&p, UINT64_MAX / 2, &count) < 0 || p != end || count == 0)
        return fail (err, s, "bad count");
    it->count = count;
    return 0;
}

int gresalloc_parse (const char *s, struct gresalloc *out, arbor_error_t *err)
{
    memset (out, 0, sizeof (*out));
    if (!s || !*s)
        return 0;
    if (strlen (s) > GRESALLOC_TEXT_MAX)
        return fail (err, s, "too long");
    for (const char *p = s; *p;) {
        const char *end = p + strcspn (p, ";");
        if (item (s, p, end, out, err) < 0) {
            memset (out, 0, sizeof (*out));
            return -1;
        }
        p = *end ? end + 1 : end;
        if (*end && !*p) {
            memset (out, 0, sizeof (*out));
            return fail (err, s, "a trailing ';'");
        }
    }
    return 0;
}

bool gresalloc_has (const struct gresalloc_item *it, uint32_t i)
{
    return it->indexed && i < GRESALLOC_IDX_MAX
           && (it->bits[i / 64] >> (i % 64) & 1);
}

void gresalloc_set (struct gresalloc_item *it, uint32_t i)
{
    if (i >= GRESALLOC_IDX_MAX || gresalloc_has (it, i))
        return;
    it->indexed = true;
    it->bits[i / 64] |= 1ull << (i % 64);
    it->count++;
}

const char *gresalloc_indices (const struct gresalloc_item *it, char *buf,
                               size_t len)
{
    size_t at = 0;

    if (len)
        buf[0] = '\0';
    for (uint32_t i = 0; i < GRESALLOC_IDX_MAX && at < len; i++) {
        uint32_t j = i;
        if (!gresalloc_has (it, i))
            continue;
        while (j + 1 < GRESALLOC_IDX_MAX && gresalloc_has (it, j + 1))
            j++;
        at += (size_t)(j == i ? snprintf (buf + at, len - at, "%s%u",
                                          at ? "," : "", i)
                              : snprintf (buf + at, len - at, "%s%u-%u",
                                          at ? "," : "", i, j));
        i = j;
    }
    return buf;
}

const char *gresalloc_text (const struct gresalloc *a, char *buf, size_t len)
{
    size_t at = 0;
    char idx[GRESALLOC_TEXT_MAX];

    if (len)
        buf[0] = '\0';
    for (size_t k = 0; k < a->n && at < len; k++) {
        const struct gresalloc_item *it = &a->v[k];
        if (it->indexed)
            at += (size_t)snprintf (buf + at, len - at, "%s%s=%s", k ? ";" : "",
                                    it->name,
                                    gresalloc_indices (it, idx, sizeof (idx)));
        else
            at +=
                (size_t)snprintf (buf + at, len - at, "%s%s*%llu", k ? ";" : "",
                                  it->name, (unsigned long long)it->count);
    }
    return buf;
}

const struct gresalloc_item *gresalloc_find (const struct gresalloc *a,
                                             const char *name)
{
    for (size_t k = 0; k < a->n; k++)
        if (!strcmp (a->v[k].name, name))
            return &a->v[k];
    return NULL;
}

struct gresalloc_item *gresalloc_get (struct gresalloc *a, const char *name,
                                      bool indexed)
{
    struct gresalloc_item *it =
        (struct gresalloc_item *)gresalloc_find (a, name);

    if (it || a->n == GRESALLOC_MAX || strlen (name) > GRESALLOC_NAME_MAX)
        return it;
    it = &a->v[a->n++];
    memset (it, 0, sizeof (*it));
    strcpy (it->name, name);
    it->indexed = indexed;
    return it;
}
