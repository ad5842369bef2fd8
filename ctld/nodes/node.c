/* node.c - the controller's node records.
 *
 * One record per NodeName of arbor.conf, in configuration order. A node's
 * displayed state is derived: DOWN and UNKNOWN come from its base state;
 * a drained node is DRAINING while jobs still hold (or complete on) it and
 * DRAIN once they are gone; a registered (UP) node is COMPLETING while a
 * job that ended there has not finished its epilog, else IDLE, MIXED or
 * ALLOCATED by how many of its cores are allocated. Cores are tracked one
 * by one (a byte per core) so that a job knows exactly which cores it
 * holds.
 *
 * Who set a DOWN or DRAIN decides what lifts it (node.h, enum node_base):
 * a registration lifts "not responding" and its own resource drain, never
 * an administrator's DOWN or DRAIN nor an epilog's drain; RESUME lifts
 * those, but cannot make a silent node respond.
 *
 * Host lists from requests (NODE_INFO, -w, -x) are counted before they
 * are expanded (nodes_hostlist): a list naming more hosts than the
 * cluster has nodes is refused, so no request can make the controller
 * expand a million names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctld.h"
#include "error.h"
#include "hostlist.h"
#include "nodes/node.h"
#include "nodes/node_features.h"
#include "state/persist.h"
#include "sched/sched.h"
#include "sched/sched_wake.h"

static int node_init_one (struct node *n, const struct conf_node *cn,
                          arbor_error_t *err)
{
    n->name = strdup (cn->name);
    n->addr = strdup (cn->addr ? cn->addr : cn->name);
    n->cpus = cn->cpus ? cn->cpus : 1;
    n->real_memory = cn->real_memory;
    n->cpu_speed = cn->cpu_speed ? cn->cpu_speed : 1;
    n->tmp_disk = cn->tmp_disk;
    n->cpu_load = UINT32_MAX;
    n->free_mem = UINT32_MAX;
    n->base = NODE_UNKNOWN;
    n->cores = calloc (n->cpus, 1);
    if (!n->name || !n->addr || !n->cores) {
        errno = ENOMEM;
        return -1;
    }
    return node_features_set (n, cn->features, err) < 0
                   || node_gres_init (&n->gres, cn->gres, err) < 0
               ? -1
               : 0;
}

int nodes_init (struct ctld *ctx, arbor_error_t *err)
{
    const struct conf *conf = ctx->conf;

    ctx->nodes = calloc (conf->nnodes ? conf->nnodes : 1, sizeof (*ctx->nodes));
    if (!ctx->nodes)
        return errprintf (err, "out of memory");
    ctx->nnodes = conf->nnodes;
    for (size_t i = 0; i < conf->nnodes; i++) {
        arbor_error_t e = { "" };
        if (node_init_one (&ctx->nodes[i], &conf->nodes[i], &e) < 0)
            return errprintf (err, "node %s: %s", conf->nodes[i].name,
                              *e.text ? e.text : "out of memory");
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
        free (n->orphans); /* orphan.c's list; the nodes go with it */
        node_features_clear (n);
        node_gres_clear (&n->gres);
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

/* A run of digits at *s, saturating (hostlist.c refuses more than 18). */
static unsigned long long hl_number (const char **s)
{
    unsigned long long v = 0;

    for (; **s >= '0' && **s <= '9'; (*s)++)
        v = v < 100000000000000000ull ? v * 10 + (unsigned)(**s - '0')
                                      : 1000000000000000000ull;
    return v;
}

/* Hosts named by the bracket group starting after '[' at *p (which is
 * left after the ']'), at most 'cap'. Malformed text counts as one:
 * hostlist_create then says what is wrong. */
static size_t hl_group_count (const char **p, size_t cap)
{
    unsigned long long total = 0;
    const char *s = *p;

    while (*s && *s != ']') {
        unsigned long long lo = hl_number (&s), hi = lo;
        if (*s == '-') {
            s++;
            hi = hl_number (&s);
        }
        total += hi >= lo ? hi - lo + 1 : 1;
        if (total > cap)
            total = cap;
        while (*s && *s != ',' && *s != ']')
            s++;
        if (*s == ',')
            s++;
    }
    if (*s == ']')
        s++;
    *p = s;
    return total ? (size_t)total : 1;
}

