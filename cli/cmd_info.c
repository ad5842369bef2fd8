/* cmd_info.c - "arbor info" (sinfo): partitions and nodes.
 *
 * Default view, one line per (partition, state) group, as sinfo:
 *     PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST
 *     debug*       up   infinite      6   idle node[1-4,7-8]
 * -N/--Node gives one line per node and partition:
 *     NODELIST PARTITION STATE CPUS ALLOC MEMORY REASON
 * -R/--list-reasons lists why nodes are drained or down (the reason the
 * controller keeps, e.g. "Kill task failed", "Epilog error"). Nodes whose
 * epilog still runs show as "comp" (COMPLETING). -p PART limits to a
 * partition, -n NODES to some nodes, -h drops the header. Node data comes from
 * NODE_INFO; partition limits from arbor.conf.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client.h"
#include "jobsel.h"
#include "opt.h"
#include "states.h"
#include "cmds.h"
#include "conf.h"
#include "hostlist.h"
#include "log.h"
#include "timestr.h"

struct info_opts {
    bool node_view, noheader, reasons;
    const char *partition;
    const char *nodes;
};

/* One (partition, state) group of the default view. */
struct info_group {
    char *part, *state;
    struct hostlist *hl;
};

static const char info_usage[] =
    "Usage: %s [-N | -R] [-h] [-p PARTITION] [-n NODES]\n"
    "  -N, --Node             one line per node\n"
    "  -R, --list-reasons     why nodes are drained or down\n"
    "  -p, --partition=NAME   only this partition\n"
    "  -n, --nodes=HOSTLIST   only these nodes\n"
    "  -h, --noheader         no header line\n"
    "      --help             this help\n";

/* sinfo's short state names (common/states.h); a name that is not a
 * state, in lower case. */
static const char *info_state (const char *s, char *buf, size_t len)
{
    int st = node_state_parse (s, false);
    size_t i;

    if (st >= 0)
        return node_state_info (st)->code;
    for (i = 0; s[i] && i + 1 < len; i++)
        buf[i] = (char)tolower ((unsigned char)s[i]);
    buf[i] = '\0';
    return buf;
}

static void info_parse (struct info_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "Node", no_argument, NULL, 'N' },
        { "list-reasons", no_argument, NULL, 'R' },
        { "noheader", no_argument, NULL, 'h' },
        { "partition", required_argument, NULL, 'p' },
        { "nodes", required_argument, NULL, 'n' },
        { "help", no_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, ":NRhp:n:", longopts, NULL)) != -1) {
        switch (c) {
        case 'N': o->node_view = true; break;
        case 'R': o->reasons = true; break;
        case 'h': o->noheader = true; break;
        case 'p': o->partition = optarg; break;
        case 'n': o->nodes = optarg; break;
        case 'H': printf (info_usage, argv[0]); exit (0);
        default: opt_getopt_die (c, argv, argv[0], longopts);
        }
    }
    if (optind < argc) {
        fprintf (stderr, "%s: unexpected argument '%s'\n", argv[0],
                 argv[optind]);
        exit (1);
    }
}

static void info_part_limit (const struct conf *conf, const char *part,
                             char *buf, size_t len)
{
    const struct conf_part *p = conf_part_find (conf, part);

    if (!p || p->max_time == TIME_INFINITE)
        snprintf (buf, len, "infinite");
    else
        timestr_format (p->max_time, buf, len);
}

static struct info_group *info_group_get (struct info_group **g, size_t *n,
                                          const char *part, const char *st)
{
    struct info_group *ng;

    for (size_t i = 0; i < *n; i++) {
        if (!strcmp ((*g)[i].part, part) && !strcmp ((*g)[i].state, st))
            return &(*g)[i];
    }
    if (!(ng = realloc (*g, (*n + 1) * sizeof (**g))))
        die ("out of memory");
    *g = ng;
    ng[*n].part = strdup (part);
    ng[*n].state = strdup (st);
    ng[*n].hl = hostlist_create (NULL, NULL);
    if (!ng[*n].part || !ng[*n].state || !ng[*n].hl)
        die ("out of memory");
    return &ng[(*n)++];
}

