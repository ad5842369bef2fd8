/* licspec.h - license lists, as arbor.conf's Licenses= and -L/--licenses
 * write them (slurm.conf(5), sbatch(1)).
 *
 *     fluent:30,ansys       all of these; a missing count is 1
 *     fluent:2|ansys:4      any one of these, tried in this order (-L only)
 *
 * A name is up to LICSPEC_NAME_MAX bytes of printable characters other
 * than the separators (',', '|', ':') and '='; names are case-sensitive.
 * ',' and '|' are not mixed, as in Slurm. In an all-of list a name given
 * twice adds up ("a:1,a:2" is "a:3"); in Licenses= it is an error.
 * Pure functions, shared by the commands (early checks) and the
 * controller (the pool, the requests).
 */
#ifndef ARBOR_LICSPEC_H
#define ARBOR_LICSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define LICSPEC_MAX 64              /* licenses in one list */
#define LICSPEC_NAME_MAX 64         /* bytes of one name */
#define LICSPEC_COUNT_MAX 100000000 /* one count; sums stay far from 2^32 */

/* How a list may be written. */
enum licspec_use {
    LICSPEC_JOB,  /* -L: '|' allowed, counts >= 1, repeats add up */
    LICSPEC_CONF, /* Licenses=: ',' only, counts >= 0, names once */
};

struct licspec_item {
    char *name;
    uint32_t count;
};

struct licspec {
    struct licspec_item *items;
    size_t n;
    bool any; /* '|': one of the items is enough */
};

/* Parse 's' (NULL or "" is the empty list). 0, or -1 with errno EINVAL
 * (err says what is wrong, quoting the offending part) or ENOMEM; 'out'
 * untouched on failure. */
int licspec_parse (const char *s, enum licspec_use use, struct licspec *out,
                   arbor_error_t *err);
/* The list in its canonical form, every count written: "a:1,b:2",
 * "a:1|b:2", "" for none. Caller frees; NULL with errno ENOMEM. */
char *licspec_text (const struct licspec *s);
/* A deep copy into dst (whatever it held is not freed). -1 ENOMEM. */
int licspec_copy (struct licspec *dst, const struct licspec *src);
void licspec_clear (struct licspec *s);

/* The choices a list offers: each item of an any-of list alone, or the
 * whole of an all-of list (none for the empty list). Choice k is items
 * [*first, *first + *count). */
size_t licspec_choices (const struct licspec *s);
void licspec_choice (const struct licspec *s, size_t k, size_t *first,
                     size_t *count);

#endif
