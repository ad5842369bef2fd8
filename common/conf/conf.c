/* conf.c - read arbor.conf (Slurm's Key=Value format) into struct conf,
 * and answer queries on it.
 *
 * A line holds one or more white-space separated Key=Value pairs; '#'
 * starts a comment; values may be double-quoted (quotes are removed, and
 * protect spaces and '#'). A line starting with NodeName= or
 * PartitionName= is a record whose other pairs are that record's
 * attributes; any other line sets global keys (a key set twice, under
 * its name or its Slurm alias, is an error naming both lines: which one
 * was meant cannot be guessed). "NodeName=DEFAULT ..." and
 * "PartitionName=DEFAULT ..." set attributes for the records that follow, as in
 * Slurm.
 *
 * Parsing is a chain of stages: lines -> tokens -> records/keys, then a
 * final pass that checks node names are unique and resolves partitions'
 * Nodes= lists (so partitions may name nodes defined further down). Every
 * error names the file, the line and the key.
 *
 * This file reads the text and runs the line stages, and holds the
 * queries; the lexer and global keys are in conf_keys.c, the records and
 * the final pass in conf_records.c (private interfaces: conf_parse.h,
 * conf_keys.h, conf_records.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conf_keys.h"
#include "conf_parse.h"
#include "conf_records.h"
#include "log.h"
#include "timestr.h"

#ifndef ARBOR_SYSCONFDIR
#define ARBOR_SYSCONFDIR "/etc/arbor"
#endif

#define CONF_FILE_MAX (16 << 20)

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
    c->session_idle_timeout = 300;
    c->min_job_age = 300;
    c->priority_max_age = 7 * 24 * 60;
    c->priority_wait_weight = 1;
    c->node_register_interval = 30;
    c->max_array_size = 1001;
    c->job_requeue = 1;
    if (!(c->path = strdup (name)) || !(c->cluster_name = strdup ("arbor"))
        || !(c->control_addr = strdup ("127.0.0.1"))
        || !(c->spool_dir = strdup ("/var/spool/arbor/%n"))
        || !(c->state_save_location = strdup ("/var/lib/arbor"))
        || !(c->arbor_user = strdup ("root"))
        || !(c->noded_user = strdup ("root"))
        || !(c->proctrack_type = strdup ("proctrack/cgroup"))
        || !(c->task_plugin = strdup ("none"))
        || !(c->cgroup_root = strdup ("arbor"))
        || !(c->mpi_default = strdup ("none"))) {
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

struct conf *conf_parse (const char *text, const char *name, arbor_error_t *err)
{
    struct conf_parser p = {
        .name = name ? name : "arbor.conf",
        .err = err,
        .node_dflt = { .cpus = 1, .real_memory = 1, .cpu_speed = 1 },
        .part_max_time = TIME_INFINITE,
        .part_priority_tier = 1,
        .part_priority_job_factor = 1,
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
    free (p.node_dflt.features);
    free (p.node_dflt.gres);
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
    conf_keys_free (c);
    for (size_t i = 0; i < c->nnodes; i++) {
        free (c->nodes[i].name);
        free (c->nodes[i].addr);
        free (c->nodes[i].features);
        free (c->nodes[i].gres);
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

bool conf_gres_type (const struct conf *c, const char *name)
{
    size_t len = strlen (name);

    for (const char *t = c->gres_types; t && *t;) {
        const char *end = strchrnul (t, ',');
        if ((size_t)(end - t) == len && !strncasecmp (t, name, len))
            return true;
        t = *end ? end + 1 : end;
    }
    return false;
}

const char *conf_get (const struct conf *c, const char *key)
{
    const char *name = conf_key_name (key);

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

const struct conf_node *conf_node_find (const struct conf *c, const char *name)
{
    int i = conf_node_index (c, name);

    return i < 0 ? NULL : &c->nodes[i];
}

const struct conf_part *conf_part_find (const struct conf *c, const char *name)
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

/* Kept with the queries, not the keys: it names MPI types for --mpi and
 * SLURM_MPI_TYPE as well as for MpiDefault. */
const char *conf_mpi_type (const char *spec)
{
    static const char *const names[][2] = {
        { "none", "none" },    { "pmix", "pmix" },    { "pmix_v3", "pmix" },
        { "pmix_v4", "pmix" }, { "pmix_v5", "pmix" }, { "pmi2", "pmi2" },
    };

    for (size_t i = 0; spec && i < sizeof (names) / sizeof (names[0]); i++)
        if (!strcasecmp (spec, names[i][0]))
            return names[i][1];
    errno = EINVAL;
    return NULL;
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
    for (s = pattern; *s; s++) /* upper bound: every %n a node name */
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

long conf_arbor_uid (const struct conf *c)
{
    return conf_user_uid (c && c->arbor_user ? c->arbor_user : "root");
}

long conf_noded_uid (const struct conf *c)
{
    return conf_user_uid (c && c->noded_user ? c->noded_user : "root");
}

/* Look a user up by name; a numeric name is taken as a uid. */
long conf_user_uid (const char *user)
{
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

static bool addr_is_loopback (const char *addr)
{
    struct in_addr a4;
    struct in6_addr a6;

    if (!strcasecmp (addr, "localhost"))
        return true;
    if (inet_pton (AF_INET, addr, &a4) == 1)
        return (ntohl (a4.s_addr) >> 24) == 127;
    if (inet_pton (AF_INET6, addr, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK (&a6);
    return false;
}

bool conf_node_nests (const struct conf *c, const char *node)
{
    const struct conf_node *n = c && node ? conf_node_find (c, node) : NULL;

    if (!n)
        return false;
    return c->nodes_share_host
           || addr_is_loopback (n->addr ? n->addr : n->name);
}

bool conf_launch_param (const struct conf *c, const char *word)
{
    size_t n = strlen (word);

    for (const char *p = c->launch_params; p && *p;) {
        size_t len = strcspn (p, ",");
        if (len == n && !strncasecmp (p, word, n))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}
