/* depspec.c - job dependency expressions; see depspec.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "depspec.h"

static const char *const dep_names[] = {
    [DEP_AFTER] = "after",         [DEP_AFTERANY] = "afterany",
    [DEP_AFTEROK] = "afterok",     [DEP_AFTERNOTOK] = "afternotok",
    [DEP_SINGLETON] = "singleton",
};

const char *dep_type_name (enum dep_type t)
{
    return t <= DEP_SINGLETON ? dep_names[t] : "?";
}

/* A positive decimal id at *p (advanced). */
static int dep_num (const char **p, uint32_t *out)
{
    char *end;
    unsigned long v;

    if (**p < '0' || **p > '9')
        return -1;
    errno = 0;
    v = strtoul (*p, &end, 10);
    if (errno || v > UINT32_MAX - 1)
        return -1;
    *p = end;
    *out = (uint32_t)v;
    return 0;
}

static int dep_add (struct depspec *d, enum dep_type t, uint32_t job,
                    uint32_t task)
{
    struct dep *v;

    if (d->n >= DEP_MAX_TERMS) {
        errno = E2BIG;
        return -1;
    }
    if (!(v = realloc (d->deps, (d->n + 1) * sizeof (*v))))
        return -1;
    d->deps = v;
    d->deps[d->n++] = (struct dep){ t, job, task };
    return 0;
}

/* The type name of a term: "afterok" in "afterok:5". */
static int dep_type (const char *w, size_t len, enum dep_type *t)
{
    for (int i = 0; i <= DEP_SINGLETON; i++)
        if (strlen (dep_names[i]) == len && !strncmp (w, dep_names[i], len)) {
            *t = (enum dep_type)i;
            return 0;
        }
    return -1;
}

/* One term, "type:id[:id...]" or "singleton", of length len at w. */
static int dep_term (struct depspec *d, const char *w, size_t len,
                     const char *s, arbor_error_t *err)
{
    const char *colon = memchr (w, ':', len), *p, *end = w + len;
    enum dep_type t;

    if (dep_type (w, colon ? (size_t)(colon - w) : len, &t) < 0)
        return errprintf (err,
                          "invalid --dependency '%s': unknown type "
                          "'%.*s' (after, afterany, afterok, "
                          "afternotok, singleton)",
                          s, (int)(colon ? colon - w : (long)len), w);
    if (t == DEP_SINGLETON)
        return colon ? errprintf (err,
                                  "invalid --dependency '%s': "
                                  "singleton takes no job id",
                                  s)
                     : dep_add (d, t, 0, DEP_ALL_TASKS);
    if (!colon)
        return errprintf (err, "invalid --dependency '%s': %s needs a job id",
                          s, dep_names[t]);
    for (p = colon + 1; p <= end;) {
        uint32_t job, task = DEP_ALL_TASKS;
        if (dep_num (&p, &job) < 0 || job == 0
            || (*p == '_' && (p++, dep_num (&p, &task) < 0))
            || (p < end && *p != ':'))
            return errprintf (err,
                              "invalid --dependency '%s': bad job id "
                              "in '%.*s'",
                              s, (int)len, w);
        if (dep_add (d, t, job, task) < 0)
            return errprintf (err, errno == E2BIG
                                       ? "invalid --dependency: more than "
                                         "1024 jobs"
                                       : "out of memory");
        p++;
    }
    return 0;
}

int depspec_parse (const char *s, struct depspec *out, arbor_error_t *err)
{
    struct depspec d = { 0 };
    bool comma = strchr (s, ',') != NULL;
    const char *p = s;

    d.any = strchr (s, '?') != NULL;
    errno = EINVAL;
    if (!*s || (comma && d.any)) {
        errprintf (err,
                   *s ? "invalid --dependency '%s': ',' (all) and '?' "
                        "(any) cannot be mixed"
                      : "invalid --dependency '%s': empty",
                   s);
        return -1;
    }
    for (;;) {
        size_t len = strcspn (p, ",?");
        if (len == 0 || dep_term (&d, p, len, s, err) < 0) {
            if (len == 0)
                errprintf (err, "invalid --dependency '%s': empty term", s);
            if (errno != ENOMEM)
                errno = EINVAL;
            depspec_clear (&d);
            return -1;
        }
        if (!p[len])
            break;
        p += len + 1;
    }
    *out = d;
    return 0;
}

void depspec_clear (struct depspec *d)
{
    free (d->deps);
    memset (d, 0, sizeof (*d));
}