/* Hosts 'expr' expands to, or cap + 1 once it names more than cap:
 * counted without expanding (see hostlist.c for the syntax). */
static size_t hl_count (const char *expr, size_t cap)
{
    size_t total = 0, item = 1;
    bool in_item = false;

    for (const char *s = expr; *s && total <= cap;) {
        if (*s == ',' || *s == ' ' || *s == '\t' || *s == '\n') {
            total += in_item ? item : 0;
            item = 1;
            in_item = false;
            s++;
            continue;
        }
        in_item = true;
        if (*s++ == '[') {
            size_t g = hl_group_count (&s, cap + 1);
            item = item > (cap + 1) / g ? cap + 1 : item * g;
        }
    }
    total += in_item ? item : 0;
    return total > cap ? cap + 1 : total;
}

struct hostlist *nodes_hostlist (const struct ctld *ctx, const char *expr,
                                 arbor_error_t *err)
{
    size_t cap = ctx->nnodes;

    if (expr && hl_count (expr, cap) > cap) {
        errno = EINVAL;
        errprintf (err,
                   "hostlist '%.40s%s' names more hosts than the %zu "
                   "node%s of this cluster",
                   expr, strlen (expr) > 40 ? "..." : "", cap,
                   cap == 1 ? "" : "s");
        return NULL;
    }
    return hostlist_create (expr, err);
}

size_t *nodes_select (const struct ctld *ctx, const char *expr, size_t *n,
                      arbor_error_t *err)
{
    struct hostlist *hl = NULL;
    size_t *idx;

    if (expr[0] && !(hl = nodes_hostlist (ctx, expr, err)))
        return NULL;
    *n = hl ? hostlist_count (hl) : ctx->nnodes;
    if (!(idx = calloc (*n + 1, sizeof (*idx)))) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < *n; i++) {
        int k = hl ? node_index (ctx, hostlist_nth (hl, i)) : (int)i;
        if (k < 0) {
            errprintf (err, "invalid node name %s", hostlist_nth (hl, i));
            free (idx);
            idx = NULL;
            errno = ENOENT;
            goto out;
        }
        idx[i] = (size_t)k;
    }
out:
    hostlist_destroy (hl);
    return idx;
}

enum node_state node_state_of (const struct node *n)
{
    switch (n->base) {
    case NODE_UNKNOWN: /* a drain restored before it registers is shown */
        return n->drain ? NODE_STATE_DRAIN : NODE_STATE_UNKNOWN;
    case NODE_DOWN: return NODE_STATE_DOWN;
    case NODE_DRAIN:
        return n->alloc_cpus > 0 || n->ncompleting > 0 || n->norphans > 0
                   ? NODE_STATE_DRAINING
                   : NODE_STATE_DRAIN;
    case NODE_UP: break;
    }
    if (n->ncompleting > 0 || n->norphans > 0)
        return NODE_STATE_COMPLETING;
    if (n->alloc_cpus == 0)
        return NODE_STATE_IDLE;
    if (n->alloc_cpus >= n->cpus)
        return NODE_STATE_ALLOCATED;
    return NODE_STATE_MIXED;
}

const char *node_state_str (const struct node *n)
{
    return node_state_info (node_state_of (n))->name;
}

