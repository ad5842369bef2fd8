/* gresspec.c - generic resources a job asks for (--gres, --gpus*); see
 * gresspec.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gresspec.h"

static bool word_ok (const char *s, size_t len, size_t max, bool is_type)
{
    if (len == 0 || len > max)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isalnum ((unsigned char)s[i]) && s[i] != '_'
            && !(is_type && (s[i] == '-' || s[i] == '.')))
            return false;
    return true;
}

/* A count: digits, then k, m or g (x1024 each). 0 if not one. */
static uint64_t count_of (const char *s, size_t len)
{
    uint64_t v = 0, mult = 1;

    if (len && strchr ("kKmMgG", s[len - 1])) {
        char u = (char)tolower ((unsigned char)s[--len]);
        mult = u == 'k' ? 1024 : u == 'm' ? 1024 * 1024 : 1024 * 1024 * 1024;
    }
    if (len == 0 || len > 13)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit ((unsigned char)s[i]))
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    v *= mult;
    return v > GRESSPEC_COUNT_MAX ? 0 : v;
}

static int item_fail (arbor_error_t *err, const char *opt, const char *s,
                      const char *what)
{
    errno = EINVAL;
    if (strlen (s) > 60)
        return errprintf (err, "invalid %s: %s", opt, what);
    return errprintf (err, "invalid %s \"%s\": %s", opt, s, what);
}

/* Split item [a, a+len) at ':' into up to three parts. */
static size_t split (const char *a, size_t len, const char *part[3],
                     size_t plen[3])
{
    size_t n = 0;
    const char *start = a, *end = a + len;

    for (const char *p = a; p <= end; p++) {
        if (p < end && *p != ':')
            continue;
        if (n == 3)
            return 4;
        part[n] = start;
        plen[n++] = (size_t)(p - start);
        start = p + 1;
    }
    return n;
}

/* One item into r: name[:type][:count] (gres) or [type:]count (gpus). */
static const char *parse_item (const char *a, size_t len, bool gpus,
                               struct gres_req *r)
{
    const char *part[3];
    size_t plen[3], n = split (a, len, part, plen);
    const char *name = "gpu", *type = "";
    size_t nlen = 3, tlen = 0;
    uint64_t count = 1;

    if (n == 0 || n > (gpus ? 2u : 3u))
        return gpus ? "expected [type:]count" : "expected name[:type][:count]";
    if (gpus) {
        if (!(count = count_of (part[n - 1], plen[n - 1])))
            return "a count of at least 1 expected";
        if (n == 2)
            type = part[0], tlen = plen[0];
    } else {
        name = part[0], nlen = plen[0];
        /* name:x is a count when x reads as one (digits, a k/m/g
         * suffix), else a type: "gpu:2", "gpu:3g.20gb" */
        if (n == 2 && !count_of (part[1], plen[1])
            && strspn (part[1], "0123456789") < plen[1])
            type = part[1], tlen = plen[1];
        else if (n == 3)
            type = part[1], tlen = plen[1];
        if ((n == 3 || (n == 2 && !tlen))
            && !(count = count_of (part[n - 1], plen[n - 1])))
            return "a count of at least 1 expected";
    }
    if (!word_ok (name, nlen, GRESSPEC_NAME_MAX, false))
        return "a resource name of letters, digits and '_' expected";
    if (tlen && !word_ok (type, tlen, GRESSPEC_TYPE_MAX, true))
        return "a type of letters, digits and '_-.' expected";
    if ((n == 2 || n == 3) && plen[n - 1] == 0)
        return "an empty part";
    memcpy (r->name, name, nlen);
    r->name[nlen] = '\0';
    memcpy (r->type, type, tlen);
    r->type[tlen] = '\0';
    r->count = count;
    return NULL;
}

static int parse_list (const char *opt, const char *s, bool gpus,
                       struct gresspec *out, arbor_error_t *err)
{
    const char *p = s ? s : "";

    memset (out, 0, sizeof (*out));
    if (!gpus && !strcmp (p, "none"))
        return 0;
    if (!*p)
        return item_fail (err, opt, p, "empty");
    while (*p) {
        size_t len = strcspn (p, ",");
        struct gres_req r;
        const char *why = parse_item (p, len, gpus, &r);
        if (!why && out->n == GRESSPEC_MAX)
            why = "too many resources";
        for (size_t i = 0; !why && i < out->n; i++)
            if (!strcmp (out->v[i].name, r.name)
                && !strcmp (out->v[i].type, r.type))
                why = "a resource given twice";
        if (why) {
            memset (out, 0, sizeof (*out));
            return item_fail (err, opt, s, why);
        }
        out->v[out->n++] = r;
        p += len + (p[len] == ',');
        if (p[-1] == ',' && !*p) {
            memset (out, 0, sizeof (*out));
            return item_fail (err, opt, s, "an empty part");
        }
    }
    return 0;
}

int gresspec_parse (const char *s, struct gresspec *out, arbor_error_t *err)
{
    return parse_list ("--gres", s, false, out, err);
}

int gresspec_parse_as (const char *what, const char *s, struct gresspec *out,
                       arbor_error_t *err)
{
    return parse_list (what, s, false, out, err);
}

int gresspec_parse_gpus (const char *opt, const char *s, struct gresspec *out,
                         arbor_error_t *err)
{
    return parse_list (opt, s, true, out, err);
}

bool gres_req_same (const struct gres_req *a, const struct gres_req *b)
{
    return a->count == b->count && !strcmp (a->name, b->name)
           && !strcmp (a->type, b->type);
}

int gresspec_parse_gpu (const char *opt, const char *s, struct gres_req *out,
                        arbor_error_t *err)
{
    struct gresspec g;

    memset (out, 0, sizeof (*out));
    if (gresspec_parse_gpus (opt, s, &g, err) < 0)
        return -1;
    if (g.n != 1) {
        errno = EINVAL;
        return errprintf (err, "invalid %s \"%.60s\": one [type:]count", opt,
                          s);
    }
    *out = g.v[0];
    return 0;
}

const char *gresspec_text (const struct gresspec *g, char *buf, size_t len)
{
    size_t at = 0;

    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < g->n && at < len; i++) {
        const struct gres_req *r = &g->v[i];
        at += (size_t)snprintf (buf + at, len - at, "%s%s%s%s:%llu",
                                i ? "," : "", r->name, *r->type ? ":" : "",
                                r->type, (unsigned long long)r->count);
    }
    return buf;
}
