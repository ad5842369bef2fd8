/* export.c - build a task environment from an --export spec; see
 * export.h. Pure: the caller passes the environment in; built with the
 * common environment builder (common/util/env.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

#include "distrib.h"
#include "env.h"
#include "export.h"
#include "layout.h"
#include "rlimits.h"
#include "timestr.h"

void export_free (char **vars)
{
    int e = errno;

    env_strv_free (vars);
    errno = e;
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
static int export_base (struct env *l, char *const *env, bool all)
{
    for (size_t i = 0; env && env[i]; i++) {
        if (!strchr (env[i], '=') || (!all && !export_is_ours (env[i])))
            continue;
        if (env_put (l, env[i]) < 0)
            return -1;
    }
    return 0;
}

/* One word of a list: VAR or VAR=value. */
static int export_word (struct env *l, char *const *env, const char *w,
                        size_t len, const char *spec, arbor_error_t *err)
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
        return env_put (l, have);
    }
    if (!(kv = strndup (w, len)))
        return -1;
    rc = env_put (l, kv);
    free (kv);
    return rc;
}

static int export_list_fill (struct env *l, const char *spec, char *const *env,
                             arbor_error_t *err)
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
    struct env *l = env_create (NULL, 0);

    if (!spec)
        spec = "ALL";
    if (!l || export_list_fill (l, spec, env, err) < 0)
        goto fail;
    return env_take (l);
fail:
    if (errno == ENOMEM || errno == 0) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
    }
    env_destroy (l);
    return NULL;
}

/* Set or replace (always) or set if absent (!always). */
static int export_put (char ***vars, const char *key, const char *value,
                       bool always)
{
    size_t n = 0;
    struct env *l;

    while ((*vars)[n])
        n++;
    if (!(l = env_create (*vars, n))
        || (always ? env_set (l, key, value) : env_set_default (l, key, value))
               < 0) {
        env_destroy (l);
        errno = ENOMEM;
        return -1;
    }
    env_strv_free (*vars);
    *vars = env_take (l);
    return 0;
}

int export_default (char ***vars, const char *key, const char *value)
{
    return export_put (vars, key, value, false);
}

int export_set (char ***vars, const char *key, const char *value)
{
    return export_put (vars, key, value, true);
}

int export_unset (char ***vars, const char *key)
{
    size_t n = 0;
    struct env *l;

    while ((*vars)[n])
        n++;
    if (!(l = env_create (*vars, n)) || env_unset (l, key) < 0) {
        env_destroy (l);
        errno = ENOMEM;
        return -1;
    }
    env_strv_free (*vars);
    *vars = env_take (l);
    return 0;
}

/* One SLURM_RLIMIT_<NAME>: the caller's soft limit, or none. */
static int export_rlimit (struct env *l, size_t i, bool wanted,
                          const struct rlimits_want *have)
{
    char key[40], value[24];

    snprintf (key, sizeof (key), RLIMITS_ENV_PREFIX "%s", rlimits_name (i));
    if (!wanted || !(have->mask & (1u << i)))
        return env_unset (l, key);
    rlimits_format (have->value[i], value, sizeof (value));
    return env_set (l, key, value);
}

int export_propagate (char ***vars, const char *opt, const char *conf_list,
                      const char *conf_except, const struct rlimits_want *have,
                      arbor_error_t *err)
{
    struct rlimits_want now;
    struct env *l;
    uint32_t mask;
    size_t n = 0;

    if (rlimits_select (opt, conf_list, conf_except, &mask, err) < 0)
        return -1;
    if (!have) {
        rlimits_capture (&now);
        have = &now;
    }
    /* One environment for all of them: each export_set would copy the
     * whole of it (srun's CPU per launch, bench/launch.py) */
    while ((*vars)[n])
        n++;
    if (!(l = env_create (*vars, n)))
        return errprintf (err, "out of memory");
    for (size_t i = 0; i < RLIMITS_N; i++)
        if (export_rlimit (l, i, mask & (1u << i), have) < 0) {
            env_destroy (l);
            return errprintf (err, "out of memory");
        }
    env_strv_free (*vars);
    *vars = env_take (l);
    return 0;
}

int export_umask (char ***vars)
{
    mode_t mask = umask (0);
    char value[8];

    umask (mask);
    snprintf (value, sizeof (value), "%04o", (unsigned)mask);
    return export_default (vars, "SLURM_UMASK", value);
}

/* A year: the end slurmctld gives a job without a time limit. */
#define EXPORT_UNLIMITED_S (365ULL * 24 * 60 * 60)

static int export_u64 (char ***vars, const char *key, uint64_t v, bool replace)
{
    char buf[24];

    snprintf (buf, sizeof (buf), "%llu", (unsigned long long)v);
    return export_put (vars, key, buf, replace);
}

static int export_str (char ***vars, const char *key, const char *v,
                       bool replace)
{
    return v && *v ? export_put (vars, key, v, replace) : 0;
}

int export_job (char ***vars, const struct export_job *j, bool replace)
{
    uint64_t limit = j->time_limit && j->time_limit != TIME_INFINITE
                         ? (uint64_t)j->time_limit * 60
                         : EXPORT_UNLIMITED_S;
    char *cpn = NULL;
    int rc;

    if (j->cpus && j->nnodes
        && !(cpn = layout_tasks_per_node (j->cpus, j->nnodes)))
        return -1;
    rc = export_str (vars, "SLURM_JOB_CPUS_PER_NODE", cpn, replace);
    free (cpn);
    if (rc < 0
        || (j->start
            && (export_u64 (vars, "SLURM_JOB_START_TIME", j->start, replace) < 0
                || export_u64 (vars, "SLURM_JOB_END_TIME", j->start + limit,
                               replace)
                       < 0))
        || export_str (vars, "SLURM_JOB_PARTITION", j->partition, replace) < 0
        || export_str (vars, "SLURM_JOB_ACCOUNT", j->account, replace) < 0
        || export_str (vars, "SLURM_JOB_QOS", j->qos, replace) < 0
        || export_str (vars, "SLURM_SUBMIT_DIR", j->submit_dir, replace) < 0
        || export_str (vars, "SLURM_SUBMIT_HOST", j->submit_host, replace) < 0)
        return -1;
    return 0;
}

int export_prio_process (char ***vars)
{
    int prio;
    char buf[16];

    errno = 0;
    prio = getpriority (PRIO_PROCESS, 0);
    if (prio == -1 && errno)
        prio = 0;
    snprintf (buf, sizeof (buf), "%d", prio);
    return export_set (vars, "SLURM_PRIO_PROCESS", buf);
}

int export_distribution (char ***vars, const char *dist)
{
    enum distrib d;
    uint32_t plane;
    arbor_error_t err;
    char buf[16];

    if (distrib_parse (dist, &d, &plane, &err) < 0)
        return -1;
    if (export_set (vars, "SLURM_DISTRIBUTION", distrib_name (d)) < 0)
        return -1;
    if (d != DISTRIB_PLANE)
        return 0;
    snprintf (buf, sizeof (buf), "%u", plane);
    return export_set (vars, "SLURM_DIST_PLANESIZE", buf);
}
