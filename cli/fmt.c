/* fmt.c - squeue's and sinfo's output formats. See fmt.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fmt.h"

#define FMT_MAX_WIDTH 1024 /* a larger size is refused */

void fmt_free (struct fmt *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        free (f->v[i].text);
    free (f->v);
    *f = (struct fmt){ 0 };
}

static int fmt_add (struct fmt *f, int id, const char *text, size_t len,
                    int width, bool right)
{
    struct fmt_item *v = realloc (f->v, (f->n + 1) * sizeof (*v));

    if (!v)
        return -1;
    f->v = v;
    if (!(v[f->n].text = strndup (text, len)))
        return -1;
    v[f->n].id = id;
    v[f->n].width = width;
    v[f->n].right = right;
    f->n++;
    return 0;
}

/* "[.][size]" at *s: sets *right and *width (-1 without a size). -1 when
 * the size is too large. */
static int fmt_size (const char **s, bool *right, int *width)
{
    long w = -1;

    *right = **s == '.';
    if (*right)
        (*s)++;
    if (isdigit ((unsigned char)**s)) {
        w = 0;
        while (isdigit ((unsigned char)**s)) {
            w = w * 10 + (**s - '0');
            (*s)++;
            if (w > FMT_MAX_WIDTH)
                return -1;
        }
    }
    *width = (int)w;
    return 0;
}

static int fmt_fail (struct fmt *out, arbor_error_t *err, int errnum,
                     const char *what, int len, const char *text)
{
    fmt_free (out);
    errno = errnum;
    if (errnum == ENOMEM)
        return errprintf (err, "out of memory");
    return errprintf (err, "%s '%.*s'", what, len, text);
}

int fmt_parse (const char *spec, const struct fmt_def *defs, size_t ndefs,
               struct fmt *out, arbor_error_t *err)
{
    const char *s = spec, *lit = spec;

    *out = (struct fmt){ 0 };
    while (*s) {
        const char *start = s;
        const struct fmt_def *d = NULL;
        bool right;
        int width;

        if (*s != '%') {
            s++;
            continue;
        }
        if (s > lit && fmt_add (out, -1, lit, (size_t)(s - lit), -1, false))
            return fmt_fail (out, err, ENOMEM, NULL, 0, NULL);
        if (s[1] == '%') { /* a literal '%' */
            if (fmt_add (out, -1, "%", 1, -1, false))
                return fmt_fail (out, err, ENOMEM, NULL, 0, NULL);
            lit = s += 2;
            continue;
        }
        s++;
        if (fmt_size (&s, &right, &width) < 0)
            return fmt_fail (out, err, EINVAL, "field size too large in",
                             (int)(s - start), start);
        for (size_t i = 0; *s && i < ndefs && !d; i++)
            if (defs[i].letter == *s)
                d = &defs[i];
        if (!d)
            return fmt_fail (out, err, EINVAL, "invalid field in format",
                             *s ? (int)(s - start) + 1 : (int)(s - start),
                             start);
        if (fmt_add (out, d->id, d->header, strlen (d->header), width, right))
            return fmt_fail (out, err, ENOMEM, NULL, 0, NULL);
        lit = ++s;
    }
    if (s > lit && fmt_add (out, -1, lit, (size_t)(s - lit), -1, false))
        return fmt_fail (out, err, ENOMEM, NULL, 0, NULL);
    return 0;
}

/* One "name[:[.][size]]" of a -O list. */
static int fmt_long_word (const char *w, size_t len, const struct fmt_def *defs,
                          size_t ndefs, struct fmt *out, arbor_error_t *err)
{
    const char *colon = memchr (w, ':', len), *s;
    size_t nlen = colon ? (size_t)(colon - w) : len;
    const struct fmt_def *d = NULL;
    bool right = false;
    int width = FMT_LONG_WIDTH;

    for (size_t i = 0; i < ndefs && !d; i++)
        if (defs[i].name && strlen (defs[i].name) == nlen
            && !strncasecmp (defs[i].name, w, nlen))
            d = &defs[i];
    if (!d)
        return fmt_fail (out, err, EINVAL, "invalid field in format", (int)nlen,
                         w);
    if (colon) {
        s = colon + 1;
        if (fmt_size (&s, &right, &width) < 0 || s != w + len)
            return fmt_fail (out, err, EINVAL, "invalid field size in",
                             (int)len, w);
        if (width < 0)
            width = FMT_LONG_WIDTH;
    }
    if (fmt_add (out, d->id, d->header, strlen (d->header), width, right))
        return fmt_fail (out, err, ENOMEM, NULL, 0, NULL);
    return 0;
}

int fmt_parse_long (const char *spec, const struct fmt_def *defs, size_t ndefs,
                    struct fmt *out, arbor_error_t *err)
{
    const char *s = spec;

    *out = (struct fmt){ 0 };
    while (*s) {
        size_t len = strcspn (s, ",");
        if (len > 0 && fmt_long_word (s, len, defs, ndefs, out, err) < 0)
            return -1;
        s += len + (s[len] == ',');
    }
    if (out->n == 0)
        return fmt_fail (out, err, EINVAL, "no field in format", 0, "");
    return 0;
}

bool fmt_has (const struct fmt *f, int id)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].id == id)
            return true;
    return false;
}

/* 'text' in its item's room: padded, cut, justified. */
static void fmt_cell (FILE *out, const struct fmt_item *it, const char *text)
{
    if (it->width < 0)
        fputs (text, out);
    else if (it->right)
        fprintf (out, "%*.*s", it->width, it->width, text);
    else
        fprintf (out, "%-*.*s", it->width, it->width, text);
}

void fmt_print_header (FILE *out, const struct fmt *f)
{
    for (size_t i = 0; i < f->n; i++)
        fmt_cell (out, &f->v[i], f->v[i].text);
    fputc ('\n', out);
}

void fmt_print_row (FILE *out, const struct fmt *f, fmt_value_fn value,
                    const void *row)
{
    char buf[1024];

    for (size_t i = 0; i < f->n; i++) {
        const struct fmt_item *it = &f->v[i];
        if (it->id < 0)
            fputs (it->text, out);
        else
            fmt_cell (out, it, value (it->id, row, buf, sizeof (buf)));
    }
    fputc ('\n', out);
}
