/* conf_keys.c - arbor.conf's lexer and its global keys.
 *
 * The lexer cuts a line into Key=Value tokens ('#' starts a comment;
 * double quotes protect spaces and '#' and are removed). Values are parsed
 * here too (numbers, times, YES/NO). The table of global keys gives each
 * key its Slurm alias, type, place in struct conf and minimum; a key set
 * twice, under its name or its alias, is an error naming both lines. Every
 * value is also kept as written for conf_get().
 */
#define _GNU_SOURCE /* qsort_r */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf_keys.h"
#include "log.h"
#include "licspec.h"
#include "timestr.h"

enum conf_type {
    CT_STR,
    CT_PORT,
    CT_U32,
    CT_LEVEL,
    CT_MPI,
    CT_PFLAGS,
    CT_TIME, /* minutes, as MaxTime (uint32_t) */
    CT_BOOL,
    CT_REAL, /* a decimal number >= min (double) */
    /* Licenses=: a license list (licspec.h), kept as written */
    CT_LICENSES,
};

/* Global keys: name, Slurm alias, type, where it goes, minimum. */
struct conf_key {
    const char *name;
    const char *alias;
    enum conf_type type;
    size_t offset;
    uint32_t min;
};

/* One table row per line reads best. */
/* clang-format off */
#define K(n, a, t, f, m) { n, a, t, offsetof (struct conf, f), m }
static const struct conf_key conf_keys[] = {
    K ("ClusterName", NULL, CT_STR, cluster_name, 0),
    K ("ControlAddr", NULL, CT_STR, control_addr, 0),
    K ("CtldPort", "SlurmctldPort", CT_PORT, ctld_port, 1),
    K ("NodedPort", "SlurmdPort", CT_PORT, noded_port, 1),
    K ("TreeWidth", NULL, CT_U32, tree_width, 1),
    K ("KillWait", NULL, CT_U32, kill_wait, 0),
    K ("LaunchTimeout", NULL, CT_U32, launch_timeout, 1),
    K ("CredExpire", NULL, CT_U32, cred_expire, 1),
    K ("SpoolDir", "SlurmdSpoolDir", CT_STR, spool_dir, 0),
    K ("StateSaveLocation", NULL, CT_STR, state_save_location, 0),
    K ("MungeSocket", NULL, CT_STR, munge_socket, 0),
    K ("ArborUser", "SlurmUser", CT_STR, arbor_user, 0),
    K ("NodedUser", "SlurmdUser", CT_STR, noded_user, 0),
    K ("CtldLogFile", "SlurmctldLogFile", CT_STR, ctld_log_file, 0),
    K ("NodedLogFile", "SlurmdLogFile", CT_STR, noded_log_file, 0),
    K ("DebugLevel", "SlurmctldDebug", CT_LEVEL, debug_level, 0),
    K ("NodedDebugLevel", "SlurmdDebug", CT_LEVEL, noded_debug_level, 0),
    K ("StepdPath", NULL, CT_STR, stepd_path, 0),
    K ("ProctrackType", NULL, CT_STR, proctrack_type, 0),
    K ("TaskPlugin", NULL, CT_STR, task_plugin, 0),
    K ("CgroupRoot", NULL, CT_STR, cgroup_root, 0),
    K ("CgroupVersion", NULL, CT_STR, cgroup_version, 0),
    K ("PluginDir", NULL, CT_STR, plugin_dir, 0),
    K ("Epilog", NULL, CT_STR, epilog, 0),
    K ("Prolog", NULL, CT_STR, prolog, 0),
    K ("PrologFlags", NULL, CT_PFLAGS, prolog_flags, 0),
    K ("PrologEpilogTimeout", NULL, CT_U32, prolog_epilog_timeout, 1),
    K ("TaskProlog", NULL, CT_STR, task_prolog, 0),
    K ("TaskEpilog", NULL, CT_STR, task_epilog, 0),
    K ("PropagateResourceLimits", NULL, CT_STR, propagate_rlimits, 0),
    K ("PropagateResourceLimitsExcept", NULL, CT_STR, propagate_rlimits_except, 0),
    K ("UnkillableStepTimeout", NULL, CT_U32, unkillable_step_timeout, 1),
    K ("OverTimeLimit", NULL, CT_U32, over_time_limit, 0),
    K ("KillOnBadExit", NULL, CT_U32, kill_on_bad_exit, 0),
    K ("MaxJobCount", NULL, CT_U32, max_job_count, 1),
    K ("MaxSessionsPerUser", NULL, CT_U32, max_sessions_user, 0),
    K ("MaxSessionsPerHost", NULL, CT_U32, max_sessions_host, 0),
    K ("SessionIdleTimeout", NULL, CT_U32, session_idle_timeout, 0),
    K ("MinJobAge", NULL, CT_U32, min_job_age, 0),
    K ("MailProg", NULL, CT_STR, mail_prog, 0),
    K ("MailDomain", NULL, CT_STR, mail_domain, 0),
    K ("AccountingStorageType", NULL, CT_STR, acct_storage_type, 0),
    K ("AccountingStorageLoc", NULL, CT_STR, acct_storage_loc, 0),
    K ("AccountingStorageEnforce", NULL, CT_STR, acct_storage_enforce, 0),
    K ("PriorityType", NULL, CT_STR, priority_type, 0),
    K ("SchedulerType", NULL, CT_STR, scheduler_type, 0),
    K ("CpuHoursLimitsFile", NULL, CT_STR, cpu_hours_limits_file, 0),
    K ("SchedulerParameters", NULL, CT_STR, scheduler_params, 0),
    K ("PriorityWeightAge", NULL, CT_U32, priority_weight_age, 0),
    K ("PriorityWeightJobSize", NULL, CT_U32, priority_weight_job_size, 0),
    K ("PriorityWeightPartition", NULL, CT_U32, priority_weight_partition, 0),
    K ("PriorityWeightQOS", NULL, CT_U32, priority_weight_qos, 0),
    K ("PriorityMaxAge", NULL, CT_TIME, priority_max_age, 0),
    K ("PriorityFavorSmall", NULL, CT_BOOL, priority_favor_small, 0),
    K ("PriorityPresets", NULL, CT_STR, priority_presets, 0),
    K ("PriorityWaitWeight", NULL, CT_REAL, priority_wait_weight, 0),
    K ("PriorityThreshold", NULL, CT_REAL, priority_threshold, 0),
    K ("SelectLoadParameters", NULL, CT_STR, select_load_params, 0),
    K ("NodeRegisterInterval", NULL, CT_U32, node_register_interval, 1),
    K ("MaxArraySize", NULL, CT_U32, max_array_size, 1),
    K ("JobRequeue", NULL, CT_U32, job_requeue, 0),
    K ("MpiDefault", NULL, CT_MPI, mpi_default, 0),
    K ("MpiParams", NULL, CT_STR, mpi_params, 0),
    K ("LaunchParameters", NULL, CT_STR, launch_params, 0),
    K ("NodesShareHost", NULL, CT_BOOL, nodes_share_host, 0),
    K ("Licenses", NULL, CT_LICENSES, licenses, 0),
    K ("GresTypes", NULL, CT_STR, gres_types, 0),
    K ("ConstrainDevices", NULL, CT_BOOL, constrain_devices, 0),
};

