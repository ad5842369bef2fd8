/* hostlist.c - Slurm-style host list expressions, expanded and ranged.
 *
 * An expression is a list of items separated by commas (or white space)
 * outside brackets. An item is literal text with zero or more bracket
 * groups; a group is a comma-separated list of numbers and ranges
 * ("[1-3,7,010-012]"). Several groups in one item expand as a cross
 * product, leftmost slowest. A range keeps the width of its lower bound,
 * so "n[08-10]" gives n08 n09 n10 and "n[8-10]" gives n8 n9 n10.
 *
 * hostlist_ranged() is the inverse: adjacent hosts sharing a prefix and a
 * compatible numeric tail (the last run of digits, at the very end of the
 * name) merge into one bracket group. It never reorders, so
 * hostlist_create (hostlist_ranged (h)) gives h back exactly.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

#define HOSTLIST_MAX 1000000
#define HOSTLIST_DIGITS_MAX 18 /* fits an unsigned long long */
#define HOSTLIST_GROUPS_MAX 16 /* bracket groups in one name */

/* Every host's name, NUL-terminated, one after another in one buffer:
 * expanding a 1,024-node list makes a few allocations, not one per host
 * (every node of a launch expands the credential's list). */
struct hostlist {
    char *names;
    size_t len, room; /* bytes used and allocated in names */
    size_t *offs;     /* where each host starts in names */
    size_t count, alloc;
};

/* One number or range inside brackets: lo..hi, printed 'width' wide. */
struct hl_range {
    unsigned long long lo, hi;
    int width;
};

/* A bracket group: its ranges, their total count of values, and the
 * odometer's place in it while a product is written. */
struct hl_group {
    struct hl_range *r;
    size_t nr;
    size_t n;
    size_t ri;            /* current range */
    unsigned long long x; /* current value in it */
};

struct hostlist *hostlist_create (const char *expr, arbor_error_t *err)
{
    struct hostlist *hl = calloc (1, sizeof (*hl));

    if (!hl) {
        errprintf (err, "out of memory");
        return NULL;
    }
    if (expr && hostlist_append_expr (hl, expr, err) < 0) {
        hostlist_destroy (hl);
        return NULL;
    }
    return hl;
}

/* Drop hosts from index 'count' on. */
static void hostlist_truncate (struct hostlist *hl, size_t count)
{
    if (hl->count > count) {
        hl->len = count ? hl->offs[count] : 0;
        hl->count = count;
    }
}

void hostlist_destroy (struct hostlist *hl)
{
    int e = errno;

    if (!hl)
        return;
    free (hl->names);
    free (hl->offs);
    free (hl);
    errno = e;
}

size_t hostlist_count (const struct hostlist *hl)
{
    return hl ? hl->count : 0;
}

static const char *hl_host (const struct hostlist *hl, size_t i)
{
    return hl->names + hl->offs[i];
}

const char *hostlist_nth (const struct hostlist *hl, size_t i)
{
    if (!hl || i >= hl->count)
        return NULL;
    return hl_host (hl, i);
}

int hostlist_find (const struct hostlist *hl, const char *host)
{
    if (!hl || !host)
        return -1;
    for (size_t i = 0; i < hl->count && i <= INT32_MAX; i++) {
        if (!strcmp (hl_host (hl, i), host))
            return (int)i;
    }
    return -1;
}

struct hostlist_index {
    const struct hostlist *hl;
    size_t *order; /* host indices sorted by name, then by index */
    size_t n;
};

static int hl_index_cmp (const void *a, const void *b, void *arg)
{
    const struct hostlist *hl = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = strcmp (hl_host (hl, i), hl_host (hl, j));

    return c ? c : (i > j) - (i < j);
}

struct hostlist_index *hostlist_index_create (const struct hostlist *hl)
{
    struct hostlist_index *ix = calloc (1, sizeof (*ix));
    size_t n = hostlist_count (hl);

