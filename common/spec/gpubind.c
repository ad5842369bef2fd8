/* gpubind.c - parse srun --gpu-bind values; see gpubind.h.
 *
 * A hand-written scanner over the value: an optional "verbose," then one
 * type word, then, for the types that take one, ":" and a number or a
 * list. Every failure names the byte where the scan stopped (counting
 * from 1), so that a long list says where its typo is.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpubind.h"

struct parser {
    const char *s; /* the whole value, for messages */
    const char *p; /* where the scan is */
    struct gpubind *b;
    arbor_error_t *err;
};

/* Bytes a text item can take: "0x" + 16 digits + "*1024" + ",". */
#define ITEM_TEXT_MAX 24

void gpubind_clear (struct gpubind *b)
{
    int e = errno;

    if (!b)
        return;
    free (b->list);
    memset (b, 0, sizeof (*b));
    errno = e;
}

/* The error names the value when it is short enough to read. */
static int fail (struct parser *x, const char *what)
{
    size_t at = (size_t)(x->p - x->s) + 1;

    errno = EINVAL;
    if (strlen (x->s) > 60)
        return errprintf (x->err, "invalid --gpu-bind: %s at position %zu",
                          what, at);
    return errprintf (x->err, "invalid --gpu-bind \"%s\": %s at position %zu",
                      x->s, what, at);
}

/* Does the scan stand on 'word' (any case)? Steps over it if so. */
static bool take (struct parser *x, const char *word)
{
    size_t n = strlen (word);

    if (strncasecmp (x->p, word, n) != 0)
        return false;
    x->p += n;
    return true;
}

static int digit_value (char c, unsigned base)
{
    if (isdigit ((unsigned char)c))
        return c - '0';
    if (base == 16 && isxdigit ((unsigned char)c))
        return tolower ((unsigned char)c) - 'a' + 10;
    return -1;
}

/* Digits in 'base' at the scan, at most 'max'. 0; -1 no digit; -2 too
 * large (the scan then stands on the digit that overflowed). */
static int digits (struct parser *x, unsigned base, uint64_t max, uint64_t *out)
{
    const char *start = x->p;
    uint64_t v = 0;
    int d;

    while ((d = digit_value (*x->p, base)) >= 0) {
        if (v > (max - (uint64_t)d) / base)
            return -2;
        v = v * base + (uint64_t)d;
        x->p++;
    }
    if (x->p == start)
        return -1;
    *out = v;
    return 0;
}

/* Nothing may follow. */
static int end (struct parser *x)
{
    return *x->p ? fail (x, "the end expected") : 0;
}

/* A count: single:N, per_task:N, or an item's *N. */
static int count (struct parser *x, uint32_t *out, const char *what)
{
    const char *start = x->p;
    char msg[64];
    uint64_t v;
    int rc = digits (x, 10, GPUBIND_N_MAX, &v);

    if (rc == -1 || (rc == 0 && v == 0)) {
        x->p = start; /* point at the 0 */
        snprintf (msg, sizeof (msg), "%s (1-%u) expected", what, GPUBIND_N_MAX);
        return fail (x, msg);
    }
    if (rc == -2) {
        snprintf (msg, sizeof (msg), "%s above %u", what, GPUBIND_N_MAX);
        return fail (x, msg);
    }
    *out = (uint32_t)v;
    return 0;
}

/* Append v count times to the list. */
static int push (struct parser *x, uint64_t v, uint32_t n)
{
    struct gpubind *b = x->b;
    uint64_t *l;

    if (n > GPUBIND_LIST_MAX - b->nlist)
        return fail (x, "list longer than 1024 entries");
    if (!(l = realloc (b->list, (b->nlist + n) * sizeof (*l)))) {
        errno = ENOMEM;
        return errprintf (x->err, "out of memory");
    }
    b->list = l;
    while (n-- > 0)
        b->list[b->nlist++] = v;
    return 0;
}

/* One map_gpu id: decimal, or hexadecimal after 0x. */
static int map_item (struct parser *x, uint64_t *v)
{
    bool hex = x->p[0] == '0' && (x->p[1] == 'x' || x->p[1] == 'X');
    int rc;

    if (hex)
        x->p += 2;
    rc = digits (x, hex ? 16 : 10, GPUBIND_GPU_MAX, v);
    if (rc == -1)
        return fail (x, "a GPU id expected");
    if (rc == -2)
        return fail (x, "a GPU id above 1023");
    return 0;
}

/* One mask_gpu mask: hexadecimal, 0x optional, not 0. */
static int mask_item (struct parser *x, uint64_t *v)
{
    const char *start = x->p;
    int rc;

    if (x->p[0] == '0' && (x->p[1] == 'x' || x->p[1] == 'X'))
        x->p += 2;
    rc = digits (x, 16, UINT64_MAX, v);
    if (rc == -1)
        return fail (x, "a hexadecimal GPU mask expected");
    if (rc == -2)
        return fail (x, "a mask beyond GPU 63");
    if (*v == 0) {
        x->p = start;
        return fail (x, "a mask of no GPU");
    }
    return 0;
}

