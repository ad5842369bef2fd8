/* export.c - build a task environment from an --export spec; see
 * export.h. Pure: the caller passes the environment in.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "export.h"

struct export_list {
    char **v;
    size_t n, alloc;
};

void export_free (char **vars)
{
    int e = errno;

    for (size_t i = 0; vars && vars[i]; i++)
        free (vars[i]);
    free (vars);
    errno = e;
}

/* Set "KEY=VALUE" (copied), replacing an entry with the same key. */
static int export_put (struct export_list *l, const char *kv)
{
    size_t klen = strcspn (kv, "=");
    char *copy;

    if (!(copy = strdup (kv)))
        return -1;
    for (size_t i = 0; i < l->n; i++) {
        if (!strncmp (l->v[i], kv, klen) && l->v[i][klen] == '=') {
            free (l->v[i]);
            l->v[i] = copy;
            return 0;
        }
    }
    if (l->n + 2 > l->alloc) {
        size_t na = l->alloc ? l->alloc * 2 : 32;
        char **nv = realloc (l->v, na * sizeof (*nv));
        if (!nv) {
            free (copy);
            return -1;
        }
        l->v = nv;
        l->alloc = na;
    }
    l->v[l->n++] = copy;
    l->v[l->n] = NULL;
    return 0;
}

static bool export_is_ours (const char *kv)
{
    return !strncmp (kv, "SLURM_", 6) || !strncmp (kv, "ARBOR_", 6);
}

/* The launcher's value of VAR (name given with its length), or NULL. */
static const char *export_lookup (char *const *env, const char *name,
                                  size_t len)
{
    for (size_t i = 0; env && env[i]; i++)
        if (!strncmp (env[i], name, len) && env[i][len] == '=')
            return env[i];
    return NULL;
}

/* Add the base: everything (all) or only SLURM_* / ARBOR_*. */
static int export_base (struct export_list *l, char *const *env, bool all)
{
    for (size_t i = 0; env && env[i]; i++) {
        if (!strchr (env[i], '=') || (!all && !export_is_ours (env[i])))
            continue;
        if (export_put (l, env[i]) < 0)
            return -1;
    }
    return 0;
}

/* One word of a list: VAR or VAR=value. */
static int export_word (struct export_list *l, char *const *env,
                        const char *w, size_t len, const char *spec,
                        arbor_error_t *err)
{
    const char *eq = memchr (w, '=', len);
    size_t klen = eq ? (size_t)(eq - w) : len;
    const char *have;
    char *kv;
    int rc;

    if (klen == 0) {
        errno = EINVAL;
        return errprintf (err, "invalid --export '%s': empty variable name",
                          spec);
    }
    if (!eq) {
        if (!(have = export_lookup (env, w, len)))
            return 0;
        return export_put (l, have);
    }
    if (!(kv = strndup (w, len)))
        return -1;
    rc = export_put (l, kv);
    free (kv);
    return rc;
}

static int export_list_fill (struct export_list *l, const char *spec,
                             char *const *env, arbor_error_t *err)
{
    const char *p = spec, *e = strchrnul (p, ',');
    bool all = (size_t)(e - p) == 3 && !strncasecmp (p, "ALL", 3);
    bool none = (size_t)(e - p) == 4 && !strncasecmp (p, "NONE", 4);

    if (export_base (l, env, all) < 0)
        return -1;
    if (all || none)
        p = *e ? e + 1 : e;
    else if (!*spec)
        goto bad;
    while (*p || (p > spec && p[-1] == ',')) {
        e = strchrnul (p, ',');
        if (e == p)
            goto bad;
        if (export_word (l, env, p, (size_t)(e - p), spec, err) < 0)
            return -1;
        p = *e ? e + 1 : e;
        if (!*e)
            break;
    }
    return 0;
bad:
    errno = EINVAL;
    return errprintf (err, "invalid --export '%s'", spec);
}

char **export_env (const char *spec, char *const *env, arbor_error_t *err)
{
    struct export_list l = { 0 };

    if (!spec)
        spec = "ALL";
    if (export_list_fill (&l, spec, env, err) < 0)
        goto fail;
    if (!l.v && !(l.v = calloc (1, sizeof (char *))))
        goto fail;
    return l.v;
fail:
    if (errno == ENOMEM || errno == 0) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
    }
    export_free (l.v);
    return NULL;
}
