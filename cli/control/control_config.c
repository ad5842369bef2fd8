/* control_config.c - the lines of arbor control show config; see
 * control_config.h.
 *
 * common/conf/conf_keys.c keeps its key table private, so the keys are
 * listed again here, each with where struct conf keeps it and how to
 * print it (cli/test/control_show_test.c checks the lines of a sample
 * arbor.conf, set through the Slurm names printed here). A key added to
 * arbor.conf must be added here too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "control_config.h"
#include "log.h"
#include "timestr.h"

enum control_conf_type {
    CC_STR,    /* text; 'extra' is the value when unset, NULL "(null)" */
    CC_PORT,   /* uint16_t */
    CC_U32,    /* 'extra' is the unit scontrol appends ("sec"), or NULL */
    CC_LEVEL,  /* a log level (int) */
    CC_PFLAGS, /* PrologFlags bits */
    CC_TIME,   /* minutes, as [D-]HH:MM:SS */
    CC_BOOL,
    CC_REAL,
    CC_USER,   /* a user name, shown name(uid) as scontrol */
    CC_ACCTLOC /* AccountingStorageLoc: unset is a file in StateSaveLocation */
};

struct control_conf_key {
    const char *name; /* as printed: Slurm's name where arbor.conf has it */
    enum control_conf_type type;
    size_t offset;
    const char *extra;
};

/* clang-format off */
#define K(n, t, f, x) { n, t, offsetof (struct conf, f), x }
static const struct control_conf_key control_conf_keys[] = {
    K ("AccountingStorageLoc", CC_ACCTLOC, acct_storage_loc, NULL),
    K ("AccountingStorageType", CC_STR, acct_storage_type,
       "accounting_storage/sqlite"),
    K ("CgroupRoot", CC_STR, cgroup_root, NULL),
    K ("CgroupVersion", CC_STR, cgroup_version, NULL),
    K ("ClusterName", CC_STR, cluster_name, NULL),
    K ("ControlAddr", CC_STR, control_addr, NULL),
    K ("CpuHoursLimitsFile", CC_STR, cpu_hours_limits_file, NULL),
    K ("CredExpire", CC_U32, cred_expire, "sec"),
    K ("Epilog", CC_STR, epilog, NULL),
    K ("JobRequeue", CC_U32, job_requeue, NULL),
    K ("KillOnBadExit", CC_U32, kill_on_bad_exit, NULL),
    K ("KillWait", CC_U32, kill_wait, "sec"),
    K ("LaunchParameters", CC_STR, launch_params, NULL),
    K ("LaunchTimeout", CC_U32, launch_timeout, "sec"),
    K ("MaxArraySize", CC_U32, max_array_size, NULL),
    K ("MaxJobCount", CC_U32, max_job_count, NULL),
    K ("MinJobAge", CC_U32, min_job_age, "sec"),
    K ("MpiDefault", CC_STR, mpi_default, NULL),
    K ("MpiParams", CC_STR, mpi_params, NULL),
    K ("MungeSocket", CC_STR, munge_socket, NULL),
    K ("NodeRegisterInterval", CC_U32, node_register_interval, "sec"),
    K ("NodesShareHost", CC_BOOL, nodes_share_host, NULL),
    K ("OverTimeLimit", CC_U32, over_time_limit, "min"),
    K ("PluginDir", CC_STR, plugin_dir, NULL),
    K ("PriorityFavorSmall", CC_BOOL, priority_favor_small, NULL),
    K ("PriorityMaxAge", CC_TIME, priority_max_age, NULL),
    K ("PriorityPresets", CC_STR, priority_presets, NULL),
    K ("PriorityThreshold", CC_REAL, priority_threshold, NULL),
    K ("PriorityType", CC_STR, priority_type, "priority/basic"),
    K ("PriorityWaitWeight", CC_REAL, priority_wait_weight, NULL),
    K ("PriorityWeightAge", CC_U32, priority_weight_age, NULL),
    K ("PriorityWeightJobSize", CC_U32, priority_weight_job_size, NULL),
    K ("PriorityWeightPartition", CC_U32, priority_weight_partition, NULL),
    K ("ProctrackType", CC_STR, proctrack_type, NULL),
    K ("Prolog", CC_STR, prolog, NULL),
    K ("PrologEpilogTimeout", CC_U32, prolog_epilog_timeout, "sec"),
    K ("PrologFlags", CC_PFLAGS, prolog_flags, NULL),
    K ("SchedulerParameters", CC_STR, scheduler_params, NULL),
    K ("SchedulerType", CC_STR, scheduler_type, "sched/builtin"),
    K ("SelectLoadParameters", CC_STR, select_load_params, NULL),
    K ("SlurmctldDebug", CC_LEVEL, debug_level, NULL),
    K ("SlurmctldLogFile", CC_STR, ctld_log_file, NULL),
    K ("SlurmctldPort", CC_PORT, ctld_port, NULL),
    K ("SlurmdDebug", CC_LEVEL, noded_debug_level, NULL),
    K ("SlurmdLogFile", CC_STR, noded_log_file, NULL),
    K ("SlurmdPort", CC_PORT, noded_port, NULL),
    K ("SlurmdSpoolDir", CC_STR, spool_dir, NULL),
    K ("SlurmdUser", CC_USER, noded_user, NULL),
    K ("SlurmUser", CC_USER, arbor_user, NULL),
    K ("StateSaveLocation", CC_STR, state_save_location, NULL),
    K ("StepdPath", CC_STR, stepd_path, NULL),
    K ("TaskPlugin", CC_STR, task_plugin, NULL),
    K ("TreeWidth", CC_U32, tree_width, NULL),
    K ("UnkillableStepTimeout", CC_U32, unkillable_step_timeout, "sec"),
};
/* clang-format on */

