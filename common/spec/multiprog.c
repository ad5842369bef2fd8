/* multiprog.c - parse an srun --multi-prog file; see multiprog.h.
 *
 * Each configuration line keeps its words (program and arguments, with
 * quoted '%' doubled by words_split so that expansion can tell them from
 * %t and %o). Two arrays indexed by task rank say which line a task runs
 * and its offset there; they are filled as the lines are read, which is
 * what makes "*" mean "every task not given a line so far" and what finds
 * a task on two lines. multiprog_argv() only looks up and expands.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multiprog.h"
#include "words.h"

#define MULTIPROG_NONE UINT32_MAX

struct multiprog_line {
    unsigned lineno;   /* 1-based, for messages */
    struct words argv; /* program and arguments, quoted '%' as "%%" */
};

struct multiprog {
    uint32_t ntasks;
    struct multiprog_line *lines;
    size_t nlines;
    size_t alloc;
    uint32_t *line_of; /* task -> index in lines, or MULTIPROG_NONE */
    uint32_t *offset;  /* task -> its %o */
};

/* Give task 'rank' to line li at 'offset'; EINVAL if it already has one. */
static int multiprog_assign (struct multiprog *mp, uint32_t rank, uint32_t li,
                             uint32_t offset, arbor_error_t *err)
{
    uint32_t prev = mp->line_of[rank];

    if (prev != MULTIPROG_NONE) {
        errno = EINVAL;
        if (prev == li)
            return errprintf (err, "line %u: task %" PRIu32 " is listed twice",
                              mp->lines[li].lineno, rank);
        return errprintf (err, "task %" PRIu32 " is on lines %u and %u", rank,
                          mp->lines[prev].lineno, mp->lines[li].lineno);
    }
    mp->line_of[rank] = li;
    mp->offset[rank] = offset;
    return 0;
}

/* Read the decimal number at *s (saturating past UINT32_MAX) and move *s
 * past it; -1 if there is no digit. */
static int multiprog_number (const char **s, uint64_t *v)
{
    const char *start = *s;

    *v = 0;
    for (; isdigit ((unsigned char)**s); (*s)++)
        if (*v <= UINT32_MAX)
            *v = *v * 10 + (uint64_t)(**s - '0');
    return *s > start ? 0 : -1;
}

/* One "N" or "N-M" of a task list, at *s; moves *s past it. 'passed'
 * counts the tasks listed before it on the line (their offsets). */
static int multiprog_range (struct multiprog *mp, const char **s,
                            const char *list, uint32_t li, uint32_t *passed,
                            arbor_error_t *err)
{
    unsigned lineno = mp->lines[li].lineno;
    const char *lo_at = *s, *hi_at;
    uint64_t lo, hi;

    if (multiprog_number (s, &lo) < 0)
        goto malformed;
    hi = lo;
    hi_at = lo_at;
    if (**s == '-') {
        hi_at = ++(*s);
        if (multiprog_number (s, &hi) < 0)
            goto malformed;
    }
    if ((**s != ',' && **s != '\0') || lo > hi)
        goto malformed;
    if (hi >= mp->ntasks) {
        const char *at = lo >= mp->ntasks ? lo_at : hi_at;
        errno = EINVAL;
        return errprintf (err,
                          "line %u: task %.*s is out of range (the step has "
                          "%" PRIu32 " tasks)",
                          lineno, (int)strspn (at, "0123456789"), at,
                          mp->ntasks);
    }
    for (uint64_t r = lo; r <= hi; r++)
        if (multiprog_assign (mp, (uint32_t)r, li, (*passed)++, err) < 0)
            return -1;
    return 0;
malformed:
    errno = EINVAL;
    return errprintf (err, "line %u: malformed task list '%.40s'", lineno,
                      list);
}

/* Give the tasks of 'list' ("0,2-3" or "*") to line li. */
static int multiprog_tasks (struct multiprog *mp, const char *list, uint32_t li,
                            arbor_error_t *err)
{
    const char *s = list;
    uint32_t passed = 0;

    if (!strcmp (list, "*")) {
        for (uint32_t r = 0; r < mp->ntasks; r++) {
            if (mp->line_of[r] == MULTIPROG_NONE) {
                mp->line_of[r] = li;
                mp->offset[r] = r; /* Slurm's %o under "*" */
            }
        }
        return 0;
    }
    for (;;) {
        if (multiprog_range (mp, &s, list, li, &passed, err) < 0)
            return -1;
        if (*s == '\0')
            return 0;
        s++; /* ',' */
    }
}

/* Append a line holding w's words; on success mp owns them. */
static int multiprog_add_line (struct multiprog *mp, unsigned lineno,
                               struct words *w, uint32_t *li)
{
    if (mp->nlines >= MULTIPROG_NONE) {
        errno = EINVAL;
        return -1;
    }
    if (mp->nlines == mp->alloc) {
        size_t alloc = mp->alloc ? mp->alloc * 2 : 8;
        void *p = realloc (mp->lines, alloc * sizeof (*mp->lines));
        if (!p)
            return -1;
        mp->lines = p;
        mp->alloc = alloc;
    }
    mp->lines[mp->nlines].lineno = lineno;
    mp->lines[mp->nlines].argv = *w;
    *li = (uint32_t)mp->nlines++;
    memset (w, 0, sizeof (*w));
    return 0;
}

