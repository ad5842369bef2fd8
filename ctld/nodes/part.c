/* part.c - the controller's partitions.
 *
 * A partition is a named set of nodes (indexes into ctld->nodes, in the
 * order the configuration lists them) with time limits. "Nodes=ALL" takes
 * every node. Each node also records the comma-separated names of its
 * partitions for NODE_INFO.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "ctld.h"
#include "error.h"
#include "nodes/node.h"
#include "nodes/part.h"

static void part_add_node (struct part *p, size_t idx)
{
    if (part_node_pos (p, idx) >= 0)
        return; /* listed twice: keep the first */
    p->nodes[p->nnodes++] = idx;
}

static int append_part_name (struct node *n, const char *name)
{
    size_t old = n->partitions ? strlen (n->partitions) : 0;
    char *s = realloc (n->partitions, old + strlen (name) + 2);

    if (!s)
        return -1;
    if (old)
        s[old++] = ',';
    strcpy (s + old, name);
    n->partitions = s;
    return 0;
}

static int part_init_one (struct ctld *ctx, struct part *p,
                          const struct conf_part *cp, arbor_error_t *err)
{
    bool all = cp->nnodes == 1 && strcasecmp (cp->nodes[0], "ALL") == 0;
    size_t cap = all ? ctx->nnodes : cp->nnodes;

    p->name = strdup (cp->name);
    p->nodes = calloc (cap ? cap : 1, sizeof (*p->nodes));
    if (!p->name || !p->nodes)
        return errprintf (err, "out of memory");
    p->is_default = cp->is_default;
    p->max_time = cp->max_time;
    p->default_time = cp->default_time;
    p->priority_tier = cp->priority_tier;
    p->priority_job_factor = cp->priority_job_factor;
    for (size_t i = 0; i < cap; i++) {
        int idx = all ? (int)i : node_index (ctx, cp->nodes[i]);
        if (idx < 0) {
            errno = EINVAL;
            return errprintf (err, "partition %s: node %s is not defined",
                              cp->name, cp->nodes[i]);
        }
        part_add_node (p, (size_t)idx);
    }
    for (size_t i = 0; i < p->nnodes; i++) {
        struct node *n = &ctx->nodes[p->nodes[i]];
        p->total_cpus += n->cpus;
        if (append_part_name (n, p->name) < 0)
            return errprintf (err, "out of memory");
    }
    return 0;
}

int parts_init (struct ctld *ctx, arbor_error_t *err)
{
    const struct conf *conf = ctx->conf;

    ctx->parts = calloc (conf->nparts ? conf->nparts : 1, sizeof (*ctx->parts));
    if (!ctx->parts)
        return errprintf (err, "out of memory");
    ctx->nparts = conf->nparts;
    for (size_t i = 0; i < conf->nparts; i++) {
        if (part_init_one (ctx, &ctx->parts[i], &conf->parts[i], err) < 0)
            return -1;
    }
    return 0;
}

void parts_fini (struct ctld *ctx)
{
    for (size_t i = 0; i < ctx->nparts; i++) {
        free (ctx->parts[i].name);
        free (ctx->parts[i].nodes);
    }
    free (ctx->parts);
    ctx->parts = NULL;
    ctx->nparts = 0;
}

int part_index (const struct ctld *ctx, const char *name)
{
    if (!name || !name[0]) {
        for (size_t i = 0; i < ctx->nparts; i++)
            if (ctx->parts[i].is_default)
                return (int)i;
        return ctx->nparts > 0 ? 0 : -1;
    }
    for (size_t i = 0; i < ctx->nparts; i++)
        if (strcmp (ctx->parts[i].name, name) == 0)
            return (int)i;
    return -1;
}

int part_node_pos (const struct part *p, size_t node)
{
    for (size_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i] == node)
            return (int)i;
    return -1;
}