#define CONTROL_CONF_NKEYS \
    (sizeof (control_conf_keys) / sizeof (control_conf_keys[0]))

static const char *control_conf_level (int level)
{
    static const char *const names[] = { "error",   "warning", "info",
                                         "verbose", "debug",   "debug2" };

    if (level < LOG_LVL_ERR)
        return "quiet";
    if (level > LOG_LVL_DEBUG2)
        level = LOG_LVL_DEBUG2;
    return names[level];
}

static const char *control_conf_pflags (uint32_t f)
{
    if (f & CONF_PROLOG_CONTAIN)
        return "Alloc,Contain";
    return f & CONF_PROLOG_ALLOC ? "Alloc" : "(null)";
}

/* Text keys: the value, its default when unset, or "(null)". */
static int control_conf_text (const struct control_conf_key *k,
                              const struct conf *c, char **out)
{
    const char *s = *(char *const *)((const char *)c + k->offset);
    long uid;

    switch (k->type) {
    case CC_USER:
        if ((uid = conf_user_uid (s)) >= 0)
            return asprintf (out, "%s(%ld)", s, uid);
        return asprintf (out, "%s", s);
    case CC_ACCTLOC:
        if (!s)
            return asprintf (out, "%s/arbor_acct.db", c->state_save_location);
        return asprintf (out, "%s", s);
    default:
        return asprintf (out, "%s", s ? s : k->extra ? k->extra : "(null)");
    }
}

/* The value of key k in c, as scontrol prints it. -1 when out of memory. */
static int control_conf_value (const struct control_conf_key *k,
                               const struct conf *c, char **out)
{
    const char *field = (const char *)c + k->offset;
    char t[32];

    switch (k->type) {
    case CC_PORT: return asprintf (out, "%u", *(const uint16_t *)field);
    case CC_U32:
        return asprintf (out, "%u%s%s", *(const uint32_t *)field,
                         k->extra ? " " : "", k->extra ? k->extra : "");
    case CC_LEVEL:
        return asprintf (out, "%s", control_conf_level (*(const int *)field));
    case CC_PFLAGS:
        return asprintf (out, "%s",
                         control_conf_pflags (*(const uint32_t *)field));
    case CC_TIME:
        return asprintf (
            out, "%s",
            timestr_format (*(const uint32_t *)field, t, sizeof (t)));
    case CC_BOOL:
        return asprintf (out, "%s", *(const bool *)field ? "Yes" : "No");
    case CC_REAL: return asprintf (out, "%g", *(const double *)field);
    default: return control_conf_text (k, c, out);
    }
}

static int control_conf_cmp (const void *a, const void *b)
{
    return strcasecmp (*(char *const *)a, *(char *const *)b);
}

char **control_config_lines (const struct conf *c, size_t *n)
{
    char **lines = calloc (CONTROL_CONF_NKEYS, sizeof (*lines));
    char *v;

    if (!lines)
        return NULL;
    for (size_t i = 0; i < CONTROL_CONF_NKEYS; i++) {
        const struct control_conf_key *k = &control_conf_keys[i];
        int rc;
        if (control_conf_value (k, c, &v) < 0)
            goto nomem;
        rc = asprintf (&lines[i], "%-*s = %s", CONTROL_CONFIG_KEY_WIDTH,
                       k->name, v);
        free (v);
        if (rc < 0) {
            lines[i] = NULL;
            goto nomem;
        }
    }
    /* The table is in order already; sorting keeps it so when a key is
     * added out of place. */
    qsort (lines, CONTROL_CONF_NKEYS, sizeof (*lines), control_conf_cmp);
    *n = CONTROL_CONF_NKEYS;
    return lines;
nomem:
    control_config_free (lines, CONTROL_CONF_NKEYS);
    errno = ENOMEM;
    return NULL;
}

void control_config_free (char **lines, size_t n)
{
    int e = errno;

    if (!lines)
        return;
    for (size_t i = 0; i < n; i++)
        free (lines[i]);
    free (lines);
    errno = e;
}