bool node_usable (const struct node *n)
{
    return n->base == NODE_UP && n->comm_fails == 0 && n->norphans == 0;
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

int node_take_cores_near (struct node *n, uint32_t count, const uint8_t *near,
                          bool only, uint8_t *mask)
{
    uint32_t got = 0, free_near = 0;

    for (uint32_t i = 0; i < n->cpus; i++)
        free_near += near[i] && !n->cores[i];
    if (count > n->cpus - n->alloc_cpus || (only && count > free_near)) {
        errno = ENOSPC;
        return -1;
    }
    for (int pass = 0; pass < (only ? 1 : 2); pass++)
        for (uint32_t i = 0; i < n->cpus && got < count; i++) {
            if (n->cores[i] || (pass == 0 && !near[i]))
                continue;
            n->cores[i] = 1;
            mask[i] = 1;
            got++;
        }
    n->alloc_cpus += got;
    return 0;
}

void node_give_cores (struct ctld *ctx, size_t node, const uint8_t *mask)
{
    struct node *n = &ctx->nodes[node];

    sched_request (ctx);
    for (uint32_t i = 0; i < n->cpus; i++) {
        if (mask[i] && n->cores[i]) {
            n->cores[i] = 0;
            n->alloc_cpus--;
        }
    }
}

int node_set_reason (struct node *n, const char *reason, uint32_t uid,
                     time_t when)
{
    char *copy = NULL;

    if (reason && !(copy = strdup (reason)))
        return -1;
    free (n->reason);
    n->reason = copy;
    n->reason_uid = reason ? uid : 0;
    n->reason_time = reason ? when : 0;
    return 0;
}

/* A node reporting fewer CPUs or less memory than configured is drained
 * (as slurmctld does); once it reports enough again, that drain is lifted.
 * A registering DOWN (not responding) or UNKNOWN node becomes usable, or
 * DRAIN when drained meanwhile; its allocations are kept (jobs may still
 * run there). An administrator's DOWN stays until RESUME. */
void node_register (struct ctld *ctx, size_t node, uint32_t cpus,
                    uint32_t real_memory, const char *gres_short, time_t now)
{
    struct node *n = &ctx->nodes[node];
    char why[160] = "";

    sched_request (ctx);
    n->last_heard = now;
    if (n->admin_down)
        return;
    if (n->drain) {
        n->base = NODE_DRAIN; /* its reason stays */
        n->auto_drain = false;
        return;
    }
    if (cpus < n->cpus)
        snprintf (why, sizeof (why), "Low CPUs (%u < %u)", cpus, n->cpus);
    else if (real_memory < n->real_memory)
        snprintf (why, sizeof (why), "Low RealMemory (%u < %u)", real_memory,
                  n->real_memory);
    else if (gres_short)
        snprintf (why, sizeof (why), "%s", gres_short);
    if (why[0]) {
        bool again = n->auto_drain && n->reason && !strcmp (n->reason, why);
        n->base = NODE_DRAIN;
        n->auto_drain = true;
        if (again) /* keeps who set it and when */
            return;
        (void)node_set_reason (n, why, ctx->priv_uid, now);
        persist_node (ctx, node);
        return;
    }
    n->base = NODE_UP;
    if (n->auto_drain) {
        n->auto_drain = false;
        (void)node_set_reason (n, NULL, 0, 0);
        persist_node (ctx, node);
    } else
        (void)node_set_reason (n, NULL, 0, 0);
}

int node_admin_down (struct ctld *ctx, size_t node, const char *reason,
                     uint32_t uid, time_t now)
{
    struct node *n = &ctx->nodes[node];

    if (node_set_reason (n, reason, uid, now) < 0)
        return -1;
    n->base = NODE_DOWN;
    n->admin_down = true;
    n->auto_drain = false;
    sched_request (ctx);
    persist_node (ctx, node);
    return 0;
}

int node_admin_drain (struct ctld *ctx, size_t node, const char *reason,
                      uint32_t uid, time_t now)
{
    struct node *n = &ctx->nodes[node];

    if (node_set_reason (n, reason, uid, now) < 0)
        return -1;
    n->drain = true;
    n->auto_drain = false;
    if (n->base == NODE_UP)
        n->base = NODE_DRAIN;
    sched_request (ctx);
    persist_node (ctx, node);
    return 0;
}

/* RESUME on a DOWN node: back to UP only if its noded was set DOWN while
 * still answering and has registered recently; a node that is not
 * responding comes back when it registers (node_register). */
void node_resume (struct ctld *ctx, size_t node, time_t now)
{
    struct node *n = &ctx->nodes[node];
    bool heard = n->last_heard != 0 && now < n->last_heard + CTLD_NODE_TIMEOUT;
    bool was_admin_down = n->admin_down;

    sched_request (ctx);
    n->admin_down = false;
    n->drain = false;
    n->auto_drain = false;
    if (n->base == NODE_DRAIN
        || (n->base == NODE_DOWN && was_admin_down && heard))
        n->base = NODE_UP;
    else if (n->base == NODE_DOWN && n->last_heard == 0)
        n->base = NODE_UNKNOWN;
    if (n->base != NODE_DOWN)
        (void)node_set_reason (n, NULL, 0, 0);
    else if (!n->reason || strcmp (n->reason, "Not responding"))
        (void)node_set_reason (n, "Not responding", ctx->priv_uid, now);
    persist_node (ctx, node);
}
