/* info_fields.c - sinfo's fields. See info_fields.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct_text.h"
#include "hostlist.h"
#include "info_fields.h"
#include "jobsel.h"
#include "queue/queue_fields.h"
#include "states.h"
#include "timestr.h"

enum info_field {
    IF_AVAIL,
    IF_NODES_AI,
    IF_FEATURES_ACT,
    IF_MAX_CPUS,
    IF_CPUS,
    IF_CPUS_STATE,
    IF_DISK,
    IF_NODES,
    IF_FREE_MEM,
    IF_REASON,
    IF_FEATURES,
    IF_NODES_AIOT,
    IF_GROUPS,
    IF_GRES,
    IF_OVERSUB,
    IF_TIMESTAMP,
    IF_PRIO_FACTOR,
    IF_TIME,
    IF_DEFAULT_TIME,
    IF_MEMORY,
    IF_PREEMPT,
    IF_HOSTNAMES,
    IF_NODELIST,
    IF_ADDR,
    IF_LOAD,
    IF_PRIO_TIER,
    IF_PARTITION,
    IF_ROOT,
    IF_PART_NAME,
    IF_SIZE,
    IF_ALLOC_NODES,
    IF_STATE,
    IF_STATE_LONG,
    IF_USER,
    IF_USER_LONG,
    IF_CLUSTER,
    IF_WEIGHT,
    IF_SOCKETS,
    IF_CORES,
    IF_THREADS,
    IF_SCT,
    IF_ALLOC_MEM,
    IF_STATE_COMPLETE,
    IF_PORT,
};

/* clang-format off */
const struct fmt_def info_fields[] = {
    { IF_AVAIL, 'a', "Available", "AVAIL" },
    { IF_NODES_AI, 'A', "NodeAI", "NODES(A/I)" },
    { IF_FEATURES_ACT, 'b', "features_act", "ACTIVE_FEATURES" },
    { IF_MAX_CPUS, 'B', "MaxCPUsPerNode", "MAX_CPUS_PER_NODE" },
    { IF_CPUS, 'c', "CPUs", "CPUS" },
    { IF_CPUS_STATE, 'C', "CPUsState", "CPUS(A/I/O/T)" },
    { IF_DISK, 'd', "Disk", "TMP_DISK" },
    { IF_NODES, 'D', "Nodes", "NODES" },
    { IF_FREE_MEM, 'e', "FreeMem", "FREE_MEM" },
    { IF_REASON, 'E', "Reason", "REASON" },
    { IF_FEATURES, 'f', "Features", "AVAIL_FEATURES" },
    { IF_NODES_AIOT, 'F', "NodeAIOT", "NODES(A/I/O/T)" },
    { IF_GROUPS, 'g', "Groups", "GROUPS" },
    { IF_GRES, 'G', "Gres", "GRES" },
    { IF_OVERSUB, 'h', "OverSubscribe", "OVERSUBSCRIBE" },
    { IF_TIMESTAMP, 'H', "TimeStamp", "TIMESTAMP" },
    { IF_PRIO_FACTOR, 'I', "PriorityJobFactor", "PRIO_JOB_FACTOR" },
    { IF_TIME, 'l', "Time", "TIMELIMIT" },
    { IF_DEFAULT_TIME, 'L', "DefaultTime", "DEFAULTTIME" },
    { IF_MEMORY, 'm', "Memory", "MEMORY" },
    { IF_PREEMPT, 'M', "PreemptMode", "PREEMPT_MODE" },
    { IF_HOSTNAMES, 'n', "NodeHost", "HOSTNAMES" },
    { IF_NODELIST, 'N', "NodeList", "NODELIST" },
    { IF_ADDR, 'o', "NodeAddr", "NODE_ADDR" },
    { IF_LOAD, 'O', "CPUsLoad", "CPU_LOAD" },
    { IF_PRIO_TIER, 'p', "PriorityTier", "PRIO_TIER" },
    { IF_PRIO_TIER, 0, "Priority", "PRIO_TIER" },
    { IF_PARTITION, 'P', "Partition", "PARTITION" },
    { IF_ROOT, 'r', "Root", "ROOT" },
    { IF_PART_NAME, 'R', "PartitionName", "PARTITION" },
    { IF_SIZE, 's', "Size", "JOB_SIZE" },
    { IF_ALLOC_NODES, 'S', "AllocNodes", "ALLOCNODES" },
    { IF_STATE, 't', "StateCompact", "STATE" },
    { IF_STATE_LONG, 'T', "StateLong", "STATE" },
    { IF_USER, 'u', "User", "USER" },
    { IF_USER_LONG, 'U', "UserLong", "USER" },
    { IF_CLUSTER, 'V', "Cluster", "CLUSTER" },
    { IF_WEIGHT, 'w', "Weight", "WEIGHT" },
    { IF_SOCKETS, 'X', "Sockets", "SOCKETS" },
    { IF_CORES, 'Y', "Cores", "CORES" },
    { IF_THREADS, 'Z', "Threads", "THREADS" },
    { IF_SCT, 'z', "SocketCoreThread", "S:C:T" },
    { IF_ALLOC_MEM, 0, "AllocMem", "ALLOCMEM" },
    { IF_STATE_COMPLETE, 0, "StateComplete", "STATECOMPLETE" },
    { IF_PORT, 0, "Port", "PORT" },
};
/* clang-format on */
const size_t info_nfields = sizeof (info_fields) / sizeof (info_fields[0]);

