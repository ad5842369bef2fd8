/* cpulimits.c - the CPU-hour limits file. See cpulimits.h.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include <libconfig.h>

#include "conf.h"
#include "ctld.h"
#include "sched/cpulimits.h"
#include "log.h"

/* A setting's number (int or float), >= 0. -1 with err. */
static int limit_value (const config_setting_t *s, double *out,
                        arbor_error_t *err)
{
    int type = config_setting_type (s);
    double v;

    if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64)
        v = (double)config_setting_get_int64 (s);
    else if (type == CONFIG_TYPE_FLOAT)
        v = config_setting_get_float (s);
    else
        return errprintf (err, "line %d: %s: a number of CPU-hours expected",
                          config_setting_source_line (s),
                          config_setting_name (s));
    if (v < 0)
        return errprintf (err, "line %d: %s: a negative limit",
                          config_setting_source_line (s),
                          config_setting_name (s));
    *out = v;
    return 0;
}

/* A user or group name, or a number. -1 with err for an unknown one. */
static int limit_id (const config_setting_t *s, bool user, unsigned *id,
                     arbor_error_t *err)
{
    const char *name = config_setting_name (s);

    if (user) {
        const struct passwd *pw = getpwnam (name);
        if (pw) {
            *id = pw->pw_uid;
            return 0;
        }
    } else {
        const struct group *gr = getgrnam (name);
        if (gr) {
            *id = gr->gr_gid;
            return 0;
        }
    }
    return errprintf (err, "line %d: no such %s '%s'",
                      config_setting_source_line (s), user ? "user" : "group",
                      name);
}

/* "users" or "groups": a group of name = limit settings. */
static int limit_list (const config_t *cf, const char *key, bool user,
                       struct limit_entry **out, size_t *n, arbor_error_t *err)
{
    const config_setting_t *g = config_lookup (cf, key);
    int count;

    *out = NULL;
    *n = 0;
    if (!g)
        return 0;
    if (!config_setting_is_group (g))
        return errprintf (err,
                          "line %d: %s: a group { name = limit; ... } "
                          "expected",
                          config_setting_source_line (g), key);
    count = config_setting_length (g);
    if (!(*out = calloc ((size_t)count + 1, sizeof (**out))))
        return errprintf (err, "out of memory");
    for (int i = 0; i < count; i++) {
        const config_setting_t *s = config_setting_get_elem (g, (unsigned)i);
        struct limit_entry *e = &(*out)[*n];
        if (limit_id (s, user, &e->id, err) < 0
            || limit_value (s, &e->hours, err) < 0)
            return -1;
        (*n)++;
    }
    return 0;
}

/* Only default, users and groups may appear. */
static int limit_keys (const config_t *cf, arbor_error_t *err)
{
    const config_setting_t *root = config_root_setting (cf);

    for (int i = 0; i < config_setting_length (root); i++) {
        const config_setting_t *s = config_setting_get_elem (root, (unsigned)i);
        const char *name = config_setting_name (s);
        if (strcmp (name, "default") && strcmp (name, "users")
            && strcmp (name, "groups"))
            return errprintf (err,
                              "line %d: unknown setting '%s' (default, "
                              "users, groups)",
                              config_setting_source_line (s), name);
    }
    return 0;
}

struct limits *cpulimits_load (const char *path, arbor_error_t *err)
{
    struct limits *l = calloc (1, sizeof (*l));
    arbor_error_t why = { "" };
    const config_setting_t *d;
    config_t cf;
    int rc = -1;

    config_init (&cf);
    if (!l)
        errprintf (&why, "out of memory");
    else if (config_read_file (&cf, path) != CONFIG_TRUE)
        errprintf (&why, "line %d: %s", config_error_line (&cf),
                   config_error_text (&cf) ? config_error_text (&cf)
                                           : strerror (errno));
    else if (limit_keys (&cf, &why) == 0
             && limit_list (&cf, "users", true, &l->users, &l->nusers, &why)
                    == 0
             && limit_list (&cf, "groups", false, &l->groups, &l->ngroups, &why)
                    == 0) {
        rc = 0;
        if ((d = config_lookup (&cf, "default"))) {
            l->has_default = true;
            rc = limit_value (d, &l->dflt, &why);
        }
    }
    config_destroy (&cf);
    if (rc < 0) {
        errprintf (err, "CpuHoursLimitsFile %s: %s", path, why.text);
        cpulimits_free (l);
        return NULL;
    }
    return l;
}

void cpulimits_free (struct limits *l)
{
    if (!l)
        return;
    free (l->users);
    free (l->groups);
    free (l);
}

static bool limit_find (const struct limit_entry *v, size_t n, unsigned id,
                        double *hours)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].id == id) {
            *hours = v[i].hours;
            return true;
        }
    return false;
}

bool cpulimits_for (const struct limits *l, uid_t uid, gid_t gid, double *hours)
{
    if (!l)
        return false;
    if (limit_find (l->users, l->nusers, (unsigned)uid, hours)
        || limit_find (l->groups, l->ngroups, (unsigned)gid, hours))
        return true;
    *hours = l->dflt;
    return l->has_default;
}

int cpulimits_reload (struct ctld *ctx, arbor_error_t *err)
{
    const char *path = ctx->conf->cpu_hours_limits_file;
    struct limits *l;

    if (!path)
        return 0;
    if (!(l = cpulimits_load (path, err)))
        return -1;
    cpulimits_free (ctx->limits);
    ctx->limits = l;
    log_info ("CPU-hour limits read from %s: %zu users, %zu groups%s", path,
              l->nusers, l->ngroups, l->has_default ? ", a default" : "");
    return 0;
}
