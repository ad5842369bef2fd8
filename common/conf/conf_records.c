/* conf_records.c - NodeName= and PartitionName= records of arbor.conf.
 *
 * A line starting with NodeName= or PartitionName= is a record whose
 * other pairs are its attributes; "NodeName=DEFAULT ..." and
 * "PartitionName=DEFAULT ..." set attributes for the records that follow,
 * as in Slurm. A node line may name many nodes (a hostlist, with NodeAddr
 * a hostlist of the same length). The final pass checks that node names
 * are unique and resolves each partition's Nodes= list, so partitions may
 * name nodes defined further down.
 */
#define _GNU_SOURCE /* qsort_r */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf_keys.h"
#include "conf_records.h"
#include "featspec.h"
#include "gresspec.h"
#include "hostlist.h"

/* Features=a100,ib: names as constraints (featspec.h) name them. */
static int conf_features (struct conf_parser *p, const char *val)
{
    arbor_error_t e;

    if (featspec_list_check (val, NULL, &e) < 0)
        return conf_fail (p, EINVAL, "Features", "%s", e.text);
    return 0;
}

/* Gres=gpu:a100:4,nic:1 (gresspec.h; GresTypes is checked at the end). */
static int conf_gres (struct conf_parser *p, const char *val)
{
    struct gresspec g;
    arbor_error_t e;

    if (gresspec_parse_as ("value", val, &g, &e) < 0)
        return conf_fail (p, errno, "Gres", "%s", e.text);
    return 0;
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
    if (!strcasecmp (key, "TmpDisk"))
        return conf_number (p, "TmpDisk", val, 0, UINT32_MAX - 1, &n->tmp_disk);
    if (!strcasecmp (key, "CpuSpeed"))
        return conf_number (p, "CpuSpeed", val, 1, UINT32_MAX - 1,
                            &n->cpu_speed);
    if (!strcasecmp (key, "Features")
        || !strcasecmp (key, "AvailableFeatures")) {
        n->features =
            *val ? (char *)val : NULL; /* copied once the line is read */
        return *val ? conf_features (p, val) : 0;
    }
    if (!strcasecmp (key, "Gres")) {
        n->gres = *val ? (char *)val : NULL;
        return *val ? conf_gres (p, val) : 0;
    }
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
        node->features = attr->features ? strdup (attr->features) : NULL;
        node->gres = attr->gres ? strdup (attr->gres) : NULL;
        if (!node->name || !node->addr || (attr->features && !node->features)
            || (attr->gres && !node->gres)) {
            free (node->name);
            free (node->addr);
            free (node->features);
            free (node->gres);
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

/* NodeName=DEFAULT: its strings become the parser's own copies. */
static int conf_node_default (struct conf_parser *p, struct conf_node *attr)
{
    char *f = attr->features ? strdup (attr->features) : NULL;
    char *g = attr->gres ? strdup (attr->gres) : NULL;

    if ((attr->features && !f) || (attr->gres && !g)) {
        free (f);
        free (g);
        return conf_fail (p, ENOMEM, NULL, "out of memory");
    }
    free (p->node_dflt.features);
    free (p->node_dflt.gres);
    p->node_dflt = *attr;
    p->node_dflt.features = f;
    p->node_dflt.gres = g;
    return 0;
}

/* "NodeName=LIST [NodeAddr=LIST] [CPUs=N] [RealMemory=MB] [Features=...]
 *  [Gres=...]" */
int conf_node_line (struct conf_parser *p, const char *names, char *rest)
{
    bool is_default = !strcasecmp (names, "DEFAULT");
    struct conf_node attr = p->node_dflt;
    char *key, *val, *addr = NULL;
    int rc;

    while ((rc = conf_token (p, &rest, &key, &val)) > 0) {
        if (conf_node_attr (p, &attr, key, val, is_default ? NULL : &addr) < 0)
            return -1;
    }
    if (rc < 0)
        return -1;
    if (is_default)
        return conf_node_default (p, &attr);
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
    if (!strcasecmp (key, "PriorityTier"))
        return conf_number (p, "PriorityTier", val, 0, 65533,
                            &pt->priority_tier);
    if (!strcasecmp (key, "PriorityJobFactor"))
        return conf_number (p, "PriorityJobFactor", val, 0, 65533,
                            &pt->priority_job_factor);
    if (!strcasecmp (key, "State")) {
        if (strcasecmp (val, "UP") != 0)
            return conf_fail (p, EINVAL, "State",
                              "'%.60s': only UP is "
                              "supported",
                              val);
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
        return conf_fail (p, EINVAL, "PartitionName",
                          "duplicate partition "
                          "'%.60s'",
                          pt->name);
    for (size_t i = 0; pt->is_default && i < c->nparts; i++) {
        if (c->parts[i].is_default)
            return conf_fail (p, EINVAL, "Default",
                              "partition '%.60s' is "
                              "already the default",
                              c->parts[i].name);
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
 *  [DefaultTime=T] [PriorityTier=N] [PriorityJobFactor=N] [State=UP]" */
int conf_part_line (struct conf_parser *p, const char *name, char *rest)
{
    bool is_default = !strcasecmp (name, "DEFAULT");
    struct conf_part pt = {
        .max_time = p->part_max_time,
        .default_time = p->part_default_time,
        .priority_tier = p->part_priority_tier,
        .priority_job_factor = p->part_priority_job_factor,
    };
    struct conf_pending_part pend = { .line = p->line };
    bool has_dt = p->part_has_default_time;
    char *key, *val;
    int rc;

    while ((rc = conf_token (p, &rest, &key, &val)) > 0) {
        if (conf_part_attr (p, &pt, is_default ? NULL : &pend, key, val,
                            &has_dt)
            < 0)
            return -1;
    }
    if (rc < 0)
        return -1;
    if (!has_dt)
        pt.default_time = pt.max_time;
    if (is_default) {
        p->part_max_time = pt.max_time;
        p->part_default_time = pt.default_time;
        p->part_priority_tier = pt.priority_tier;
        p->part_priority_job_factor = pt.priority_job_factor;
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
            return conf_fail (p, EINVAL, "Nodes",
                              "node '%.60s' is not "
                              "defined",
                              name);
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

/* Final pass, part 3: every resource a node's Gres= names is in GresTypes,
 * as slurmctld insists. */
static int conf_check_gres_types (struct conf_parser *p)
{
    struct conf *c = p->c;
    struct gresspec g;
    arbor_error_t e;

    for (size_t i = 0; i < c->nnodes; i++) {
        if (!c->nodes[i].gres || gresspec_parse (c->nodes[i].gres, &g, &e) < 0)
            continue; /* checked on its line */
        for (size_t k = 0; k < g.n; k++) {
            if (conf_gres_type (c, g.v[k].name))
                continue;
            p->line = p->node_lines[i];
            return conf_fail (p, EINVAL, "Gres",
                              "'%.31s' is not in GresTypes (add "
                              "GresTypes=%.31s)",
                              g.v[k].name, g.v[k].name);
        }
    }
    return 0;
}

int conf_finish (struct conf_parser *p)
{
    if (conf_check_nodes (p) < 0 || conf_check_gres_types (p) < 0)
        return -1;
    for (size_t i = 0; i < p->c->nparts; i++) {
        if (conf_resolve_part (p, &p->c->parts[i], &p->pend[i]) < 0)
            return -1;
    }
    return 0;
}