_Static_assert (sizeof (conf_keys) / sizeof (conf_keys[0]) <= CONF_MAX_KEYS,
                "raise CONF_MAX_KEYS");

/* Fill p->err with "FILE:LINE: [KEY: ]WHAT"; returns -1 with errno. */
int conf_fail (struct conf_parser *p, int errnum, const char *key,
                      const char *fmt, ...)
{
    char what[sizeof (p->err->text)];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (what, sizeof (what), fmt, ap);
    va_end (ap);
    errno = errnum;
    if (key)
        return errprintf (p->err, "%s:%d: %s: %s", p->name, p->line, key,
                          what);
    return errprintf (p->err, "%s:%d: %s", p->name, p->line, what);
}

/* Set the string *dst to a copy of val. */
int conf_set_str (struct conf_parser *p, char **dst, const char *val)
{
    char *s = strdup (val);

    if (!s)
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    free (*dst);
    *dst = s;
    return 0;
}

/* Parse a decimal number in [min, max]. */
int conf_number (struct conf_parser *p, const char *key,
                        const char *val, uint32_t min, uint32_t max,
                        uint32_t *out)
{
    unsigned long long v = 0;
    const char *s;

    if (val[0] == '-' && val[1])
        return conf_fail (p, EINVAL, key, "'%.60s' must not be negative",
                          val);
    for (s = val; *s; s++) {
        if (!isdigit ((unsigned char)*s))
            return conf_fail (p, EINVAL, key, "'%.60s' is not a number", val);
        if (v <= UINT32_MAX)    /* saturate: any more is out of range */
            v = v * 10 + (unsigned long long)(*s - '0');
    }
    if (s == val)
        return conf_fail (p, EINVAL, key, "'%.60s' is not a number", val);
    if (v < min || v > max)
        return conf_fail (p, EINVAL, key, "%.20s is out of range (%u-%u)",
                          val, min, max);
    *out = (uint32_t)v;
    return 0;
}