    if (!ix || !(ix->order = malloc ((n ? n : 1) * sizeof (size_t)))) {
        free (ix);
        errno = ENOMEM;
        return NULL;
    }
    ix->hl = hl;
    ix->n = n;
    for (size_t i = 0; i < n; i++)
        ix->order[i] = i;
    qsort_r (ix->order, n, sizeof (size_t), hl_index_cmp, (void *)hl);
    return ix;
}

int hostlist_index_find (const struct hostlist_index *ix, const char *host)
{
    size_t lo = 0, hi;

    if (!ix || !host)
        return -1;
    hi = ix->n;
    while (lo < hi) { /* the first name >= host: its lowest index */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp (hl_host (ix->hl, ix->order[mid]), host) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == ix->n || strcmp (hl_host (ix->hl, ix->order[lo]), host) != 0
        || ix->order[lo] > INT32_MAX)
        return -1;
    return (int)ix->order[lo];
}

void hostlist_index_destroy (struct hostlist_index *ix)
{
    if (ix) {
        free (ix->order);
        free (ix);
    }
}

/* Grow *buf (holding *room elements of 'size' bytes) to at least 'need'
 * elements, doubling. */
static int hl_grow (void **buf, size_t *room, size_t need, size_t size,
                    size_t first)
{
    size_t n = *room ? *room : first;
    void *p;

    if (need <= *room)
        return 0;
    while (n < need)
        n *= 2;
    if (!(p = realloc (*buf, n * size))) {
        errno = ENOMEM;
        return -1;
    }
    *buf = p;
    *room = n;
    return 0;
}

/* Append a copy of the n bytes at 'host' as one more host. */
static int hostlist_push (struct hostlist *hl, const char *host, size_t n)
{
    if (hl_grow ((void **)&hl->offs, &hl->alloc, hl->count + 1,
                 sizeof (*hl->offs), 16)
            < 0
        || hl_grow ((void **)&hl->names, &hl->room, hl->len + n + 1, 1, 256)
               < 0)
        return -1;
    memcpy (hl->names + hl->len, host, n);
    hl->names[hl->len + n] = '\0';
    hl->offs[hl->count++] = hl->len;
    hl->len += n + 1;
    return 0;
}

int hostlist_append (struct hostlist *hl, const char *host)
{
    if (!hl || !host || !*host || strpbrk (host, "[], \t\n")) {
        errno = EINVAL;
        return -1;
    }
    if (hl->count >= HOSTLIST_MAX) {
        errno = E2BIG;
        return -1;
    }
    return hostlist_push (hl, host, strlen (host));
}

static void hl_group_free (struct hl_group *g)
{
    free (g->r);
    g->r = NULL;
    g->n = g->nr = 0;
}

/* Parse a run of digits at *p into *val; its length goes to *len. */
static int hl_parse_number (const char **p, unsigned long long *val, int *len)
{
    const char *s = *p;
    unsigned long long v = 0;
    int n = 0;

    while (*s >= '0' && *s <= '9') {
        if (++n > HOSTLIST_DIGITS_MAX)
            return -1;
        v = v * 10 + (unsigned long long)(*s - '0');
        s++;
    }
    if (n == 0)
        return -1;
    *p = s;
    *val = v;
    *len = n;
    return 0;
}

/* Parse "a" or "a-b" at *p. */
static int hl_parse_range (const char **p, struct hl_range *r, const char *expr,
                           arbor_error_t *err)
{
    int lo_len, hi_len;

    if (hl_parse_number (p, &r->lo, &lo_len) < 0)
        goto bad;
    r->hi = r->lo;
    r->width = lo_len;
    if (**p == '-') {
        (*p)++;
        if (hl_parse_number (p, &r->hi, &hi_len) < 0)
            goto bad;
        if (r->hi < r->lo) {
            errno = EINVAL;
            return errprintf (err,
                              "hostlist '%.60s': range %llu-%llu is "
                              "decreasing",
                              expr, r->lo, r->hi);
        }
    }
    if (**p != ',' && **p != ']')
        goto bad;
    return 0;
bad:
    errno = EINVAL;
    return errprintf (err,
                      "hostlist '%.60s': bad range in brackets at "
                      "'%.20s'",
                      expr, *p);
}

