/* conf.c - read arbor.conf (Slurm's Key=Value format) into struct conf.
 *
 * A line holds one or more white-space separated Key=Value pairs; '#'
 * starts a comment; values may be double-quoted (quotes are removed, and
 * protect spaces and '#'). A line starting with NodeName= or
 * PartitionName= is a record whose other pairs are that record's
 * attributes; any other line sets global keys (a key set twice, under
 * its name or its Slurm alias, is an error naming both lines: which one
 * was meant cannot be guessed). "NodeName=DEFAULT ..." and "PartitionName=DEFAULT ..." set
 * attributes for the records that follow, as in Slurm.
 *
 * Parsing is a chain of stages: lines -> tokens -> records/keys, then a
 * final pass that checks node names are unique and resolves partitions'
 * Nodes= lists (so partitions may name nodes defined further down). Every
 * error names the file, the line and the key.
 */
#define _GNU_SOURCE     /* qsort_r */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "hostlist.h"
#include "log.h"
#include "timestr.h"

#ifndef ARBOR_SYSCONFDIR
#define ARBOR_SYSCONFDIR "/etc/arbor"
#endif

#define CONF_FILE_MAX (16 << 20)

enum conf_type { CT_STR, CT_PORT, CT_U32, CT_LEVEL };

/* Global keys: name, Slurm alias, type, where it goes, minimum. */
struct conf_key {
    const char *name;
    const char *alias;
    enum conf_type type;
    size_t offset;
    uint32_t min;
};

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
    K ("PrologEpilogTimeout", NULL, CT_U32, prolog_epilog_timeout, 1),
    K ("UnkillableStepTimeout", NULL, CT_U32, unkillable_step_timeout, 1),
    K ("OverTimeLimit", NULL, CT_U32, over_time_limit, 0),
    K ("KillOnBadExit", NULL, CT_U32, kill_on_bad_exit, 0),
    K ("MaxJobCount", NULL, CT_U32, max_job_count, 1),
};
#undef K

/* What the parser knows beyond struct conf. */
struct conf_pending_part {
    int line;
    char *nodes;            /* Nodes= as written, NULL if absent */
};

struct conf_parser {
    struct conf *c;
    const char *name;       /* file name for messages */
    int line;
    arbor_error_t *err;
    int *node_lines;        /* line of each node in c->nodes */
    struct conf_pending_part *pend; /* one per c->parts */
    struct conf_node node_dflt;     /* NodeName=DEFAULT */
    uint32_t part_max_time;         /* PartitionName=DEFAULT */
    uint32_t part_default_time;
    bool part_has_default_time;
    int key_lines[sizeof (conf_keys) / sizeof (conf_keys[0])]; /* set on */
};