static void info_summary (const struct info_opts *o, const struct conf *conf,
                          const struct msg_node_info_reply *r)
{
    const struct conf_part *def = conf_part_default (conf);
    struct info_group *g = NULL;
    size_t ng = 0;
    char sbuf[32], limit[32], name[72];

    for (size_t pi = 0; pi < conf->nparts; pi++) {
        const char *part = conf->parts[pi].name;
        if (o->partition && strcmp (o->partition, part))
            continue;
        for (uint32_t i = 0; i < r->names_count; i++) {
            if (i < r->partitions_count
                && jobsel_in_list (r->partitions[i], part, false))
                hostlist_append (info_group_get (&g, &ng, part,
                                                 info_state (r->states[i], sbuf,
                                                             sizeof (sbuf)))
                                     ->hl,
                                 r->names[i]);
        }
    }
    if (!o->noheader)
        printf ("%-9s %5s %10s %6s %6s %s\n", "PARTITION", "AVAIL", "TIMELIMIT",
                "NODES", "STATE", "NODELIST");
    for (size_t i = 0; i < ng; i++) {
        char *ranged = hostlist_ranged (g[i].hl);
        snprintf (name, sizeof (name), "%s%s", g[i].part,
                  def && !strcmp (def->name, g[i].part) ? "*" : "");
        info_part_limit (conf, g[i].part, limit, sizeof (limit));
        printf ("%-9s %5s %10s %6zu %6s %s\n", name, "up", limit,
                hostlist_count (g[i].hl), g[i].state, ranged ? ranged : "");
        free (ranged);
        free (g[i].part);
        free (g[i].state);
        hostlist_destroy (g[i].hl);
    }
    free (g);
}

static void info_nodes (const struct info_opts *o,
                        const struct msg_node_info_reply *r)
{
    char sbuf[32];

    if (!o->noheader)
        printf ("%-12s %-9s %-6s %5s %5s %8s %s\n", "NODELIST", "PARTITION",
                "STATE", "CPUS", "ALLOC", "MEMORY", "REASON");
    for (uint32_t i = 0; i < r->names_count; i++) {
        const char *parts = i < r->partitions_count ? r->partitions[i] : "";
        char *list = strdup (parts && *parts ? parts : "n/a");
        char *save = NULL;
        if (!list)
            die ("out of memory");
        for (char *p = strtok_r (list, ",", &save); p;
             p = strtok_r (NULL, ",", &save)) {
            if (o->partition && strcmp (o->partition, p))
                continue;
            printf ("%-12s %-9s %-6s %5u %5u %8u %s\n", r->names[i], p,
                    info_state (r->states[i], sbuf, sizeof (sbuf)),
                    i < r->cpus_count ? r->cpus[i] : 0,
                    i < r->alloc_cpus_count ? r->alloc_cpus[i] : 0,
                    i < r->real_memory_count ? r->real_memory[i] : 0,
                    i < r->reasons_count && r->reasons[i] && *r->reasons[i]
                        ? r->reasons[i]
                        : "none");
        }
        free (list);
    }
}

static bool info_idle (const char *state)
{
    return node_state_parse (state, false) == NODE_STATE_IDLE;
}

/* -R: one line per reason, for nodes drained or down that have one. */
static void info_reasons (const struct info_opts *o,
                          const struct msg_node_info_reply *r)
{
    if (!o->noheader)
        printf ("%-30s %s\n", "REASON", "NODELIST");
    for (uint32_t i = 0; i < r->names_count; i++) {
        const char *why =
            i < r->reasons_count && r->reasons[i] ? r->reasons[i] : "";
        struct hostlist *hl;
        char *ranged;
        bool seen = false;
        if (!*why || info_idle (r->states[i]))
            continue;
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = k < r->reasons_count && r->reasons[k]
                   && !strcmp (r->reasons[k], why) && !info_idle (r->states[k]);
        if (seen)
            continue;
        if (!(hl = hostlist_create (NULL, NULL)))
            die ("out of memory");
        for (uint32_t k = i; k < r->names_count; k++)
            if (k < r->reasons_count && r->reasons[k]
                && !strcmp (r->reasons[k], why) && !info_idle (r->states[k]))
                hostlist_append (hl, r->names[k]);
        ranged = hostlist_ranged (hl);
        printf ("%-30s %s\n", why, ranged ? ranged : "");
        free (ranged);
        hostlist_destroy (hl);
    }
}

int cmd_info_main (int argc, char **argv)
{
    struct info_opts o = { 0 };
    struct msg_node_info req = { 0 };
    struct msg_node_info_reply r;
    struct client cl;
    arbor_error_t err;

    log_open ("arbor", LOG_LVL_INFO, NULL);
    info_parse (&o, argc, argv);
    if (client_open (&cl, &err) < 0)
        die ("%s", err.text);
    req.nodelist = (char *)(o.nodes ? o.nodes : "");
    if (client_call (&cl, MSG_NODE_INFO, &req, MSG_NODE_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("node information: %s", err.text);
    if (r.states_count < r.names_count)
        die ("node information: malformed answer");
    if (o.reasons)
        info_reasons (&o, &r);
    else if (o.node_view)
        info_nodes (&o, &r);
    else
        info_summary (&o, cl.conf, &r);
    proto_clear (MSG_NODE_INFO_REPLY, &r);
    client_close (&cl);
    return 0;
}