/* Append range 'r' to group 'g'. */
static int hl_group_add (struct hl_group *g, const struct hl_range *r)
{
    struct hl_range *v = realloc (g->r, (g->nr + 1) * sizeof (*v));

    if (!v)
        return -1;
    g->r = v;
    g->r[g->nr++] = *r;
    g->n += (size_t)(r->hi - r->lo + 1);
    return 0;
}

/* Parse the bracket group starting after '[' at *p, up to its ']'.
 * 'room' is how many strings the group may hold before the cap. */
static int hl_parse_group (const char **p, struct hl_group *g, size_t room,
                           const char *expr, arbor_error_t *err)
{
    for (;;) {
        struct hl_range r = { 0, 0, 0 };
        if (hl_parse_range (p, &r, expr, err) < 0)
            return -1;
        if (r.hi - r.lo >= room - g->n) {
            errno = E2BIG;
            return errprintf (err, "hostlist '%.60s': more than %d hosts", expr,
                              HOSTLIST_MAX);
        }
        if (hl_group_add (g, &r) < 0) {
            errno = ENOMEM;
            return errprintf (err, "out of memory");
        }
        if (*(*p)++ == ']')
            return 0;
    }
}

/* Write v, zero-padded to 'width', at w; returns the end. */
static char *hl_put_num (char *w, unsigned long long v, int width)
{
    char digits[24];
    int n = 0;

    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (width-- > n)
        *w++ = '0';
    while (n > 0)
        *w++ = digits[--n];
    return w;
}

/* Move the odometer: rightmost group fastest. False when it wrapped. */
static bool hl_odometer_next (struct hl_group *g, size_t ng)
{
    for (size_t k = ng; k > 0; k--) {
        struct hl_group *c = &g[k - 1];
        if (c->x < c->r[c->ri].hi) {
            c->x++;
            return true;
        }
        if (c->ri + 1 < c->nr) {
            c->x = c->r[++c->ri].lo;
            return true;
        }
        c->ri = 0;
        c->x = c->r[0].lo;
    }
    return false;
}

/* Append to 'hl' the cross product text[0] g[0] text[1] g[1] ... text[n]. */
static int hl_product (struct hostlist *hl, char **text, struct hl_group *g,
                       size_t ng)
{
    size_t len = 0;
    char *name;
    int rc = 0;

    for (size_t i = 0; i <= ng; i++)
        len += strlen (text[i]);
    for (size_t i = 0; i < ng; i++) {
        len += HOSTLIST_DIGITS_MAX + 2; /* any number of the group */
        g[i].ri = 0;
        g[i].x = g[i].r[0].lo;
    }
    if (!(name = malloc (len + 1)))
        return -1;
    do {
        char *w = name;
        for (size_t i = 0; i <= ng; i++) {
            w = stpcpy (w, text[i]);
            if (i < ng)
                w = hl_put_num (w, g[i].x, g[i].r[g[i].ri].width);
        }
        if ((rc = hostlist_push (hl, name, (size_t)(w - name))) < 0)
            break;
    } while (hl_odometer_next (g, ng));
    free (name);
    return rc;
}

/* Split 'item' (len bytes) into literal texts and bracket groups. */
static int hl_split_item (const char *item, size_t len, char **text,
                          struct hl_group *g, size_t *ng, size_t room,
                          const char *expr, arbor_error_t *err)
{
    const char *p = item, *end = item + len;
    size_t product = 1;

    *ng = 0;
    for (;;) {
        const char *b = memchr (p, '[', (size_t)(end - p));
        const char *stop = b ? b : end;
        if (memchr (p, ']', (size_t)(stop - p))) {
            errno = EINVAL;
            return errprintf (err, "hostlist '%.60s': unbalanced ']'", expr);
        }
        if (!(text[*ng] = strndup (p, (size_t)(stop - p)))) {
            errno = ENOMEM;
            return errprintf (err, "out of memory");
        }
        if (!b)
            return 0;
        p = b + 1;
        if (hl_parse_group (&p, &g[*ng], room / product, expr, err) < 0) {
            hl_group_free (&g[*ng]);
            return -1;
        }
        product *= g[*ng].n;
        (*ng)++;
    }
}