/* Fill p->err with "FILE:LINE: [KEY: ]WHAT"; returns -1 with errno. */
static int conf_fail (struct conf_parser *p, int errnum, const char *key,
                      const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static int conf_fail (struct conf_parser *p, int errnum, const char *key,
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
static int conf_set_str (struct conf_parser *p, char **dst, const char *val)
{
    char *s = strdup (val);

    if (!s)
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    free (*dst);
    *dst = s;
    return 0;
}

/* Parse a decimal number in [min, max]. */
static int conf_number (struct conf_parser *p, const char *key,
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

static int conf_time (struct conf_parser *p, const char *key,
                      const char *val, uint32_t *out)
{
    arbor_error_t e;

    if (timestr_parse (val, out, &e) < 0)
        return conf_fail (p, EINVAL, key, "%s", e.text);
    return 0;
}

static int conf_bool (struct conf_parser *p, const char *key,
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

/* Set a global key. Returns 1 if 'key' is not one. */
static int conf_global (struct conf_parser *p, const char *key,
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
    }
    return 1;
}

/* Next Key=Value token of the line at *pp, unquoted in place. Returns 1
 * with *key and *val set, 0 at the end of the line, -1 on error. */
static int conf_token (struct conf_parser *p, char **pp, char **key,
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

/* Apply one node attribute to 'n'; NodeAddr goes to *addr. */
static int conf_node_attr (struct conf_parser *p, struct conf_node *n,
                           const char *key, const char *val, char **addr)
{
    if (!strcasecmp (key, "NodeAddr")) {
        if (!addr)
            return conf_fail (p, EINVAL, "NodeAddr",
                              "not allowed for NodeName=DEFAULT");
        *addr = (char *)val;
        return 0;
    }
    if (!strcasecmp (key, "CPUs") || !strcasecmp (key, "Procs"))
        return conf_number (p, "CPUs", val, 1, UINT32_MAX - 1, &n->cpus);
    if (!strcasecmp (key, "RealMemory"))
        return conf_number (p, "RealMemory", val, 1, UINT32_MAX - 1,
                            &n->real_memory);
    return conf_fail (p, EINVAL, NULL, "unknown key '%.60s'", key);
}

/* Append nodes names[i] with addresses addrs[i] (or the name). */
static int conf_node_add (struct conf_parser *p, const struct hostlist *names,
                          const struct hostlist *addrs,
                          const struct conf_node *attr)
{
    struct conf *c = p->c;
    size_t n = hostlist_count (names);
    struct conf_node *v = realloc (c->nodes, (c->nnodes + n) * sizeof (*v));
    int *lines;

    if (!v)
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    c->nodes = v;
    lines = realloc (p->node_lines, (c->nnodes + n) * sizeof (*lines));
    if (!lines)
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    p->node_lines = lines;
    for (size_t i = 0; i < n; i++) {
        struct conf_node *node = &c->nodes[c->nnodes];
        const char *a = addrs ? hostlist_nth (addrs, i) : NULL;
        *node = *attr;
        node->name = strdup (hostlist_nth (names, i));
        node->addr = strdup (a ? a : hostlist_nth (names, i));
        if (!node->name || !node->addr) {
            free (node->name);
            free (node->addr);
            return conf_fail (p, ENOMEM, NULL, "out of memory");
        }
        p->node_lines[c->nnodes++] = p->line;
    }
    return 0;
}

/* Expand the NodeName/NodeAddr hostlists and add the nodes. */
static int conf_node_expand (struct conf_parser *p, const char *names,
                             const char *addr, const struct conf_node *attr)
{
    struct hostlist *hn = NULL, *ha = NULL;
    arbor_error_t e;
    int rc = -1;

    if (!(hn = hostlist_create (names, &e))) {
        conf_fail (p, errno, "NodeName", "%s", e.text);
        goto out;
    }
    if (hostlist_count (hn) == 0) {
        conf_fail (p, EINVAL, "NodeName", "no node names");
        goto out;
    }
    if (addr && !(ha = hostlist_create (addr, &e))) {
        conf_fail (p, errno, "NodeAddr", "%s", e.text);
        goto out;
    }
    if (ha && hostlist_count (ha) != hostlist_count (hn)) {
        conf_fail (p, EINVAL, "NodeAddr", "%zu addresses for %zu nodes",
                   hostlist_count (ha), hostlist_count (hn));
        goto out;
    }
    rc = conf_node_add (p, hn, ha, attr);
out:
    hostlist_destroy (hn);
    hostlist_destroy (ha);
    return rc;
}

/* "NodeName=LIST [NodeAddr=LIST] [CPUs=N] [RealMemory=MB]" */
static int conf_node_line (struct conf_parser *p, const char *names,
                           char *rest)
{
    bool is_default = !strcasecmp (names, "DEFAULT");
    struct conf_node attr = p->node_dflt;
    char *key, *val, *addr = NULL;
    int rc;

    while ((rc = conf_token (p, &rest, &key, &val)) > 0) {
        if (conf_node_attr (p, &attr, key, val,
                            is_default ? NULL : &addr) < 0)
            return -1;
    }
    if (rc < 0)
        return -1;
    if (is_default) {
        p->node_dflt = attr;
        return 0;
    }
    return conf_node_expand (p, names, addr, &attr);
}

/* Apply one partition attribute. */
static int conf_part_attr (struct conf_parser *p, struct conf_part *pt,
                           struct conf_pending_part *pend, const char *key,
                           const char *val, bool *has_dt)
{
    if (!strcasecmp (key, "Nodes")) {
        if (!pend)
            return conf_fail (p, EINVAL, "Nodes",
                              "not allowed for PartitionName=DEFAULT");
        pend->nodes = (char *)val;
        return 0;
    }
    if (!strcasecmp (key, "Default"))
        return conf_bool (p, "Default", val, &pt->is_default);
    if (!strcasecmp (key, "MaxTime"))
        return conf_time (p, "MaxTime", val, &pt->max_time);
    if (!strcasecmp (key, "DefaultTime")) {
        *has_dt = true;
        return conf_time (p, "DefaultTime", val, &pt->default_time);
    }
    if (!strcasecmp (key, "State")) {
        if (strcasecmp (val, "UP") != 0)
            return conf_fail (p, EINVAL, "State", "'%.60s': only UP is "
                              "supported", val);
        return 0;
    }
    return conf_fail (p, EINVAL, NULL, "unknown key '%.60s'", key);
}

/* Append partition 'pt' (taking its strings) and its pending record. */
static int conf_part_add (struct conf_parser *p, struct conf_part *pt,
                          const struct conf_pending_part *pend)
{
    struct conf *c = p->c;
    struct conf_part *v;
    struct conf_pending_part *pv;

    if (conf_part_find (c, pt->name))
        return conf_fail (p, EINVAL, "PartitionName", "duplicate partition "
                          "'%.60s'", pt->name);
    for (size_t i = 0; pt->is_default && i < c->nparts; i++) {
        if (c->parts[i].is_default)
            return conf_fail (p, EINVAL, "Default", "partition '%.60s' is "
                              "already the default", c->parts[i].name);
    }
    if (!(v = realloc (c->parts, (c->nparts + 1) * sizeof (*v))))
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    c->parts = v;
    if (!(pv = realloc (p->pend, (c->nparts + 1) * sizeof (*pv))))
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    p->pend = pv;
    pv[c->nparts] = *pend;
    v[c->nparts++] = *pt;
    return 0;
}

/* "PartitionName=NAME [Nodes=LIST|ALL] [Default=YES|NO] [MaxTime=T]
 *  [DefaultTime=T] [State=UP]" */
static int conf_part_line (struct conf_parser *p, const char *name,
                           char *rest)
{
    bool is_default = !strcasecmp (name, "DEFAULT");
    struct conf_part pt = { .max_time = p->part_max_time,
                            .default_time = p->part_default_time };
    struct conf_pending_part pend = { .line = p->line };
    bool has_dt = p->part_has_default_time;
    char *key, *val;
    int rc;

    while ((rc = conf_token (p, &rest, &key, &val)) > 0) {
        if (conf_part_attr (p, &pt, is_default ? NULL : &pend, key, val,
                            &has_dt) < 0)
            return -1;
    }
    if (rc < 0)
        return -1;
    if (!has_dt)
        pt.default_time = pt.max_time;
    if (is_default) {
        p->part_max_time = pt.max_time;
        p->part_default_time = pt.default_time;
        p->part_has_default_time = has_dt;
        return 0;
    }
    if (pt.default_time > pt.max_time)
        return conf_fail (p, EINVAL, "DefaultTime", "exceeds MaxTime");
    if (!(pt.name = strdup (name)))
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    if (pend.nodes && !(pend.nodes = strdup (pend.nodes))) {
        free (pt.name);
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    }
    if (conf_part_add (p, &pt, &pend) < 0) {
        free (pt.name);
        free (pend.nodes);
        return -1;
    }
    return 0;
}

/* One line (modifiable, NUL-terminated). */
static int conf_line (struct conf_parser *p, char *line)
{
    char *key, *val;
    int rc, first = 1;

    while ((rc = conf_token (p, &line, &key, &val)) > 0) {
        bool node = !strcasecmp (key, "NodeName");
        if (node || !strcasecmp (key, "PartitionName")) {
            if (!first)
                return conf_fail (p, EINVAL, key, "must start its line");
            return node ? conf_node_line (p, val, line)
                        : conf_part_line (p, val, line);
        }
        first = 0;
        if ((rc = conf_global (p, key, val)) < 0)
            return -1;
        if (rc > 0)
            return conf_fail (p, EINVAL, NULL, "unknown key '%.60s'", key);
    }
    return rc;
}

/* Final pass, part 1: node names must be unique. Sorting an index by
 * name keeps this O(n log n) for large emulated clusters. */
static int conf_cmp_index (const void *a, const void *b, void *arg)
{
    const struct conf_node *nodes = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int rc = strcmp (nodes[i].name, nodes[j].name);

    return rc ? rc : (i < j ? -1 : i > j);
}

static int conf_check_nodes (struct conf_parser *p)
{
    struct conf *c = p->c;
    size_t *idx, dup = SIZE_MAX;

    if (c->nnodes < 2)
        return 0;
    if (!(idx = malloc (c->nnodes * sizeof (*idx))))
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < c->nnodes; i++)
        idx[i] = i;
    qsort_r (idx, c->nnodes, sizeof (*idx), conf_cmp_index, c->nodes);
    for (size_t i = 1; i < c->nnodes; i++) {
        if (!strcmp (c->nodes[idx[i]].name, c->nodes[idx[i - 1]].name)
            && (dup == SIZE_MAX || idx[i] < dup))
            dup = idx[i];
    }
    free (idx);
    if (dup == SIZE_MAX)
        return 0;
    p->line = p->node_lines[dup];
    return conf_fail (p, EINVAL, "NodeName", "duplicate node '%.60s'",
                      c->nodes[dup].name);
}

/* Final pass, part 2: expand a partition's Nodes= against the nodes. */
static int conf_part_nodes (struct conf_parser *p, struct conf_part *pt,
                            const struct hostlist *hl)
{
    const struct conf *c = p->c;
    size_t n = hl ? hostlist_count (hl) : c->nnodes;

    if (n && !(pt->nodes = calloc (n, sizeof (char *))))
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *name = hl ? hostlist_nth (hl, i) : c->nodes[i].name;
        if (hl && conf_node_index (c, name) < 0)
            return conf_fail (p, EINVAL, "Nodes", "node '%.60s' is not "
                              "defined", name);
        if (!(pt->nodes[i] = strdup (name)))
            return conf_fail (p, ENOMEM, NULL, "out of memory");
        pt->nnodes++;
    }
    return 0;
}

static int conf_resolve_part (struct conf_parser *p, struct conf_part *pt,
                              const struct conf_pending_part *pend)
{
    struct hostlist *hl = NULL;
    arbor_error_t e;
    int rc;

    p->line = pend->line;
    if (!pend->nodes)
        return 0;
    if (strcasecmp (pend->nodes, "ALL") != 0
        && !(hl = hostlist_create (pend->nodes, &e)))
        return conf_fail (p, errno, "Nodes", "%s", e.text);
    rc = conf_part_nodes (p, pt, hl);
    hostlist_destroy (hl);
    return rc;
}

static int conf_finish (struct conf_parser *p)
{
    if (conf_check_nodes (p) < 0)
        return -1;
    for (size_t i = 0; i < p->c->nparts; i++) {
        if (conf_resolve_part (p, &p->c->parts[i], &p->pend[i]) < 0)
            return -1;
    }
    return 0;
}

/* Defaults documented in conf.h. */
static struct conf *conf_create (const char *name)
{
    struct conf *c = calloc (1, sizeof (*c));

    if (!c)
        return NULL;
    c->ctld_port = CONF_DEFAULT_CTLD_PORT;
    c->noded_port = CONF_DEFAULT_NODED_PORT;
    c->tree_width = 16;
    c->kill_wait = 30;
    c->launch_timeout = 10;
    c->cred_expire = 300;
    c->debug_level = LOG_LVL_INFO;
    c->noded_debug_level = LOG_LVL_INFO;
    c->prolog_epilog_timeout = 60;
    c->unkillable_step_timeout = 60;
    c->max_job_count = 10000;
    if (!(c->path = strdup (name))
        || !(c->cluster_name = strdup ("arbor"))
        || !(c->control_addr = strdup ("127.0.0.1"))
        || !(c->spool_dir = strdup ("/var/spool/arbor/%n"))
        || !(c->state_save_location = strdup ("/var/lib/arbor"))
        || !(c->arbor_user = strdup ("root"))
        || !(c->proctrack_type = strdup ("proctrack/cgroup"))
        || !(c->task_plugin = strdup ("none"))
        || !(c->cgroup_root = strdup ("arbor"))) {
        conf_destroy (c);
        return NULL;
    }
    return c;
}

/* Run the line stages over 'text'. */
static int conf_parse_text (struct conf_parser *p, const char *text)
{
    const char *s = text;

    while (*s) {
        size_t len = strcspn (s, "\n");
        char *line = strndup (s, len);
        int rc;
        p->line++;
        if (!line)
            return conf_fail (p, ENOMEM, NULL, "out of memory");
        if (len > 0 && line[len - 1] == '\r')
            line[len - 1] = '\0';
        rc = conf_line (p, line);
        free (line);
        if (rc < 0)
            return -1;
        s += len;
        if (*s == '\n')
            s++;
    }
    return conf_finish (p);
}

struct conf *conf_parse (const char *text, const char *name,
                         arbor_error_t *err)
{
    struct conf_parser p = {
        .name = name ? name : "arbor.conf",
        .err = err,
        .node_dflt = { .cpus = 1, .real_memory = 1 },
        .part_max_time = TIME_INFINITE,
        .part_default_time = TIME_INFINITE,
    };
    int rc;

    if (!text) {
        errno = EINVAL;
        errprintf (err, "%s: no text", p.name);
        return NULL;
    }
    if (!(p.c = conf_create (p.name))) {
        errprintf (err, "out of memory");
        return NULL;
    }
    rc = conf_parse_text (&p, text);
    for (size_t i = 0; i < p.c->nparts; i++)
        free (p.pend[i].nodes);
    free (p.pend);
    free (p.node_lines);
    if (rc < 0) {
        conf_destroy (p.c);
        return NULL;
    }
    return p.c;
}

/* Read a whole (small) file. */
static char *conf_read_file (const char *path, arbor_error_t *err)
{
    FILE *f = fopen (path, "r");
    char *buf = NULL;
    size_t len = 0, n;
    int e;

    if (!f) {
        e = errno;
        errprintf (err, "%s: %s", path, strerror (e));
        errno = e;
        return NULL;
    }
    do {
        char *b = realloc (buf, len + 65536 + 1);
        if (!b || len > CONF_FILE_MAX) {
            e = b ? EFBIG : ENOMEM;
            free (b ? b : buf);
            fclose (f);
            errprintf (err, "%s: %s", path, strerror (e));
            errno = e;
            return NULL;
        }
        buf = b;
        n = fread (buf + len, 1, 65536, f);
        len += n;
    } while (n > 0);
    buf[len] = '\0';
    e = ferror (f) ? EIO : 0;
    fclose (f);
    if (e || memchr (buf, '\0', len)) {
        free (buf);
        errprintf (err, "%s: %s", path, e ? strerror (e) : "binary file");
        errno = e ? e : EINVAL;
        return NULL;
    }
    return buf;
}

struct conf *conf_load (const char *path, arbor_error_t *err)
{
    struct conf *c;
    char *text;
    int e;

    if (!path)
        path = conf_default_path ();
    if (!(text = conf_read_file (path, err)))
        return NULL;
    c = conf_parse (text, path, err);
    e = errno;
    free (text);
    errno = e;
    return c;
}

void conf_destroy (struct conf *c)
{
    int e = errno;

    if (!c)
        return;
    for (size_t i = 0; i < sizeof (conf_keys) / sizeof (conf_keys[0]); i++) {
        if (conf_keys[i].type == CT_STR)
            free (*(char **)((char *)c + conf_keys[i].offset));
    }
    for (size_t i = 0; i < c->nnodes; i++) {
        free (c->nodes[i].name);
        free (c->nodes[i].addr);
    }
    for (size_t i = 0; i < c->nparts; i++) {
        for (size_t j = 0; j < c->parts[i].nnodes; j++)
            free (c->parts[i].nodes[j]);
        free (c->parts[i].nodes);
        free (c->parts[i].name);
    }
    for (size_t i = 0; i < c->nraw; i++) {
        free (c->raw_keys[i]);
        free (c->raw_vals[i]);
    }
    free (c->raw_keys);
    free (c->raw_vals);
    free (c->nodes);
    free (c->parts);
    free (c->path);
    free (c);
    errno = e;
}

const char *conf_get (const struct conf *c, const char *key)
{
    const char *name = NULL;

    for (size_t i = 0; i < sizeof (conf_keys) / sizeof (conf_keys[0]); i++) {
        if (!strcasecmp (key, conf_keys[i].name)
            || (conf_keys[i].alias && !strcasecmp (key, conf_keys[i].alias)))
            name = conf_keys[i].name;
    }
    for (size_t i = 0; name && i < c->nraw; i++) {
        if (!strcmp (c->raw_keys[i], name))
            return c->raw_vals[i];
    }
    return NULL;
}

const char *conf_default_path (void)
{
    const char *s;

    if ((s = getenv ("ARBOR_CONF")) && *s)
        return s;
    if ((s = getenv ("SLURM_CONF")) && *s)
        return s;
    return ARBOR_SYSCONFDIR "/arbor.conf";
}

/* Linear scans: clusters are thousands of nodes at most, and daemons that
 * look nodes up on a hot path keep their own index. */
int conf_node_index (const struct conf *c, const char *name)
{
    for (size_t i = 0; c && name && i < c->nnodes && i <= INT32_MAX; i++) {
        if (!strcmp (c->nodes[i].name, name))
            return (int)i;
    }
    return -1;
}

const struct conf_node *conf_node_find (const struct conf *c,
                                        const char *name)
{
    int i = conf_node_index (c, name);

    return i < 0 ? NULL : &c->nodes[i];
}

const struct conf_part *conf_part_find (const struct conf *c,
                                        const char *name)
{
    for (size_t i = 0; c && name && i < c->nparts; i++) {
        if (!strcmp (c->parts[i].name, name))
            return &c->parts[i];
    }
    return NULL;
}

const struct conf_part *conf_part_default (const struct conf *c)
{
    if (!c || c->nparts == 0)
        return NULL;
    for (size_t i = 0; i < c->nparts; i++) {
        if (c->parts[i].is_default)
            return &c->parts[i];
    }
    return &c->parts[0];
}

char *conf_expand (const char *pattern, const char *node)
{
    size_t nlen = node ? strlen (node) : 0, len = 0;
    const char *s;
    char *out, *w;

    if (!pattern) {
        errno = EINVAL;
        return NULL;
    }
    for (s = pattern; *s; s++)      /* upper bound: every %n a node name */
        len += (s[0] == '%' && s[1] == 'n') ? nlen : 1;
    if (!(out = malloc (len + 1)))
        return NULL;
    for (s = pattern, w = out; *s; s++) {
        if (s[0] == '%' && s[1] == 'n') {
            memcpy (w, node ? node : "", nlen);
            w += nlen;
            s++;
        } else if (s[0] == '%' && s[1] == '%') {
            *w++ = '%';
            s++;
        } else {
            *w++ = *s;
        }
    }
    *w = '\0';
    return out;
}

/* Look a user up by name; a numeric name is taken as a uid. */
long conf_arbor_uid (const struct conf *c)
{
    const char *user = c && c->arbor_user ? c->arbor_user : "root";
    struct passwd pw, *res = NULL;
    long size = sysconf (_SC_GETPW_R_SIZE_MAX);
    char *buf = NULL, *end;
    long uid = -1;
    int rc;

    errno = 0;
    uid = strtol (user, &end, 10);
    if (*user && !*end && !errno && uid >= 0 && isdigit ((unsigned char)*user))
        return uid;
    uid = -1;
    if (size < 1024)
        size = 16384;
    for (;;) {
        char *b = realloc (buf, (size_t)size);
        if (!b)
            break;
        buf = b;
        rc = getpwnam_r (user, &pw, buf, (size_t)size, &res);
        if (rc == ERANGE && size < (1 << 20)) {
            size *= 2;
            continue;
        }
        if (rc == 0 && res)
            uid = (long)pw.pw_uid;
        break;
    }
    free (buf);
    return uid;
}
