/* cores.c - a node's core mask as text, "0-1,4", and back: in step
 * credentials (the cores a step was given) and in the state database (a
 * job's and a step's cores). See cores.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/cores.h"

char *cores_ranged (const uint8_t *mask, uint32_t n)
{
    size_t cap = 1, len = 0;
    char *out;

    for (uint32_t i = 0; i < n; i++)
        cap += mask[i] ? 24 : 0;
    if (!(out = malloc (cap)))
        return NULL;
    out[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        uint32_t end = i;
        if (!mask[i])
            continue;
        while (end + 1 < n && mask[end + 1])
            end++;
        len +=
            (size_t)snprintf (out + len, cap - len, "%s%u", len ? "," : "", i);
        if (end > i)
            len += (size_t)snprintf (out + len, cap - len, "-%u", end);
        i = end;
    }
    return out;
}

int cores_mask_parse (const char *s, uint8_t *mask, uint32_t n)
{
    memset (mask, 0, n);
    while (s && *s) {
        char *end;
        unsigned long lo = strtoul (s, &end, 10), hi = lo;
        if (end == s)
            goto bad;
        if (*end == '-') {
            s = end + 1;
            hi = strtoul (s, &end, 10);
            if (end == s)
                goto bad;
        }
        if (lo > hi || hi >= n)
            goto bad;
        for (unsigned long c = lo; c <= hi; c++)
            mask[c] = 1;
        if (*end != ',' && *end != '\0')
            goto bad;
        s = *end ? end + 1 : end;
    }
    return 0;
bad:
    errno = EINVAL;
    return -1;
}