/* LIST: items, each with an optional *N, comma-separated, to the end. */
static int list (struct parser *x, bool mask)
{
    for (;;) {
        uint64_t v;
        uint32_t n = 1;
        if ((mask ? mask_item (x, &v) : map_item (x, &v)) < 0)
            return -1;
        if (*x->p == '*') {
            x->p++;
            if (count (x, &n, "a repetition count") < 0)
                return -1;
        }
        if (push (x, v, n) < 0)
            return -1;
        if (*x->p == '\0')
            return 0;
        if (*x->p != ',')
            return fail (x, "',' or the end expected");
        x->p++; /* an item must follow: no trailing comma */
    }
}

/* The type word and what follows it, to the end of the value. */
static int type (struct parser *x)
{
    static const struct {
        const char *word;
        enum gpubind_mode mode;
    } types[] = {
        { "none", GPUBIND_NONE },      { "closest", GPUBIND_CLOSEST },
        { "single:", GPUBIND_SINGLE }, { "per_task:", GPUBIND_PER_TASK },
        { "map_gpu:", GPUBIND_MAP },   { "mask_gpu:", GPUBIND_MASK },
    };
    struct gpubind *b = x->b;
    size_t i = 0;

    while (i < sizeof (types) / sizeof (types[0]) && !take (x, types[i].word))
        i++;
    if (i == sizeof (types) / sizeof (types[0]))
        return fail (x, "none, closest, single:N, per_task:N, map_gpu:LIST "
                        "or mask_gpu:LIST expected");
    b->mode = types[i].mode;
    switch (b->mode) {
    case GPUBIND_SINGLE:
        return count (x, &b->n, "a task count") < 0 ? -1 : end (x);
    case GPUBIND_PER_TASK:
        return count (x, &b->n, "a GPU count") < 0 ? -1 : end (x);
    case GPUBIND_MAP: return list (x, false);
    case GPUBIND_MASK: return list (x, true);
    default: return end (x);
    }
}

int gpubind_parse (const char *s, struct gpubind *b, arbor_error_t *err)
{
    struct parser x = { s, s, b, err };
    int rc = 0;

    memset (b, 0, sizeof (*b));
    if (!s || !*s)
        return 0;
    if (strnlen (s, GPUBIND_LEN_MAX + 1) > GPUBIND_LEN_MAX) {
        x.p = s + GPUBIND_LEN_MAX;
        rc = fail (&x, "longer than 32768 bytes");
    } else if (!take (&x, "verbose"))
        rc = type (&x);
    else if (*x.p && *x.p != ',')
        rc = fail (&x, "',' expected after verbose");
    else {
        b->verbose = true; /* alone: with the default binding */
        if (*x.p == ',') {
            x.p++;
            rc = type (&x);
        }
    }
    if (rc < 0)
        gpubind_clear (b);
    return rc;
}

const char *gpubind_mode_name (enum gpubind_mode mode)
{
    static const char *const names[] = {
        "", "none", "closest", "single", "per_task", "map_gpu", "mask_gpu",
    };

    return (size_t)mode < sizeof (names) / sizeof (names[0]) ? names[mode] : "";
}

/* The list, repeated entries folded into *N, at p; returns the end. */
static char *list_text (const struct gpubind *b, char *p)
{
    for (size_t i = 0, j; i < b->nlist; i = j) {
        for (j = i + 1; j < b->nlist && b->list[j] == b->list[i]; j++)
            ;
        p +=
            sprintf (p, b->mode == GPUBIND_MASK ? "%s0x%" PRIx64 : "%s%" PRIu64,
                     i ? "," : "", b->list[i]);
        if (j - i > 1)
            p += sprintf (p, "*%zu", j - i);
    }
    return p;
}

char *gpubind_text (const struct gpubind *b)
{
    size_t len = 64 + b->nlist * ITEM_TEXT_MAX;
    char *s = malloc (len), *p = s;

    if (!s)
        return NULL;
    p += sprintf (p, "%s%s", b->verbose ? "verbose" : "",
                  b->verbose && b->mode != GPUBIND_DEFAULT ? "," : "");
    p += sprintf (p, "%s", gpubind_mode_name (b->mode));
    if (b->mode == GPUBIND_SINGLE || b->mode == GPUBIND_PER_TASK)
        sprintf (p, ":%u", b->n);
    else if (b->mode == GPUBIND_MAP || b->mode == GPUBIND_MASK) {
        *p++ = ':';
        *list_text (b, p) = '\0';
    }
    return s;
}