#define INFO_NA UINT32_MAX /* cpu_loads, free_mems: not reported */

enum info_kind info_field_kind (int id)
{
    switch (id) {
    case IF_AVAIL:
    case IF_MAX_CPUS:
    case IF_GROUPS:
    case IF_OVERSUB:
    case IF_PRIO_FACTOR:
    case IF_TIME:
    case IF_DEFAULT_TIME:
    case IF_PREEMPT:
    case IF_PRIO_TIER:
    case IF_PARTITION:
    case IF_ROOT:
    case IF_PART_NAME:
    case IF_SIZE:
    case IF_ALLOC_NODES: return INFO_PART;
    case IF_CPUS:
    case IF_DISK:
    case IF_FREE_MEM:
    case IF_MEMORY:
    case IF_LOAD:
    case IF_WEIGHT:
    case IF_SOCKETS:
    case IF_CORES:
    case IF_THREADS:
    case IF_SCT: return INFO_RANGE;
    case IF_NODES_AI:
    case IF_CPUS_STATE:
    case IF_NODES:
    case IF_NODES_AIOT:
    case IF_HOSTNAMES:
    case IF_NODELIST:
    case IF_ADDR:
    case IF_ALLOC_MEM: return INFO_SUMMARY;
    default: return INFO_NODE;
    }
}

int info_node_state (const struct msg_node_info_reply *r, uint32_t i)
{
    int st = node_state_parse (PROTO_STR (r, states, i), false);

    return st < 0 ? NODE_STATE_COUNT : st;
}

bool info_node_responding (const struct msg_node_info_reply *r, uint32_t i)
{
    return PROTO_NUM (r, not_responding, i) == 0;
}

/* sinfo's names; Arbor's DRAIN is a drained node with no job left. */
static const char *const info_short[NODE_STATE_COUNT] = {
    [NODE_STATE_UNKNOWN] = "unk",     [NODE_STATE_IDLE] = "idle",
    [NODE_STATE_MIXED] = "mix",       [NODE_STATE_ALLOCATED] = "alloc",
    [NODE_STATE_COMPLETING] = "comp", [NODE_STATE_DRAINING] = "drng",
    [NODE_STATE_DRAIN] = "drain",     [NODE_STATE_DOWN] = "down",
};
static const char *const info_long[NODE_STATE_COUNT] = {
    [NODE_STATE_UNKNOWN] = "unknown",
    [NODE_STATE_IDLE] = "idle",
    [NODE_STATE_MIXED] = "mixed",
    [NODE_STATE_ALLOCATED] = "allocated",
    [NODE_STATE_COMPLETING] = "completing",
    [NODE_STATE_DRAINING] = "draining",
    [NODE_STATE_DRAIN] = "drained",
    [NODE_STATE_DOWN] = "down",
};

const char *info_state_name (const struct msg_node_info_reply *r, uint32_t i,
                             bool lng, char *buf, size_t len)
{
    int st = info_node_state (r, i);
    const char *s = PROTO_STR (r, states, i);
    size_t k;

    if (st < NODE_STATE_COUNT)
        return lng ? info_long[st] : info_short[st];
    for (k = 0; s[k] && k + 1 < len; k++)
        buf[k] = (char)tolower ((unsigned char)s[k]);
    buf[k] = '\0';
    return buf;
}

