/* distrib.c - parse srun -m and number a step's tasks; see distrib.h.
 *
 * Block numbering is a running sum. Cyclic and plane are one walk: passes
 * over the nodes that still have room, each node taking up to 'step'
 * consecutive ranks in its turn (1 for cyclic, the plane size for plane).
 * Nodes that fill up leave the list of active nodes, so the walk costs
 * O(tasks + nodes) however uneven the counts are.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "distrib.h"

/* The second and third levels (socket, core), accepted and ignored. */
static const char *const distrib_levels[] = { "*", "block", "cyclic", "fcyclic",
                                              NULL };

/* s[0..len) is 'word', ignoring case. */
static bool distrib_is (const char *s, size_t len, const char *word)
{
    return strlen (word) == len && !strncasecmp (s, word, len);
}

/* A plane size: decimal digits only, 1..UINT32_MAX. */
static int distrib_plane_size (const char *s, size_t len, uint32_t *plane)
{
    uint64_t v = 0;

    if (len == 0 || len > 10)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v == 0 || v > UINT32_MAX)
        return -1;
    *plane = (uint32_t)v;
    return 0;
}

/* The node level, s[0..len). */
static int distrib_first (const char *s, size_t len, enum distrib *d,
                          uint32_t *plane)
{
    *plane = 0;
    if (distrib_is (s, len, "block") || distrib_is (s, len, "*"))
        *d = DISTRIB_BLOCK;
    else if (distrib_is (s, len, "cyclic"))
        *d = DISTRIB_CYCLIC;
    else if (distrib_is (s, len, "arbitrary"))
        *d = DISTRIB_ARBITRARY;
    else if (len >= 6 && !strncasecmp (s, "plane=", 6)) {
        *d = DISTRIB_PLANE;
        return distrib_plane_size (s + 6, len - 6, plane);
    } else
        return -1;
    return 0;
}

/* The ":level" parts in s[0..len), each starting with ':'; at most two. */
static int distrib_more_levels (const char *s, size_t len)
{
    const char *end = s + len;
    int count = 0;

    while (s < end) {
        const char *word = s + 1;
        const char *next = memchr (word, ':', (size_t)(end - word));
        size_t wlen = (size_t)((next ? next : end) - word);
        bool known = false;

        for (size_t i = 0; distrib_levels[i] && !known; i++)
            known = distrib_is (word, wlen, distrib_levels[i]);
        if (!known || ++count > 2)
            return -1;
        s = next ? next : end;
    }
    return 0;
}

int distrib_parse (const char *s, enum distrib *d, uint32_t *plane,
                   arbor_error_t *err)
{
    const char *comma, *colon;
    size_t len, first;
    enum distrib dd = DISTRIB_BLOCK;
    uint32_t pp = 0;

    if (!s || !*s || !d || !plane) {
        errno = EINVAL;
        return errprintf (err, "empty distribution");
    }
    comma = strchr (s, ',');
    len = comma ? (size_t)(comma - s) : strlen (s);
    if (comma && strcasecmp (comma + 1, "Pack")
        && strcasecmp (comma + 1, "NoPack"))
        goto invalid;
    colon = memchr (s, ':', len);
    first = colon ? (size_t)(colon - s) : len;
    if (distrib_first (s, first, &dd, &pp) < 0) {
        if (first >= 5 && !strncasecmp (s, "plane", 5))
            goto bad_plane;
        goto invalid;
    }
    if (distrib_more_levels (s + first, len - first) < 0)
        goto invalid;
    *d = dd;
    *plane = pp;
    return 0;
bad_plane:
    errno = EINVAL;
    return errprintf (err,
                      "invalid distribution '%.40s' (plane needs a size: "
                      "plane=N, N >= 1)",
                      s);
invalid:
    errno = EINVAL;
    return errprintf (err,
                      "invalid distribution '%.40s' (block, cyclic, plane=N "
                      "or arbitrary[:level][,Pack|NoPack])",
                      s);
}

static void distrib_block (size_t total, uint32_t *ranks)
{
    for (size_t r = 0; r < total; r++)
        ranks[r] = (uint32_t)r;
}

/* Round-robin over the nodes with room, each taking up to 'step' ranks in
 * its turn; next[i] is where node i writes, end[i] where its slice ends. */
static int distrib_round_robin (uint32_t step, const uint32_t *counts, size_t n,
                                uint32_t *ranks)
{
    size_t *next = calloc (n ? 3 * n : 1, sizeof (*next)), *end, *active;
    size_t nactive = 0, pos = 0;
    uint32_t r = 0;

    if (!next) {
        errno = ENOMEM;
        return -1;
    }
    end = next + n;
    active = next + 2 * n;
    for (size_t i = 0; i < n; i++) {
        next[i] = pos;
        pos += counts[i];
        end[i] = pos;
        if (counts[i] > 0)
            active[nactive++] = i;
    }
    while (nactive > 0) {
        size_t keep = 0;
        for (size_t a = 0; a < nactive; a++) {
            size_t i = active[a];
            for (uint32_t k = 0; k < step && next[i] < end[i]; k++)
                ranks[next[i]++] = r++;
            if (next[i] < end[i])
                active[keep++] = i;
        }
        nactive = keep;
    }
    free (next);
    return 0;
}

int distrib_ranks (enum distrib d, uint32_t plane, const uint32_t *counts,
                   size_t n, uint32_t *ranks)
{
    uint64_t total = 0;

    if ((n > 0 && !counts) || (d == DISTRIB_PLANE && plane == 0)) {
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        total += counts[i];
    if (total > UINT32_MAX || (total > 0 && !ranks)) {
        errno = EINVAL;
        return -1;
    }
    switch (d) {
    case DISTRIB_BLOCK:
    case DISTRIB_ARBITRARY: distrib_block ((size_t)total, ranks); return 0;
    case DISTRIB_CYCLIC: return distrib_round_robin (1, counts, n, ranks);
    case DISTRIB_PLANE: return distrib_round_robin (plane, counts, n, ranks);
    }
    errno = EINVAL;
    return -1;
}

const char *distrib_name (enum distrib d)
{
    switch (d) {
    case DISTRIB_BLOCK: return "block";
    case DISTRIB_CYCLIC: return "cyclic";
    case DISTRIB_PLANE: return "plane";
    case DISTRIB_ARBITRARY: return "arbitrary";
    }
    return "unknown";
}