/* Expand one item, len bytes at 'item', onto hl. */
static int hl_expand_item (struct hostlist *hl, const char *item, size_t len,
                           const char *expr, arbor_error_t *err)
{
    size_t nb = 0, ng = 0;
    int rc = -1;

    for (size_t i = 0; i < len; i++)
        nb += item[i] == '[';
    if (nb > HOSTLIST_GROUPS_MAX) {
        errno = EINVAL;
        return errprintf (err,
                          "hostlist '%.60s': more than %d bracket "
                          "groups in one name",
                          expr, HOSTLIST_GROUPS_MAX);
    }
    if (hl->count >= HOSTLIST_MAX) {
        errno = E2BIG;
        return errprintf (err, "hostlist '%.60s': more than %d hosts", expr,
                          HOSTLIST_MAX);
    }
    char *text[nb + 1];
    struct hl_group g[nb + 1];
    memset (text, 0, sizeof (text));
    memset (g, 0, sizeof (g));

    if (hl_split_item (item, len, text, g, &ng, HOSTLIST_MAX - hl->count, expr,
                       err)
        < 0)
        goto out;
    if (hl_product (hl, text, g, ng) < 0) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
        goto out;
    }
    rc = 0;
out:
    for (size_t i = 0; i <= nb; i++) {
        free (text[i]);
        hl_group_free (&g[i]);
    }
    return rc;
}

static bool hl_is_sep (char c)
{
    return c == ',' || c == ' ' || c == '\t' || c == '\n';
}

/* Length of the item at 'p': up to a separator outside brackets. Nested
 * or unclosed brackets give -1. */
static long hl_item_len (const char *p, const char *expr, arbor_error_t *err)
{
    const char *s = p;
    bool open = false;

    for (; *s && (open || !hl_is_sep (*s)); s++) {
        if (*s == '[') {
            if (open) {
                errno = EINVAL;
                return errprintf (err, "hostlist '%.60s': nested '['", expr);
            }
            open = true;
        } else if (*s == ']') {
            if (!open) {
                errno = EINVAL;
                return errprintf (err, "hostlist '%.60s': unbalanced ']'",
                                  expr);
            }
            open = false;
        }
    }
    if (open) {
        errno = EINVAL;
        return errprintf (err, "hostlist '%.60s': missing ']'", expr);
    }
    return (long)(s - p);
}

int hostlist_append_expr (struct hostlist *hl, const char *expr,
                          arbor_error_t *err)
{
    size_t start;
    const char *p = expr;

    if (!hl) {
        errno = EINVAL;
        return errprintf (err, "no hostlist");
    }
    if (!expr)
        return 0;
    start = hl->count;
    while (*p) {
        long len;
        if (hl_is_sep (*p)) {
            p++;
            continue;
        }
        if ((len = hl_item_len (p, expr, err)) < 0
            || hl_expand_item (hl, p, (size_t)len, expr, err) < 0) {
            int e = errno;
            hostlist_truncate (hl, start);
            errno = e;
            return -1;
        }
        p += len;
    }
    return 0;
}

/* The numeric tail of a host name: its last run of digits, at the very
 * end. Sets *tail (NULL if none) and returns the prefix length. */
static size_t hl_split_tail (const char *host, const char **tail)
{
    size_t len = strlen (host), i = len;

    while (i > 0 && host[i - 1] >= '0' && host[i - 1] <= '9')
        i--;
    if (i == len || len - i > HOSTLIST_DIGITS_MAX) {
        *tail = NULL;
        return len;
    }
    *tail = host + i;
    return i;
}

