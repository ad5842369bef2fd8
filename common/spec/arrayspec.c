/* arrayspec.c - job array index expressions; see arrayspec.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arrayspec.h"

/* A decimal number at *p (advanced); false if none or too large. */
static bool num (const char **p, uint32_t *out)
{
    uint64_t v = 0;
    const char *s = *p;

    if (*s < '0' || *s > '9')
        return false;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s++ - '0');
        if (v > UINT32_MAX)
            return false;
    }
    *p = s;
    *out = (uint32_t)v;
    return true;
}

/* One item "N", "N-M" or "N-M:S" at *p, marked in 'seen'. */
static int item (const char **p, uint32_t max, bool *seen, const char *s,
                 arbor_error_t *err)
{
    uint32_t lo, hi, step = 1;

    if (!num (p, &lo))
        return errprintf (err,
                          "invalid --array '%s': expected an index at "
                          "'%s'",
                          s, *p);
    hi = lo;
    if (**p == '-') {
        (*p)++;
        if (!num (p, &hi) || hi < lo)
            return errprintf (err, "invalid --array '%s': bad range end", s);
        if (**p == ':') {
            (*p)++;
            if (!num (p, &step) || step == 0)
                return errprintf (err, "invalid --array '%s': bad step", s);
        }
    }
    if (hi > max)
        return errprintf (err,
                          "invalid --array '%s': index %u is over the "
                          "largest allowed, %u (MaxArraySize - 1)",
                          s, hi, max);
    for (uint64_t i = lo; i <= hi; i += step)
        seen[i] = true;
    return 0;
}

static int collect (const bool *seen, uint32_t max, struct arrayspec *out)
{
    size_t n = 0, k = 0;

    for (uint64_t i = 0; i <= max; i++)
        n += seen[i];
    if (!(out->ids = malloc (n * sizeof (*out->ids))))
        return -1;
    for (uint64_t i = 0; i <= max; i++)
        if (seen[i])
            out->ids[k++] = (uint32_t)i;
    out->n = n;
    return 0;
}

int arrayspec_parse (const char *s, uint32_t max_index, struct arrayspec *out,
                     arbor_error_t *err)
{
    struct arrayspec a = { 0 };
    const char *p = s;
    bool *seen;
    int rc = -1;

    if (max_index > ARRAYSPEC_MAX_INDEX)
        max_index = ARRAYSPEC_MAX_INDEX;
    seen = calloc ((size_t)max_index + 1, sizeof (bool));

    errno = EINVAL;
    if (!seen) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    if (!*s) {
        errprintf (err, "invalid --array '': no index");
        goto out;
    }
    for (;;) {
        if (item (&p, max_index, seen, s, err) < 0)
            goto out;
        /* "%N" usually ends the expression; it is taken after any item
         * ("0-99%10,200"), for the whole array. */
        if (*p == '%' && (p++, !num (&p, &a.throttle) || a.throttle == 0)) {
            errprintf (err,
                       "invalid --array '%s': %%N needs a count of 1 "
                       "or more",
                       s);
            goto out;
        }
        if (*p != ',')
            break;
        p++;
    }
    if (*p) {
        errprintf (err, "invalid --array '%s': unexpected '%s'", s, p);
        goto out;
    }
    if (collect (seen, max_index, &a) < 0) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
        goto out;
    }
    *out = a;
    rc = 0;
out:
    free (seen);
    return rc;
}

void arrayspec_clear (struct arrayspec *a)
{
    free (a->ids);
    memset (a, 0, sizeof (*a));
}
