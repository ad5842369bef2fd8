/* env.c - an environment under construction; see env.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

/* The variables keep their order (execve and messages see it); a hash
 * index beside them finds a key without comparing it with every other:
 * a task's environment is the user's (often a hundred variables or more,
 * with modules) and forty of ours set on top of it. */
struct env {
    char **vars; /* NULL-terminated */
    size_t count;
    size_t alloc;    /* slots in vars, including the terminator */
    uint32_t *index; /* open addressing: position in vars + 1, 0 empty */
    size_t nindex;   /* a power of two above twice count; 0: no index */
};

#define ENV_INDEX_MIN 64

static size_t key_hash (const char *key, size_t klen)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    for (size_t i = 0; i < klen; i++)
        h = (h ^ (unsigned char)key[i]) * 16777619u;
    return h;
}

static bool var_is (const char *var, const char *key, size_t klen)
{
    return strncmp (var, key, klen) == 0 && var[klen] == '=';
}

/* The index slot that holds key, or the empty one where it would go. */
static size_t index_slot (const struct env *e, const char *key, size_t klen)
{
    size_t mask = e->nindex - 1, i = key_hash (key, klen) & mask;

    while (e->index[i] && !var_is (e->vars[e->index[i] - 1], key, klen))
        i = (i + 1) & mask;
    return i;
}

/* Rebuild the index for 'want' variables. -1 (ENOMEM): no index then,
 * and lookups scan (still right, only slower). */
static int env_reindex (struct env *e, size_t want)
{
    size_t n = ENV_INDEX_MIN;

    while (n < 2 * want + 2)
        n *= 2;
    free (e->index);
    e->nindex = 0;
    if (!(e->index = calloc (n, sizeof (*e->index))))
        return -1;
    e->nindex = n;
    for (size_t v = 0; v < e->count; v++) {
        const char *eq = strchr (e->vars[v], '=');
        e->index[index_slot (e, e->vars[v], (size_t)(eq - e->vars[v]))] =
            (uint32_t)v + 1;
    }
    return 0;
}

static int env_find (const struct env *e, const char *key, size_t klen)
{
    if (e->nindex) {
        uint32_t at = e->index[index_slot (e, key, klen)];
        return at ? (int)at - 1 : -1;
    }
    for (size_t i = 0; i < e->count; i++)
        if (var_is (e->vars[i], key, klen))
            return (int)i;
    return -1;
}

/* Store 'kv' (malloc'd "KEY=VALUE", key length klen), taking ownership. */
static int env_store (struct env *e, char *kv, size_t klen)
{
    int i = env_find (e, kv, klen);

    if (i >= 0) {
        free (e->vars[i]);
        e->vars[i] = kv;
        return 0;
    }
    if (e->count + 2 > e->alloc) {
        size_t n = e->alloc ? e->alloc * 2 : 64;
        char **v = realloc (e->vars, n * sizeof (*v));
        if (!v) {
            free (kv);
            return -1;
        }
        e->vars = v;
        e->alloc = n;
    }
    if (2 * (e->count + 1) + 2 > e->nindex && e->count < UINT32_MAX - 1)
        (void)env_reindex (e, e->count + 1); /* on ENOMEM: scans */
    if (e->nindex)
        e->index[index_slot (e, kv, klen)] = (uint32_t)e->count + 1;
    e->vars[e->count++] = kv;
    e->vars[e->count] = NULL;
    return 0;
}

struct env *env_create (char *const *vars, size_t n)
{
    struct env *e = calloc (1, sizeof (*e));

    if (!e || !(e->vars = calloc (64, sizeof (char *))))
        goto nomem;
    e->alloc = 64;
    for (size_t i = 0; i < n; i++) {
        const char *eq = vars[i] ? strchr (vars[i], '=') : NULL;
        char *kv;
        if (!eq || eq == vars[i])
            continue;
        if (!(kv = strdup (vars[i])) || env_store (e, kv, eq - vars[i]) < 0)
            goto nomem;
    }
    return e;
nomem:
    env_destroy (e);
    errno = ENOMEM;
    return NULL;
}

void env_destroy (struct env *e)
{
    int saved = errno;

    if (!e)
        return;
    for (size_t i = 0; i < e->count; i++)
        free (e->vars[i]);
    free (e->vars);
    free (e->index);
    free (e);
    errno = saved;
}

int env_set (struct env *e, const char *key, const char *value)
{
    char *kv;

    if (!key || !*key || strchr (key, '=')) {
        errno = EINVAL;
        return -1;
    }
    if (asprintf (&kv, "%s=%s", key, value ? value : "") < 0) {
        errno = ENOMEM;
        return -1;
    }
    return env_store (e, kv, strlen (key));
}

int env_setf (struct env *e, const char *key, const char *fmt, ...)
{
    va_list ap;
    char *value;
    int rc;

    va_start (ap, fmt);
    rc = vasprintf (&value, fmt, ap);
    va_end (ap);
    if (rc < 0) {
        errno = ENOMEM;
        return -1;
    }
    rc = env_set (e, key, value);
    free (value);
    return rc;
}

int env_unset (struct env *e, const char *key)
{
    int i = env_find (e, key, strlen (key));

    if (i < 0)
        return 0;
    free (e->vars[i]);
    memmove (&e->vars[i], &e->vars[i + 1],
             (e->count - (size_t)i) * sizeof (char *)); /* with the NULL */
    e->count--;
    (void)env_reindex (e, e->count); /* positions moved; rare */
    return 0;
}

const char *env_get (const struct env *e, const char *key)
{
    size_t klen = strlen (key);
    int i = env_find (e, key, klen);

    return i < 0 ? NULL : e->vars[i] + klen + 1;
}

char **env_vars (const struct env *e)
{
    return e->vars;
}

size_t env_count (const struct env *e)
{
    return e->count;
}

int env_put (struct env *e, const char *kv)
{
    const char *eq = strchr (kv, '=');
    char *copy;

    if (!eq || eq == kv) {
        errno = EINVAL;
        return -1;
    }
    if (!(copy = strdup (kv)))
        return -1;
    return env_store (e, copy, (size_t)(eq - kv));
}

int env_set_default (struct env *e, const char *key, const char *value)
{
    if (env_get (e, key))
        return 0;
    return env_set (e, key, value);
}

char **env_take (struct env *e)
{
    char **vars = e->vars;

    e->vars = NULL;
    e->count = 0;
    e->alloc = 0;
    env_destroy (e);
    return vars;
}

void env_strv_free (char **vars)
{
    for (size_t i = 0; vars && vars[i]; i++)
        free (vars[i]);
    free (vars);
}
