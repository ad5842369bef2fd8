/* rlimits.c - names, selection and transport of propagated resource
 * limits; see rlimits.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rlimits.h"

static const struct {
    const char *name;
    int resource;
} rlimits_tab[RLIMITS_N] = {
    { "AS", RLIMIT_AS },         { "CORE", RLIMIT_CORE },
    { "CPU", RLIMIT_CPU },       { "DATA", RLIMIT_DATA },
    { "FSIZE", RLIMIT_FSIZE },   { "MEMLOCK", RLIMIT_MEMLOCK },
    { "NOFILE", RLIMIT_NOFILE }, { "NPROC", RLIMIT_NPROC },
    { "RSS", RLIMIT_RSS },       { "STACK", RLIMIT_STACK },
};

const char *rlimits_name (size_t i)
{
    return i < RLIMITS_N ? rlimits_tab[i].name : NULL;
}

int rlimits_resource (size_t i)
{
    return i < RLIMITS_N ? rlimits_tab[i].resource : -1;
}

/* The mask of one word: a name, ALL or NONE (0); -1 if unknown. */
static int64_t rlimits_word (const char *w, size_t len)
{
    if (len == 3 && !strncasecmp (w, "ALL", 3))
        return RLIMITS_ALL;
    if (len == 4 && !strncasecmp (w, "NONE", 4))
        return 0;
    for (size_t i = 0; i < RLIMITS_N; i++)
        if (strlen (rlimits_tab[i].name) == len
            && !strncasecmp (w, rlimits_tab[i].name, len))
            return 1 << i;
    return -1;
}

int rlimits_parse (const char *list, uint32_t *mask, arbor_error_t *err)
{
    uint32_t m = 0;
    const char *p = list;

    for (;;) {
        const char *end = strchrnul (p, ',');
        int64_t bits = rlimits_word (p, (size_t)(end - p));
        if (bits < 0) {
            errno = EINVAL;
            return errprintf (err, "'%.*s' is not a resource limit",
                              (int)(end - p), p);
        }
        m |= (uint32_t)bits;
        if (!*end)
            break;
        p = end + 1;
    }
    *mask = m;
    return 0;
}

int rlimits_select (const char *opt, const char *conf_list,
                    const char *conf_except, uint32_t *mask, arbor_error_t *err)
{
    uint32_t except;

    if (opt)
        return rlimits_parse (*opt ? opt : "ALL", mask, err);
    if (conf_list && conf_except) {
        errno = EINVAL;
        return errprintf (err, "PropagateResourceLimits and "
                               "PropagateResourceLimitsExcept are both set");
    }
    if (conf_list)
        return rlimits_parse (conf_list, mask, err);
    if (!conf_except) {
        *mask = RLIMITS_ALL;
        return 0;
    }
    if (rlimits_parse (conf_except, &except, err) < 0)
        return -1;
    *mask = RLIMITS_ALL & ~except;
    return 0;
}

void rlimits_format (rlim_t v, char *buf, size_t len)
{
    if (v == RLIM_INFINITY)
        snprintf (buf, len, "unlimited");
    else
        snprintf (buf, len, "%llu", (unsigned long long)v);
}

int rlimits_value (const char *s, rlim_t *v)
{
    unsigned long long n;
    char *end;

    if (!strcasecmp (s, "unlimited") || !strcasecmp (s, "infinity")) {
        *v = RLIM_INFINITY;
        return 0;
    }
    errno = 0;
    if (*s < '0' || *s > '9' || ((n = strtoull (s, &end, 10)), *end) || errno) {
        errno = EINVAL;
        return -1;
    }
    *v = (rlim_t)n;
    return 0;
}

/* Index of SLURM_RLIMIT_<NAME>=... in kv, or -1; *val: after the '='. */
static int rlimits_env_index (const char *kv, const char **val)
{
    size_t plen = sizeof (RLIMITS_ENV_PREFIX) - 1;
    const char *name = kv + plen, *eq;

    if (strncmp (kv, RLIMITS_ENV_PREFIX, plen) || !(eq = strchr (name, '=')))
        return -1;
    for (int i = 0; i < RLIMITS_N; i++)
        if (strlen (rlimits_tab[i].name) == (size_t)(eq - name)
            && !strncmp (name, rlimits_tab[i].name, (size_t)(eq - name))) {
            *val = eq + 1;
            return i;
        }
    return -1;
}

void rlimits_from_env (char *const *vars, size_t n, struct rlimits_want *w)
{
    memset (w, 0, sizeof (*w));
    for (size_t k = 0; k < n && vars[k]; k++) {
        const char *val;
        int i = rlimits_env_index (vars[k], &val);
        if (i >= 0 && rlimits_value (val, &w->value[i]) == 0)
            w->mask |= 1u << i;
    }
}

void rlimits_capture (struct rlimits_want *w)
{
    struct rlimit rl;

    memset (w, 0, sizeof (*w));
    for (size_t i = 0; i < RLIMITS_N; i++)
        if (getrlimit (rlimits_tab[i].resource, &rl) == 0) {
            w->value[i] = rl.rlim_cur;
            w->mask |= 1u << i;
        }
}

int rlimits_clamp (struct rlimits_want *w, const rlim_t *hard, char *note,
                   size_t len)
{
    size_t used = 0;
    int lowered = 0;

    if (len)
        note[0] = '\0';
    for (size_t i = 0; i < RLIMITS_N; i++) {
        char want[24], max[24];
        if (!(w->mask & (1u << i)) || hard[i] == RLIM_INFINITY
            || (w->value[i] != RLIM_INFINITY && w->value[i] <= hard[i]))
            continue;
        rlimits_format (w->value[i], want, sizeof (want));
        rlimits_format (hard[i], max, sizeof (max));
        w->value[i] = hard[i];
        if (used < len)
            used += (size_t)snprintf (note + used, len - used, "%sRLIMIT_%s %s",
                                      lowered ? ", " : "", rlimits_tab[i].name,
                                      want);
        if (used < len)
            used +=
                (size_t)snprintf (note + used, len - used,
                                  " lowered to this node's hard limit %s", max);
        lowered++;
    }
    return lowered;
}