/* A group's width: that of its first tail if zero-padded, else 0
 * (natural numbers). */
static int hl_width (const char *tail)
{
    return (tail[0] == '0' && tail[1]) ? (int)strlen (tail) : 0;
}

/* Does 'tail' print as itself when padded to 'width'? Then it can share a
 * range with other numbers of that width. */
static bool hl_fits (const char *tail, int width)
{
    size_t len = strlen (tail);
    bool padded = tail[0] == '0' && len > 1;

    if (width == 0)
        return !padded;
    return len == (size_t)width || (len > (size_t)width && !padded);
}

/* Growable output string. */
struct hl_buf {
    char *s;
    size_t len, alloc;
};

static int hl_buf_add (struct hl_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->alloc) {
        size_t a = b->alloc ? b->alloc : 64;
        while (a < b->len + n + 1)
            a *= 2;
        char *p = realloc (b->s, a);
        if (!p)
            return -1;
        b->s = p;
        b->alloc = a;
    }
    memcpy (b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

static int hl_buf_num (struct hl_buf *b, unsigned long long v, int width)
{
    char num[HOSTLIST_DIGITS_MAX + 2];

    return hl_buf_add (b, num, (size_t)(hl_put_num (num, v, width) - num));
}

/* How many hosts from 'i' on join the group of hosts[i]. */
static size_t hl_group_len (const struct hostlist *hl, size_t i)
{
    const char *tail, *t;
    size_t plen = hl_split_tail (hl_host (hl, i), &tail), j = i + 1;

    if (!tail)
        return 1;
    int width = hl_width (tail);
    for (; j < hl->count; j++) {
        if (hl_split_tail (hl_host (hl, j), &t) != plen || !t
            || strncmp (hl_host (hl, i), hl_host (hl, j), plen) != 0
            || !hl_fits (t, width))
            break;
    }
    return j - i;
}

/* Write the group hosts[i..i+n) as "prefix[a-b,c]". */
static int hl_ranged_group (struct hl_buf *b, const struct hostlist *hl,
                            size_t i, size_t n)
{
    const char *tail;
    size_t plen = hl_split_tail (hl_host (hl, i), &tail);
    int width = hl_width (tail);

    if (hl_buf_add (b, hl_host (hl, i), plen) < 0 || hl_buf_add (b, "[", 1) < 0)
        return -1;
    for (size_t k = 0; k < n;) {
        unsigned long long lo, v;
        size_t run = 1;
        hl_split_tail (hl_host (hl, i + k), &tail);
        lo = strtoull (tail, NULL, 10);
        while (k + run < n) {
            hl_split_tail (hl_host (hl, i + k + run), &tail);
            v = strtoull (tail, NULL, 10);
            if (v != lo + run)
                break;
            run++;
        }
        if ((k > 0 && hl_buf_add (b, ",", 1) < 0)
            || hl_buf_num (b, lo, width) < 0
            || (run > 1
                && (hl_buf_add (b, "-", 1) < 0
                    || hl_buf_num (b, lo + run - 1, width) < 0)))
            return -1;
        k += run;
    }
    return hl_buf_add (b, "]", 1);
}

char *hostlist_ranged (const struct hostlist *hl)
{
    struct hl_buf b = { NULL, 0, 0 };

    if (hl_buf_add (&b, "", 0) < 0)
        goto nomem;
    for (size_t i = 0; hl && i < hl->count;) {
        size_t n = hl_group_len (hl, i);
        if (i > 0 && hl_buf_add (&b, ",", 1) < 0)
            goto nomem;
        if (n == 1) {
            if (hl_buf_add (&b, hl_host (hl, i), strlen (hl_host (hl, i))) < 0)
                goto nomem;
        } else if (hl_ranged_group (&b, hl, i, n) < 0) {
            goto nomem;
        }
        i += n;
    }
    return b.s;
nomem:
    free (b.s);
    errno = ENOMEM;
    return NULL;
}
