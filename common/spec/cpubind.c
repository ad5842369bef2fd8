/* cpubind.c - parse srun --cpu-bind values; see cpubind.h.
 *
 * A value is comma-separated words, except that "map_cpu:" takes the
 * rest of the value as its list (whose items are comma-separated too):
 * the words before it may only be quiet or verbose.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpubind.h"

#define MAP_PREFIX "map_cpu:"

void cpubind_clear (struct cpubind *b)
{
    int e = errno;

    if (!b)
        return;
    free (b->map);
    free (b->list);
    memset (b, 0, sizeof (*b));
    errno = e;
}

/* Is tok (len bytes) 'word' or an abbreviation of it at least min long? */
static bool cpubind_abbrev (const char *tok, size_t len, const char *word,
                            size_t min)
{
    return len >= min && len <= strlen (word) && !strncasecmp (tok, word, len);
}

/* One flag or type word; -1 if it is neither. */
static int cpubind_word (const char *tok, size_t len, struct cpubind *b,
                         bool *typed)
{
    enum cpubind_type t;

    if (cpubind_abbrev (tok, len, "quiet", 1)) {
        b->verbose = false;
        return 0;
    }
    if (cpubind_abbrev (tok, len, "verbose", 1)) {
        b->verbose = true;
        return 0;
    }
    if (cpubind_abbrev (tok, len, "none", 2))
        t = CPUBIND_NONE;
    else if (len == 5 && !strncasecmp (tok, "cores", 5))
        t = CPUBIND_CORES;
    else
        return -1;
    if (*typed)
        return -1; /* two types */
    *typed = true;
    b->type = t;
    return 0;
}

/* Append 'cpu' count times to b->map. */
static int cpubind_push (struct cpubind *b, unsigned long cpu,
                         unsigned long count)
{
    uint32_t *m;

    if (count == 0 || count > CPUBIND_MAX_MAP - b->nmap) {
        errno = EINVAL;
        return -1;
    }
    if (!(m = realloc (b->map, (b->nmap + count) * sizeof (*m))))
        return -1;
    b->map = m;
    while (count-- > 0)
        b->map[b->nmap++] = (uint32_t)cpu;
    return 0;
}

/* One item of a map_cpu list: ID or ID*N; *end is past it. */
static int cpubind_item (const char *p, const char **end, struct cpubind *b)
{
    unsigned long cpu, count = 1;
    bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    char *e;

    if (!(hex ? isxdigit ((unsigned char)p[2]) : isdigit ((unsigned char)*p)))
        return -1;
    errno = 0;
    cpu = strtoul (hex ? p + 2 : p, &e, hex ? 16 : 10);
    if (errno || cpu > CPUBIND_MAX_CPU)
        return -1;
    if (*e == '*') {
        if (!isdigit ((unsigned char)e[1]))
            return -1;
        count = strtoul (e + 1, &e, 10);
        if (errno)
            return -1;
    }
    *end = e;
    return cpubind_push (b, cpu, count);
}

static int cpubind_map (const char *list, struct cpubind *b)
{
    const char *p = list;

    if (!*p)
        return -1;
    while (*p) {
        if (cpubind_item (p, &p, b) < 0)
            return -1;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return -1;
    }
    b->type = CPUBIND_MAP;
    return (b->list = strdup (list)) ? 0 : -1;
}

/* The words of s[0..len): flags and at most one type. */
static int cpubind_words (const char *s, size_t len, struct cpubind *b,
                          bool *typed)
{
    const char *end = s + len;

    while (s < end) {
        const char *comma = memchr (s, ',', (size_t)(end - s));
        size_t n = (size_t)((comma ? comma : end) - s);
        if (cpubind_word (s, n, b, typed) < 0)
            return -1;
        s = comma ? comma + 1 : end;
        if (comma && s == end)
            return -1; /* trailing comma */
    }
    return 0;
}

int cpubind_parse (const char *s, struct cpubind *b, arbor_error_t *err)
{
    const char *map;
    bool typed = false;
    int rc;

    memset (b, 0, sizeof (*b));
    if (!s || !*s)
        return 0;
    errno = 0;
    map = strcasestr (s, MAP_PREFIX);
    if (map && map != s && map[-1] != ',')
        map = NULL;
    rc = cpubind_words (s, map ? (size_t)(map - s) - (map > s) : strlen (s), b,
                        &typed);
    if (rc == 0 && map)
        rc = typed ? -1 : cpubind_map (map + strlen (MAP_PREFIX), b);
    if (rc == 0)
        return 0;
    rc = errno == ENOMEM ? ENOMEM : EINVAL;
    cpubind_clear (b);
    errno = rc;
    if (rc == ENOMEM)
        return errprintf (err, "out of memory");
    return errprintf (err,
                      "invalid --cpu-bind '%.40s' (none, cores or "
                      "map_cpu:LIST, optionally after verbose,)",
                      s);
}

char *cpubind_text (const struct cpubind *b)
{
    static const char *const names[] = { "", "none", "cores", "map_cpu:" };
    const char *v = b->verbose ? "verbose" : "";
    const char *sep = b->verbose && b->type != CPUBIND_DEFAULT ? "," : "";
    char *s;

    if (asprintf (&s, "%s%s%s%s", v, sep, names[b->type],
                  b->type == CPUBIND_MAP && b->list ? b->list : "")
        < 0)
        return NULL;
    return s;
}