/* Parse a decimal number (1.25, 10) in [min, 1e9]. */
int conf_real (struct conf_parser *p, const char *key, const char *val,
               double min, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod (val, &end);
    if (end == val || *end || errno || !isdigit ((unsigned char)val[0]))
        return conf_fail (p, EINVAL, key, "'%.60s' is not a decimal number",
                          val);
    if (v < min || v > 1e9)
        return conf_fail (p, EINVAL, key, "%.20s is out of range (%g-1e9)",
                          val, min);
    *out = v;
    return 0;
}

int conf_time (struct conf_parser *p, const char *key,
                      const char *val, uint32_t *out)
{
    arbor_error_t e;

    if (timestr_parse (val, out, &e) < 0)
        return conf_fail (p, EINVAL, key, "%s", e.text);
    return 0;
}

int conf_bool (struct conf_parser *p, const char *key,
                      const char *val, bool *out)
{
    if (!strcasecmp (val, "YES") || !strcasecmp (val, "TRUE")
        || !strcmp (val, "1"))
        *out = true;
    else if (!strcasecmp (val, "NO") || !strcasecmp (val, "FALSE")
             || !strcmp (val, "0"))
        *out = false;
    else
        return conf_fail (p, EINVAL, key, "'%.60s' is not YES or NO", val);
    return 0;
}

/* Remember 'val' as written for conf_get(); a later setting replaces it. */
static int conf_raw_set (struct conf_parser *p, const char *name,
                         const char *val)
{
    struct conf *c = p->c;
    char *v = strdup (val);
    size_t i;

    if (!v)
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    for (i = 0; i < c->nraw; i++) {
        if (!strcmp (c->raw_keys[i], name)) {
            free (c->raw_vals[i]);
            c->raw_vals[i] = v;
            return 0;
        }
    }
    char **k = realloc (c->raw_keys, (c->nraw + 1) * sizeof (*k));
    if (k)
        c->raw_keys = k;
    char **vs = k ? realloc (c->raw_vals, (c->nraw + 1) * sizeof (*vs)) : NULL;
    if (vs)
        c->raw_vals = vs;
    if (!k || !vs || !(c->raw_keys[c->nraw] = strdup (name))) {
        free (v);
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    }
    c->raw_vals[c->nraw++] = v;
    return 0;
}

/* PrologFlags: a comma-separated list of Alloc, Contain (which implies
 * Alloc) and NoHold (accepted so that Slurm's files load; the job is
 * granted once its Prologs ran, as without it), in any case. */
static int conf_prolog_flags (struct conf_parser *p, const char *key,
                              const char *val, uint32_t *out)
{
    const char *s = val;

    *out = 0;
    while (*s) {
        size_t n = strcspn (s, ",");
        if (n == 5 && !strncasecmp (s, "Alloc", 5))
            *out |= CONF_PROLOG_ALLOC;
        else if (n == 7 && !strncasecmp (s, "Contain", 7))
            *out |= CONF_PROLOG_ALLOC | CONF_PROLOG_CONTAIN;
        else if (!(n == 6 && !strncasecmp (s, "NoHold", 6)))
            return conf_fail (p, EINVAL, key, "'%.*s' is not a prolog flag "
                              "(Alloc, Contain, NoHold)", (int)n, s);
        s += n + (s[n] == ',');
    }
    return 0;
}

/* Licenses=: checked here, so that a mistake names its line; the
 * controller parses the text again into its pool (ctld/sched/licenses.h). */
static int conf_licenses (struct conf_parser *p, const char *key,
                          const char *val, char **out)
{
    struct licspec l;
    arbor_error_t e;

    if (licspec_parse (val, LICSPEC_CONF, &l, &e) < 0)
        return conf_fail (p, errno, key, "%s", e.text);
    licspec_clear (&l);
    return conf_set_str (p, out, val);
}

