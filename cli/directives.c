/* directives.c - read #SBATCH-style directives from a batch script; see
 * directives.h.
 *
 * One pass over the lines of the script's header: each line is a
 * directive, a comment or blank (skipped), or the first command (the end).
 * The words of every directive go into one vector after argv[0], and a
 * parallel array records the line each came from, so that the caller's
 * option errors can name it.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "directives.h"
#include "words.h"

/* What one line of the header is. */
enum directives_kind {
    DIRECTIVES_SKIP,      /* blank or comment */
    DIRECTIVES_DIRECTIVE, /* prefix, then a space or tab */
    DIRECTIVES_COMMAND,   /* anything else: the header ends */
};

/* The words of argv and the line each came from, while parsing. */
struct directives_build {
    struct words w;
    unsigned *lines;
    size_t lines_alloc;
};

/* Which prefix, if any, starts this line followed by a space or tab. */
static const char *directives_prefix (const char *line, size_t len,
                                      const char *const *prefixes)
{
    for (size_t i = 0; prefixes[i]; i++) {
        size_t plen = strlen (prefixes[i]);
        if (plen > 0 && len > plen && !memcmp (line, prefixes[i], plen)
            && (line[plen] == ' ' || line[plen] == '\t'))
            return prefixes[i];
    }
    return NULL;
}

static enum directives_kind directives_classify (const char *line, size_t len,
                                                 const char *const *prefixes,
                                                 const char **prefix)
{
    if ((*prefix = directives_prefix (line, len, prefixes)))
        return DIRECTIVES_DIRECTIVE;
    for (size_t i = 0; i < len; i++) {
        if (strchr (" \t\r\v\f", line[i])) /* no NUL: checked first */
            continue;
        return line[i] == '#' ? DIRECTIVES_SKIP : DIRECTIVES_COMMAND;
    }
    return DIRECTIVES_SKIP;
}

/* 0, or -1 with err naming the line of the first NUL in the script. */
static int directives_check_nul (const char *script, size_t len,
                                 arbor_error_t *err)
{
    const char *nul = len > 0 ? memchr (script, '\0', len) : NULL;
    unsigned lineno = 1;

    if (!nul)
        return 0;
    for (const char *p = script; p < nul; p++)
        if (*p == '\n')
            lineno++;
    errno = EINVAL;
    return errprintf (err, "line %u: the batch script contains a NUL character",
                      lineno);
}

/* Record 'lineno' for the words appended since the array last grew. */
static int directives_note_lines (struct directives_build *b, size_t from,
                                  unsigned lineno)
{
    if (b->w.n > b->lines_alloc) {
        size_t alloc = b->lines_alloc ? b->lines_alloc : 16;
        unsigned *lines;
        while (alloc < b->w.n)
            alloc *= 2;
        if (!(lines = realloc (b->lines, alloc * sizeof (*lines))))
            return -1;
        b->lines = lines;
        b->lines_alloc = alloc;
    }
    for (size_t i = from; i < b->w.n; i++)
        b->lines[i] = lineno;
    return 0;
}

/* Append the words of one directive line (after its prefix). */
static int directives_line (struct directives_build *b, const char *line,
                            size_t len, const char *prefix, unsigned lineno,
                            arbor_error_t *err)
{
    size_t plen = strlen (prefix), from = b->w.n;
    arbor_error_t e = { "" };

    if (words_split (&b->w, line + plen, len - plen, 0, &e) < 0)
        return errprintf (err, "line %u: %s in %s directive", lineno, e.text,
                          prefix);
    if (b->w.n >= INT_MAX) {
        errno = EINVAL;
        return errprintf (err, "line %u: too many directive words", lineno);
    }
    if (directives_note_lines (b, from, lineno) < 0)
        return errprintf (err, "out of memory");
    return 0;
}

static int directives_scan (struct directives_build *b, const char *script,
                            size_t len, const char *const *prefixes,
                            arbor_error_t *err)
{
    const char *line, *prefix;
    size_t pos = 0, linelen;
    unsigned lineno = 0;

    while (words_next_line (script, len, &pos, &line, &linelen)) {
        lineno++;
        switch (directives_classify (line, linelen, prefixes, &prefix)) {
        case DIRECTIVES_SKIP: continue;
        case DIRECTIVES_COMMAND: return 0;
        case DIRECTIVES_DIRECTIVE:
            if (directives_line (b, line, linelen, prefix, lineno, err) < 0)
                return -1;
        }
    }
    return 0;
}

int directives_parse (const char *script, size_t len,
                      const char *const *prefixes, const char *prog,
                      struct directives *d, arbor_error_t *err)
{
    struct directives_build b = { { NULL, 0, 0 }, NULL, 0 };

    if ((!script && len > 0) || !prefixes || !prog || !d) {
        errno = EINVAL;
        return errprintf (err, "invalid argument");
    }
    if (directives_check_nul (script, len, err) < 0)
        return -1;
    if (words_append (&b.w, prog) < 0 || directives_note_lines (&b, 0, 0) < 0)
        goto nomem;
    if (directives_scan (&b, script, len, prefixes, err) < 0)
        goto fail;
    d->argv = b.w.v;
    d->argc = (int)b.w.n;
    d->lines = b.lines;
    return 0;
nomem:
    errno = ENOMEM;
    errprintf (err, "out of memory");
fail:
    words_clear (&b.w);
    free (b.lines);
    return -1;
}

void directives_clear (struct directives *d)
{
    int e = errno;

    if (!d)
        return;
    if (d->argv) {
        for (int i = 0; i < d->argc; i++)
            free (d->argv[i]);
        free (d->argv);
    }
    free (d->lines);
    d->argv = NULL;
    d->argc = 0;
    d->lines = NULL;
    errno = e;
}
