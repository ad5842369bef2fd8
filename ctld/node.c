/* node.c - the controller's node records.
 *
 * One record per NodeName of arbor.conf, in configuration order. A node's
 * displayed state is derived: DOWN, DRAIN and UNKNOWN come from its base
 * state; a registered (UP) node is COMPLETING while a job that ended there
 * has not finished its epilog, else IDLE, MIXED or ALLOCATED by how many of
 * its cores are allocated. Cores are tracked one by one (a byte per core)
 * so that a job knows exactly which cores it holds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"

static int node_init_one (struct node *n, const struct conf_node *cn)
{
    n->name = strdup (cn->name);
    n->addr = strdup (cn->addr ? cn->addr : cn->name);
    n->cpus = cn->cpus ? cn->cpus : 1;
    n->real_memory = cn->real_memory;
    n->base = NODE_UNKNOWN;
    n->cores = calloc (n->cpus, 1);
    if (!n->name || !n->addr || !n->cores) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int nodes_init (struct ctld *ctx, arbor_error_t *err)
{
    const struct conf *conf = ctx->conf;

    ctx->nodes = calloc (conf->nnodes ? conf->nnodes : 1,
                         sizeof (*ctx->nodes));
    if (!ctx->nodes)
        return errprintf (err, "out of memory");
    ctx->nnodes = conf->nnodes;
    for (size_t i = 0; i < conf->nnodes; i++) {
        if (node_init_one (&ctx->nodes[i], &conf->nodes[i]) < 0)
            return errprintf (err, "out of memory");
    }
    return 0;
}

void nodes_fini (struct ctld *ctx)
{
    for (size_t i = 0; i < ctx->nnodes; i++) {
        struct node *n = &ctx->nodes[i];
        free (n->name);
        free (n->addr);
        free (n->reason);
        free (n->cores);
        free (n->partitions);
    }
    free (ctx->nodes);
    ctx->nodes = NULL;
    ctx->nnodes = 0;
}

int node_index (const struct ctld *ctx, const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < ctx->nnodes; i++)
        if (strcmp (ctx->nodes[i].name, name) == 0)
            return (int)i;
    return -1;
}

const char *node_state_str (const struct node *n)
{
    switch (n->base) {
    case NODE_UNKNOWN:
        return "UNKNOWN";
    case NODE_DOWN:
        return "DOWN";
    case NODE_DRAIN:
        return "DRAIN";
    case NODE_UP:
        break;
    }
    if (n->ncompleting > 0)
        return "COMPLETING";
    if (n->alloc_cpus == 0)
        return "IDLE";
    if (n->alloc_cpus >= n->cpus)
        return "ALLOCATED";
    return "MIXED";
}

bool node_usable (const struct node *n)
{
    return n->base == NODE_UP;
}

int node_take_cores (struct node *n, uint32_t count, uint8_t *mask)
{
    uint32_t got = 0;

    if (count > n->cpus - n->alloc_cpus) {
        errno = ENOSPC;
        return -1;
    }
    for (uint32_t i = 0; i < n->cpus && got < count; i++) {
        if (n->cores[i])
            continue;
        n->cores[i] = 1;
        mask[i] = 1;
        got++;
    }
    n->alloc_cpus += got;
    return 0;
}

void node_give_cores (struct node *n, const uint8_t *mask)
{
    for (uint32_t i = 0; i < n->cpus; i++) {
        if (mask[i] && n->cores[i]) {
            n->cores[i] = 0;
            n->alloc_cpus--;
        }
    }
}

int node_set_reason (struct node *n, const char *reason)
{
    char *copy = NULL;

    if (reason && !(copy = strdup (reason)))
        return -1;
    free (n->reason);
    n->reason = copy;
    return 0;
}

/* A node reporting fewer CPUs or less memory than configured is drained
 * (as slurmctld does); once it reports enough again, that drain is lifted.
 * A registering DOWN or UNKNOWN node becomes usable; its allocations are
 * kept (jobs may still run there). */
void node_register (struct node *n, uint32_t cpus, uint32_t real_memory,
                    time_t now)
{
    char why[80] = "";

    n->last_heard = now;
    if (cpus < n->cpus)
        snprintf (why, sizeof (why), "Low CPUs (%u < %u)", cpus, n->cpus);
    else if (real_memory < n->real_memory)
        snprintf (why, sizeof (why), "Low RealMemory (%u < %u)",
                  real_memory, n->real_memory);
    if (why[0]) {
        n->base = NODE_DRAIN;
        n->auto_drain = true;
        (void)node_set_reason (n, why);
        return;
    }
    if (n->base == NODE_DRAIN && !n->auto_drain)
        return;
    n->base = NODE_UP;
    n->auto_drain = false;
    (void)node_set_reason (n, NULL);
}