/* Set a global key. Returns 1 if 'key' is not one. */
int conf_global (struct conf_parser *p, const char *key,
                        const char *val)
{
    const struct conf_key *k = NULL;
    size_t idx = 0;
    char *field;
    uint32_t n;
    int lvl;

    for (size_t i = 0; i < sizeof (conf_keys) / sizeof (conf_keys[0]); i++) {
        if (!strcasecmp (key, conf_keys[i].name)
            || (conf_keys[i].alias && !strcasecmp (key, conf_keys[i].alias))) {
            k = &conf_keys[i];
            idx = i;
        }
    }
    if (!k)
        return 1;
    if (p->key_lines[idx])
        return conf_fail (p, EINVAL, key, "set twice (first on line %d)",
                          p->key_lines[idx]);
    p->key_lines[idx] = p->line;
    if (conf_raw_set (p, k->name, val) < 0)
        return -1;
    field = (char *)p->c + k->offset;
    switch (k->type) {
    case CT_STR:
        return conf_set_str (p, (char **)field, val);
    case CT_PORT:
        if (conf_number (p, k->name, val, k->min, 65535, &n) < 0)
            return -1;
        *(uint16_t *)field = (uint16_t)n;
        return 0;
    case CT_U32:
        return conf_number (p, k->name, val, k->min, UINT32_MAX - 1,
                            (uint32_t *)field);
    case CT_LEVEL:
        if ((lvl = log_level_parse (val)) < 0)
            return conf_fail (p, EINVAL, k->name, "'%.60s' is not a log "
                              "level (error, warning, info, verbose, debug, "
                              "debug2)", val);
        *(int *)field = lvl;
        return 0;
    case CT_PFLAGS: return conf_prolog_flags (p, k->name, val, (uint32_t *)field);
    case CT_TIME: return conf_time (p, k->name, val, (uint32_t *)field);
    case CT_BOOL: return conf_bool (p, k->name, val, (bool *)field);
    case CT_REAL: return conf_real (p, k->name, val, k->min, (double *)field);
    case CT_LICENSES: return conf_licenses (p, k->name, val, (char **)field);
    case CT_MPI:
        if (!conf_mpi_type (val))
            return conf_fail (p, EINVAL, k->name, "'%.60s' is not an MPI "
                              "type (none, pmix, pmi2)", val);
        return conf_set_str (p, (char **)field, conf_mpi_type (val));
    }
    return 1;
}

/* Next Key=Value token of the line at *pp, unquoted in place. Returns 1
 * with *key and *val set, 0 at the end of the line, -1 on error. */
int conf_token (struct conf_parser *p, char **pp, char **key,
                       char **val)
{
    char *s = *pp, *w, *eq;
    bool quoted = false;
    char c;

    while (*s && isspace ((unsigned char)*s))
        s++;
    if (!*s || *s == '#')
        return 0;
    *key = w = s;
    for (;; s++) {
        c = *s;
        if (!c || (!quoted && (isspace ((unsigned char)c) || c == '#')))
            break;
        if (c == '"')
            quoted = !quoted;
        else
            *w++ = c;
    }
    if (quoted)
        return conf_fail (p, EINVAL, NULL, "unterminated quote");
    /* c is the terminator; *s may be overwritten by the NUL below, so
     * a comment or the end of line leaves *pp on that NUL. */
    *w = '\0';
    *pp = (c && c != '#') ? s + 1 : w;
    if (!(eq = strchr (*key, '=')) || eq == *key)
        return conf_fail (p, EINVAL, NULL, "'%.80s': expected Key=Value",
                          *key);
    *eq = '\0';
    *val = eq + 1;
    if (!**val)
        return conf_fail (p, EINVAL, *key, "missing value");
    return 1;
}

const char *conf_key_name (const char *key)
{
    for (size_t i = 0; i < sizeof (conf_keys) / sizeof (conf_keys[0]); i++) {
        if (!strcasecmp (key, conf_keys[i].name)
            || (conf_keys[i].alias && !strcasecmp (key, conf_keys[i].alias)))
            return conf_keys[i].name;
    }
    return NULL;
}

void conf_keys_free (struct conf *c)
{
    for (size_t i = 0; i < sizeof (conf_keys) / sizeof (conf_keys[0]); i++) {
        if (conf_keys[i].type == CT_STR || conf_keys[i].type == CT_MPI
            || conf_keys[i].type == CT_LICENSES)
            free (*(char **)((char *)c + conf_keys[i].offset));
    }
}
