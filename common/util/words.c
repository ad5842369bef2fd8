/* words.c - shell-like word splitting and line iteration; see words.h.
 *
 * A word is built in a scratch buffer sized from the input (a word is never
 * longer than the text it comes from, or twice that when every '%' is
 * doubled), then copied into the vector. A failed split drops the words it
 * had appended, so the caller's vector is left as it was.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "words.h"

/* Where a split is: the text, the read position, the word being built. */
struct words_scan {
    const char *s;
    size_t len;
    size_t i;
    int flags;
    char *buf;
    size_t n;
};

static bool words_is_blank (char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v'
           || c == '\f';
}

/* Add c to the word; 'literal' is true when it was quoted or escaped. */
static void words_put (struct words_scan *sc, char c, bool literal)
{
    if (c == '%' && literal && (sc->flags & WORDS_QUOTE_PERCENT))
        sc->buf[sc->n++] = '%';
    sc->buf[sc->n++] = c;
}

/* After an opening ': copy up to the closing one. */
static int words_single (struct words_scan *sc, arbor_error_t *err)
{
    while (sc->i < sc->len && sc->s[sc->i] != '\'')
        words_put (sc, sc->s[sc->i++], true);
    if (sc->i == sc->len) {
        errno = EINVAL;
        return errprintf (err, "unterminated single quote");
    }
    sc->i++;
    return 0;
}

/* After an opening ": copy up to the closing one; \" and \\ escape. */
static int words_double (struct words_scan *sc, arbor_error_t *err)
{
    while (sc->i < sc->len && sc->s[sc->i] != '"') {
        char c = sc->s[sc->i++];
        if (c == '\\' && sc->i < sc->len
            && (sc->s[sc->i] == '"' || sc->s[sc->i] == '\\'))
            c = sc->s[sc->i++];
        words_put (sc, c, true);
    }
    if (sc->i == sc->len) {
        errno = EINVAL;
        return errprintf (err, "unterminated double quote");
    }
    sc->i++;
    return 0;
}

/* Build the word starting at s[i] (not a blank) into buf, NUL-terminated. */
static int words_word (struct words_scan *sc, arbor_error_t *err)
{
    sc->n = 0;
    while (sc->i < sc->len && !words_is_blank (sc->s[sc->i])) {
        char c = sc->s[sc->i++];
        int rc = 0;

        if (c == '\'')
            rc = words_single (sc, err);
        else if (c == '"')
            rc = words_double (sc, err);
        else if (c == '\\' && sc->i < sc->len)
            words_put (sc, sc->s[sc->i++], true);
        else
            words_put (sc, c, false);
        if (rc < 0)
            return -1;
    }
    sc->buf[sc->n] = '\0';
    return 0;
}

/* Drop the words after the first n. */
static void words_truncate (struct words *w, size_t n)
{
    if (n == 0) {
        words_clear (w);
        return;
    }
    while (w->n > n)
        free (w->v[--w->n]);
    w->v[n] = NULL;
}

static int words_scan_all (struct words *w, struct words_scan *sc,
                           arbor_error_t *err)
{
    for (;;) {
        while (sc->i < sc->len && words_is_blank (sc->s[sc->i]))
            sc->i++;
        if (sc->i == sc->len || sc->s[sc->i] == '#')
            return 0;
        if (words_word (sc, err) < 0)
            return -1;
        if (words_append (w, sc->buf) < 0)
            return errprintf (err, "out of memory");
    }
}

int words_split (struct words *w, const char *s, size_t len, int flags,
                 arbor_error_t *err)
{
    struct words_scan sc = { .s = s, .len = len, .flags = flags };
    size_t n0;
    int rc;

    if (!w || (!s && len > 0)) {
        errno = EINVAL;
        return errprintf (err, "invalid argument");
    }
    if (len > 0 && memchr (s, '\0', len)) {
        errno = EINVAL;
        return errprintf (err, "NUL character");
    }
    if (len > (SIZE_MAX - 1) / 2 || !(sc.buf = malloc (2 * len + 1))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    n0 = w->n;
    rc = words_scan_all (w, &sc, err);
    if (rc < 0) {
        int e = errno;
        words_truncate (w, n0);
        errno = e;
    }
    free (sc.buf);
    return rc;
}

int words_append (struct words *w, const char *word)
{
    char *copy;

    if (w->n + 2 > w->alloc) {
        size_t alloc = w->alloc ? w->alloc * 2 : 8;
        char **v = realloc (w->v, alloc * sizeof (*v));
        if (!v)
            return -1;
        w->v = v;
        w->alloc = alloc;
    }
    if (!(copy = strdup (word)))
        return -1;
    w->v[w->n++] = copy;
    w->v[w->n] = NULL;
    return 0;
}

void words_clear (struct words *w)
{
    int e = errno;

    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++)
        free (w->v[i]);
    free (w->v);
    w->v = NULL;
    w->n = w->alloc = 0;
    errno = e;
}

bool words_next_line (const char *text, size_t len, size_t *pos,
                      const char **line, size_t *linelen)
{
    const char *nl;
    size_t start = *pos, end;

    if (start >= len)
        return false;
    nl = memchr (text + start, '\n', len - start);
    end = nl ? (size_t)(nl - text) : len;
    *pos = nl ? end + 1 : len;
    if (end > start && text[end - 1] == '\r')
        end--;
    *line = text + start;
    *linelen = end - start;
    return true;
}

int words_each_comma (const char *text,
                      int (*fn) (char *word, void *arg, arbor_error_t *err),
                      void *arg, arbor_error_t *err)
{
    char *copy, *save = NULL;
    int rc = 0;

    if (!text)
        return 0;
    if (!(copy = strdup (text))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    for (char *w = strtok_r (copy, ",", &save); w && rc == 0;
         w = strtok_r (NULL, ",", &save))
        rc = fn (w, arg, err);
    free (copy);
    return rc;
}