uint32_t info_reason_time (const struct msg_node_info_reply *r, uint32_t i)
{
    return i < r->reason_uids_count ? PROTO_NUM (r, reason_times, i) : 0;
}

bool info_reason_by (const struct info_data *d, uint32_t i, uint32_t *uid,
                     const char **user, char *buf, size_t len)
{
    const struct msg_node_info_reply *r = d->r;

    if (info_reason_time (r, i) == 0)
        return false;
    *uid = r->reason_uids[i];
    if (d->users && i < r->names_count && d->users[i])
        *user = d->users[i];
    else {
        snprintf (buf, len, "%lu", (unsigned long)*uid);
        *user = buf;
    }
    return true;
}

/* A uid's name, or its number: a copy. NULL with errno ENOMEM. */
static char *info_user_name (uint32_t uid)
{
    struct passwd pw, *res = NULL;
    char buf[1024], *s = NULL;

    if (getpwuid_r ((uid_t)uid, &pw, buf, sizeof (buf), &res) == 0 && res)
        return strdup (res->pw_name);
    if (asprintf (&s, "%lu", (unsigned long)uid) < 0)
        return NULL;
    return s;
}

/* Node i's reason's uid named like node k's, the last distinct one
 * looked up (a few administrators set most reasons): a copy, else a
 * lookup. */
static char *info_user_of (const struct msg_node_info_reply *r, char **users,
                           uint32_t i, uint32_t *last)
{
    uint32_t uid = r->reason_uids[i];

    if (*last != UINT32_MAX && r->reason_uids[*last] == uid)
        return strdup (users[*last]);
    *last = i;
    return info_user_name (uid);
}