/* One line of the file: skip it, or record its program and its tasks. */
static int multiprog_line (struct multiprog *mp, const char *line, size_t len,
                           unsigned lineno, arbor_error_t *err)
{
    struct words w = { NULL, 0, 0 };
    arbor_error_t e = { "" };
    char *tasks;
    uint32_t li;
    int rc;

    if (words_split (&w, line, len, WORDS_QUOTE_PERCENT, &e) < 0)
        return errprintf (err, "line %u: %s", lineno, e.text);
    if (w.n == 0)
        return 0; /* blank or comment */
    if (w.n == 1) {
        errno = EINVAL;
        errprintf (err, "line %u: no program for tasks '%.40s'", lineno,
                   w.v[0]);
        words_clear (&w);
        return -1;
    }
    /* The first word is the task list; the rest, NULL included, moves
     * down to become the line's argv. */
    tasks = w.v[0];
    memmove (w.v, w.v + 1, w.n * sizeof (*w.v));
    w.n--;
    if (multiprog_add_line (mp, lineno, &w, &li) < 0) {
        errprintf (err, "line %u: %s", lineno,
                   errno == ENOMEM ? "out of memory" : "too many lines");
        words_clear (&w);
        free (tasks);
        return -1;
    }
    rc = multiprog_tasks (mp, tasks, li, err);
    free (tasks);
    return rc;
}

static struct multiprog *multiprog_create (uint32_t ntasks)
{
    struct multiprog *mp = calloc (1, sizeof (*mp));

    if (!mp)
        return NULL;
    mp->ntasks = ntasks;
    mp->line_of = calloc (ntasks, sizeof (*mp->line_of));
    mp->offset = calloc (ntasks, sizeof (*mp->offset));
    if (!mp->line_of || !mp->offset) {
        multiprog_destroy (mp);
        errno = ENOMEM;
        return NULL;
    }
    memset (mp->line_of, 0xff, ntasks * sizeof (*mp->line_of));
    return mp;
}

struct multiprog *multiprog_parse (const char *text, size_t len,
                                   uint32_t ntasks, arbor_error_t *err)
{
    struct multiprog *mp;
    const char *line;
    size_t pos = 0, linelen;
    unsigned lineno = 0;

    if ((!text && len > 0) || ntasks == 0) {
        errno = EINVAL;
        errprintf (err, ntasks ? "invalid argument" : "the step has no tasks");
        return NULL;
    }
    if (!(mp = multiprog_create (ntasks))) {
        errprintf (err, "out of memory");
        return NULL;
    }
    while (words_next_line (text, len, &pos, &line, &linelen))
        if (multiprog_line (mp, line, linelen, ++lineno, err) < 0)
            goto fail;
    for (uint32_t r = 0; r < ntasks; r++) {
        if (mp->line_of[r] == MULTIPROG_NONE) {
            errno = EINVAL;
            errprintf (err, "task %" PRIu32 " has no line in the configuration",
                       r);
            goto fail;
        }
    }
    return mp;
fail:
    multiprog_destroy (mp);
    return NULL;
}

/* 'word' with %t, %o and %% expanded; NULL with errno ENOMEM. */
static char *multiprog_expand (const char *word, uint32_t rank, uint32_t offset)
{
    size_t len = strlen (word);
    char *out, *p;

    /* A 2-character %t or %o becomes at most 10 digits. */
    if (len > (SIZE_MAX - 1) / 5 || !(out = malloc (len * 5 + 1))) {
        errno = ENOMEM;
        return NULL;
    }
    p = out;
    for (size_t i = 0; i < len; i++) {
        char next = word[i + 1];
        if (word[i] == '%' && (next == 't' || next == 'o')) {
            p += sprintf (p, "%" PRIu32, next == 't' ? rank : offset);
            i++;
        } else if (word[i] == '%' && next == '%') {
            *p++ = '%';
            i++;
        } else {
            *p++ = word[i];
        }
    }
    *p = '\0';
    return out;
}

char **multiprog_argv (const struct multiprog *mp, uint32_t rank)
{
    const struct words *w;
    char **argv;

    if (!mp || rank >= mp->ntasks) {
        errno = EINVAL;
        return NULL;
    }
    w = &mp->lines[mp->line_of[rank]].argv;
    if (!(argv = calloc (w->n + 1, sizeof (*argv))))
        return NULL;
    for (size_t i = 0; i < w->n; i++) {
        if (!(argv[i] = multiprog_expand (w->v[i], rank, mp->offset[rank]))) {
            multiprog_argv_free (argv);
            errno = ENOMEM;
            return NULL;
        }
    }
    return argv;
}

void multiprog_argv_free (char **argv)
{
    int e = errno;

    if (!argv)
        return;
    for (size_t i = 0; argv[i]; i++)
        free (argv[i]);
    free (argv);
    errno = e;
}

void multiprog_destroy (struct multiprog *mp)
{
    int e = errno;

    if (!mp)
        return;
    for (size_t i = 0; i < mp->nlines; i++)
        words_clear (&mp->lines[i].argv);
    free (mp->lines);
    free (mp->line_of);
    free (mp->offset);
    free (mp);
    errno = e;
}