int info_data_users (struct info_data *d)
{
    const struct msg_node_info_reply *r = d->r;
    char **users = calloc (r->names_count + 1, sizeof (*users));
    uint32_t last = UINT32_MAX;

    d->users = users;
    for (uint32_t i = 0; users && i < r->names_count; i++) {
        if (info_reason_time (r, i) == 0)
            continue;
        if (!(users[i] = info_user_of (r, users, i, &last))) {
            info_data_free (d);
            users = NULL;
        }
    }
    if (!users) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void info_data_free (struct info_data *d)
{
    if (!d || !d->users)
        return;
    for (uint32_t i = 0; i < d->r->names_count; i++)
        free (d->users[i]);
    free (d->users);
    d->users = NULL;
}

/* %u (the name), %U ("name(uid)") and %H of the line's (first) node's
 * reason; "Unknown" when it has none. */
static const char *info_reason_field (int id, const struct info_row *row,
                                      char *buf, size_t len)
{
    uint32_t i = row->nodes[0], uid;
    const char *user;
    char num[16];

    if (!info_reason_by (row->d, i, &uid, &user, num, sizeof (num)))
        return "Unknown";
    if (id == IF_TIMESTAMP)
        return acct_text_time (info_reason_time (row->d->r, i),
                               row->d->time_format, buf, len);
    if (id == IF_USER_LONG)
        snprintf (buf, len, "%s(%lu)", user, (unsigned long)uid);
    else
        snprintf (buf, len, "%s", user);
    return buf;
}

/* %t / %T of the line's (first) node, '*' when it does not respond. */
static const char *info_state (const struct info_row *row, bool lng, char *buf,
                               size_t len)
{
    const struct msg_node_info_reply *r = row->d->r;
    uint32_t i = row->nodes[0];
    char name[64];

    snprintf (buf, len, "%s%s",
              info_state_name (r, i, lng, name, sizeof (name)),
              info_node_responding (r, i) ? "" : "*");
    return buf;
}

/* -O StateComplete: the base state and its flags, "mixed+drain". */
static const char *info_state_complete (const struct info_row *row, char *buf,
                                        size_t len)
{
    const struct msg_node_info_reply *r = row->d->r;
    uint32_t i = row->nodes[0], alloc = PROTO_NUM (r, alloc_cpus, i);
    int st = info_node_state (r, i);
    const char *base = alloc == 0                        ? "idle"
                       : alloc >= PROTO_NUM (r, cpus, i) ? "allocated"
                                                         : "mixed";
    const char *flag = st == NODE_STATE_COMPLETING ? "+completing"
                       : st == NODE_STATE_DRAINING || st == NODE_STATE_DRAIN
                           ? "+drain"
                           : "";

    if (st == NODE_STATE_DOWN || st == NODE_STATE_UNKNOWN)
        base = info_long[st];
    snprintf (buf, len, "%s%s%s", base, flag,
              info_node_responding (r, i) ? "" : "+not_responding");
    return buf;
}

static const char *info_num (uint64_t v, char *buf, size_t len)
{
    snprintf (buf, len, "%llu", (unsigned long long)v);
    return buf;
}

/* The smallest of a u32 list over the line's nodes, '+' when some node
 * has more: sinfo's "4+". */
static const char *info_min_plus (const struct info_row *row, const uint32_t *v,
                                  uint32_t n, char *buf, size_t len)
{
    uint32_t lo = UINT32_MAX, hi = 0;

    for (size_t k = 0; k < row->nnodes; k++) {
        uint32_t x = row->nodes[k] < n ? v[row->nodes[k]] : 0;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    snprintf (buf, len, "%u%s", row->nnodes ? lo : 0, hi > lo ? "+" : "");
    return buf;
}

/* %e and %O: "min-max" over the nodes that reported one, "N/A" if
 * none did; %O in hundredths, shown as 0.37. */
static const char *info_range (const struct info_row *row, const uint32_t *v,
                               uint32_t n, bool load, char *buf, size_t len)
{
    uint32_t lo = INFO_NA, hi = 0;

    for (size_t k = 0; k < row->nnodes; k++) {
        uint32_t x = row->nodes[k] < n ? v[row->nodes[k]] : INFO_NA;
        if (x == INFO_NA)
            continue;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    if (lo == INFO_NA)
        return "N/A";
    if (load && hi > lo)
        snprintf (buf, len, "%.2f-%.2f", lo / 100.0, hi / 100.0);
    else if (load)
        snprintf (buf, len, "%.2f", lo / 100.0);
    else if (hi > lo)
        snprintf (buf, len, "%u-%u", lo, hi);
    else
        snprintf (buf, len, "%u", lo);
    return buf;
}

char *info_ranged (const struct info_row *row, bool addrs)
{
    const struct msg_node_info_reply *r = row->d->r;
    struct hostlist *hl = hostlist_create (NULL, NULL);
    char *ranged = NULL;
    size_t k;

    for (k = 0; hl && k < row->nnodes; k++) {
        uint32_t i = row->nodes[k];
        const char *s = addrs ? PROTO_STR (r, addrs, i) : "";
        if (hostlist_append (hl, *s ? s : PROTO_STR (r, names, i)) < 0)
            break;
    }
    if (hl && k == row->nnodes)
        ranged = hostlist_ranged (hl);
    hostlist_destroy (hl);
    return ranged;
}

/* %N, %n, %o: as ranged with the line, or now (cut to buf). */
static const char *info_list (const struct info_row *row, bool addrs, char *buf,
                              size_t len)
{
    char *ranged;

    if (addrs ? row->addrs : row->names)
        return addrs ? row->addrs : row->names;
    ranged = info_ranged (row, addrs);
    snprintf (buf, len, "%s", ranged ? ranged : "");
    free (ranged);
    return buf;
}

/* Whether node i counts as allocated, idle or other in %A, %F, %C:
 * drained, draining, down and unknown nodes are "other". */
enum { INFO_ALLOC, INFO_IDLE, INFO_OTHER };
static int info_class (const struct msg_node_info_reply *r, uint32_t i)
{
    switch (info_node_state (r, i)) {
    case NODE_STATE_IDLE: return INFO_IDLE;
    case NODE_STATE_MIXED:
    case NODE_STATE_ALLOCATED:
    case NODE_STATE_COMPLETING: return INFO_ALLOC;
    default: return INFO_OTHER;
    }
}

/* %A ("A/I"), %F ("A/I/O/T") and %C (the same counts of CPUs). */
static const char *info_counts (const struct info_row *row, int id, char *buf,
                                size_t len)
{
    const struct msg_node_info_reply *r = row->d->r;
    uint64_t n[3] = { 0 }, c[3] = { 0 }, cpus = 0;

    for (size_t k = 0; k < row->nnodes; k++) {
        uint32_t i = row->nodes[k], all = PROTO_NUM (r, cpus, i);
        uint32_t alloc = PROTO_NUM (r, alloc_cpus, i);
        int cls = info_class (r, i);
        alloc = alloc > all ? all : alloc;
        n[cls]++;
        cpus += all;
        c[INFO_ALLOC] += alloc;
        c[cls == INFO_OTHER ? INFO_OTHER : INFO_IDLE] += all - alloc;
    }
    if (id == IF_NODES_AI)
        snprintf (buf, len, "%llu/%llu", (unsigned long long)n[0],
                  (unsigned long long)n[1]);
    else if (id == IF_NODES_AIOT)
        snprintf (buf, len, "%llu/%llu/%llu/%zu", (unsigned long long)n[0],
                  (unsigned long long)n[1], (unsigned long long)n[2],
                  row->nnodes);
    else
        snprintf (buf, len, "%llu/%llu/%llu/%llu", (unsigned long long)c[0],
                  (unsigned long long)c[1], (unsigned long long)c[2],
                  (unsigned long long)cpus);
    return buf;
}

static const char *info_sum_alloc_mem (const struct info_row *row, char *buf,
                                       size_t len)
{
    uint64_t sum = 0;

    for (size_t k = 0; k < row->nnodes; k++)
        sum += PROTO_NUM (row->d->r, alloc_memory, row->nodes[k]);
    return info_num (sum, buf, len);
}

/* A partition's limit in minutes, as sinfo prints it. */
static const char *info_limit (uint32_t minutes, char *buf, size_t len)
{
    if (minutes == TIME_INFINITE)
        return "infinite";
    return queue_duration ((long)minutes * 60, buf, len);
}

static const struct conf_part *info_part (const struct info_row *row)
{
    const struct conf *c = row->d->conf;

    if (!c || row->part < 0 || (size_t)row->part >= c->nparts)
        return NULL;
    return &c->parts[row->part];
}

/* The partition's fields; "n/a" for a line that has none. */
static const char *info_part_value (int id, const struct info_row *row,
                                    char *buf, size_t len)
{
    const struct conf_part *p = info_part (row);

    if (!p)
        return "n/a";
    switch (id) {
    case IF_AVAIL: return "up";
    case IF_PARTITION:
        snprintf (buf, len, "%s%s", p->name, p->is_default ? "*" : "");
        return buf;
    case IF_PART_NAME: return p->name;
    case IF_TIME: return info_limit (p->max_time, buf, len);
    case IF_DEFAULT_TIME: return info_limit (p->default_time, buf, len);
    case IF_PRIO_TIER: return info_num (p->priority_tier, buf, len);
    case IF_PRIO_FACTOR: return info_num (p->priority_job_factor, buf, len);
    case IF_SIZE: return "1-infinite";
    case IF_ROOT: return "no";
    case IF_OVERSUB: return "NO";
    case IF_GROUPS:
    case IF_ALLOC_NODES: return "all";
    case IF_MAX_CPUS: return "UNLIMITED";
    case IF_PREEMPT: return "OFF";
    default: return "";
    }
}

/* The fields of the line's (first) node, and the constants. */
static const char *info_node_value (int id, const struct info_row *row,
                                    char *buf, size_t len)
{
    const struct msg_node_info_reply *r = row->d->r;
    uint32_t i = row->nodes[0];
    const char *why = PROTO_STR (r, reasons, i);

    switch (id) {
    case IF_STATE: return info_state (row, false, buf, len);
    case IF_STATE_LONG: return info_state (row, true, buf, len);
    case IF_STATE_COMPLETE: return info_state_complete (row, buf, len);
    case IF_REASON: return *why ? why : "none";
    case IF_TIMESTAMP:
    case IF_USER:
    case IF_USER_LONG: return info_reason_field (id, row, buf, len);
    case IF_FEATURES: /* sinfo's words for none */
        return *PROTO_STR (r, features, i) ? PROTO_STR (r, features, i)
                                           : "(null)";
    case IF_FEATURES_ACT:
        return *PROTO_STR (r, features_active, i)
                   ? PROTO_STR (r, features_active, i)
                   : "(null)";
    case IF_GRES:
        return *PROTO_STR (r, gres, i) ? PROTO_STR (r, gres, i) : "(null)";
    case IF_CLUSTER:
        return row->d->conf && row->d->conf->cluster_name
                   ? row->d->conf->cluster_name
                   : "";
    case IF_PORT:
        return info_num (row->d->conf ? row->d->conf->noded_port : 0, buf, len);
    default: return "";
    }
}

/* %c %m %X %z and the constants sinfo ranges. */
static const char *info_range_value (int id, const struct info_row *row,
                                     char *buf, size_t len)
{
    const struct msg_node_info_reply *r = row->d->r;
    char s[32];

    switch (id) {
    case IF_CPUS: return info_min_plus (row, r->cpus, r->cpus_count, buf, len);
    case IF_SOCKETS: /* a socket per CPU: sinfo's default */
        return info_min_plus (row, r->cpus, r->cpus_count, buf, len);
    case IF_SCT:
        info_min_plus (row, r->cpus, r->cpus_count, s, sizeof (s));
        snprintf (buf, len, "%s:1:1", s);
        return buf;
    case IF_MEMORY:
        return info_min_plus (row, r->real_memory, r->real_memory_count, buf,
                              len);
    case IF_FREE_MEM:
        return info_range (row, r->free_mems, r->free_mems_count, false, buf,
                           len);
    case IF_LOAD:
        return info_range (row, r->cpu_loads, r->cpu_loads_count, true, buf,
                           len);
    case IF_CORES:
    case IF_THREADS:
    case IF_WEIGHT: return "1";
    case IF_DISK: return "0";
    default: return "";
    }
}

const char *info_field_value (int id, const void *rowp, char *buf, size_t len)
{
    const struct info_row *row = rowp;

    if (row->nnodes == 0 && info_field_kind (id) != INFO_PART)
        return id == IF_NODES ? "0" : "";
    switch (info_field_kind (id)) {
    case INFO_PART: return info_part_value (id, row, buf, len);
    case INFO_RANGE: return info_range_value (id, row, buf, len);
    case INFO_NODE: return info_node_value (id, row, buf, len);
    default: break;
    }
    switch (id) {
    case IF_NODES: return info_num (row->nnodes, buf, len);
    case IF_NODELIST:
    case IF_HOSTNAMES: return info_list (row, false, buf, len);
    case IF_ADDR: return info_list (row, true, buf, len);
    case IF_ALLOC_MEM: return info_sum_alloc_mem (row, buf, len);
    default: return info_counts (row, id, buf, len);
    }
}

/* -S's order of states: Slurm's state numbers (UNKNOWN, DOWN, IDLE,
 * ALLOCATED, MIXED), with its DRAIN and COMPLETING flags above them. */
static const int info_state_rank[NODE_STATE_COUNT + 1] = {
    [NODE_STATE_UNKNOWN] = 0,      [NODE_STATE_DOWN] = 1,
    [NODE_STATE_IDLE] = 2,         [NODE_STATE_ALLOCATED] = 3,
    [NODE_STATE_MIXED] = 5,        [NODE_STATE_DRAIN] = 0x202,
    [NODE_STATE_DRAINING] = 0x203, [NODE_STATE_COMPLETING] = 0x403,
    [NODE_STATE_COUNT] = 0,
};

bool info_field_number (int id, const struct info_row *row, double *v)
{
    const struct msg_node_info_reply *r = row->d->r;
    const struct conf_part *p = info_part (row);
    uint32_t i = row->nnodes ? row->nodes[0] : UINT32_MAX;

    switch (id) {
    case IF_NODES: *v = (double)row->nnodes; return true;
    case IF_CPUS:
    case IF_SOCKETS: *v = PROTO_NUM (r, cpus, i); return true;
    case IF_MEMORY: *v = PROTO_NUM (r, real_memory, i); return true;
    case IF_FREE_MEM: *v = PROTO_NUM (r, free_mems, i); return true;
    case IF_LOAD: *v = PROTO_NUM (r, cpu_loads, i); return true;
    case IF_ALLOC_MEM: *v = PROTO_NUM (r, alloc_memory, i); return true;
    case IF_TIMESTAMP: *v = info_reason_time (r, i); return true;
    case IF_STATE:
    case IF_STATE_LONG:
        *v = row->nnodes ? info_state_rank[info_node_state (r, i)] : -1;
        return true;
    case IF_TIME: *v = p ? p->max_time : 0; return true;
    case IF_DEFAULT_TIME: *v = p ? p->default_time : 0; return true;
    case IF_PRIO_TIER: *v = p ? p->priority_tier : 0; return true;
    case IF_PRIO_FACTOR: *v = p ? p->priority_job_factor : 0; return true;
    default: return false;
    }
}
