/* control_node.c - the node and partition records of arbor control show;
 * see control_node.h.
 *
 * Layouts and key order are scontrol's (Slurm 22.05). Arbor nodes are
 * configured by CPUs alone, which Slurm reads as that many sockets of one
 * core of one thread; keys Arbor has no data for carry scontrol's unset
 * values. Arch and OS, which scontrol leaves out for a node that never
 * told them, are left out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_node.h"
#include "hostlist.h"
#include "jobsel.h"
#include "timestr.h"

/* Who set the reason, and when (2.8; from an older controller, or for a
 * node without a reason, reason_time stays 0). */
static void control_node_reason_by (const struct msg_node_info_reply *r,
                                    uint32_t i, struct control_node *n)
{
    const struct passwd *pw;

    if (!*n->reason || !PROTO_NUM (r, reason_times, i))
        return;
    n->reason_time = r->reason_times[i];
    n->reason_uid = PROTO_NUM (r, reason_uids, i);
    if ((pw = getpwuid ((uid_t)n->reason_uid)))
        snprintf (n->reason_user, sizeof (n->reason_user), "%s", pw->pw_name);
    else
        snprintf (n->reason_user, sizeof (n->reason_user), "%u", n->reason_uid);
}

void control_node_get (const struct msg_node_info_reply *r, uint32_t i,
                       struct control_node *n)
{
    memset (n, 0, sizeof (*n));
    n->name = r->names[i];
    n->state = PROTO_STR (r, states, i);
    n->responding = PROTO_NUM (r, not_responding, i) == 0;
    n->reason = PROTO_STR (r, reasons, i);
    control_node_reason_by (r, i, n);
    n->addr = PROTO_STR (r, addrs, i);
    if (!*n->addr)
        n->addr = n->name;
    n->partitions = PROTO_STR (r, partitions, i);
    n->cpus = PROTO_NUM (r, cpus, i);
    n->alloc_cpus = PROTO_NUM (r, alloc_cpus, i);
    n->cpu_load = i < r->cpu_loads_count ? r->cpu_loads[i] : CONTROL_NA;
    n->real_memory = PROTO_NUM (r, real_memory, i);
    n->alloc_memory = PROTO_NUM (r, alloc_memory, i);
    n->free_mem = i < r->free_mems_count ? r->free_mems[i] : CONTROL_NA;
    n->cpu_speed = PROTO_NUM (r, cpu_speeds, i) ? r->cpu_speeds[i] : 1;
    n->features = PROTO_STR (r, features, i);
    n->features_active = PROTO_STR (r, features_active, i);
    n->gres = PROTO_STR (r, gres, i);
    n->gres_used = PROTO_STR (r, gres_used, i);
}

/* One name (or name:type) and its count, for control_node_gres_tres. */
struct gres_tally {
    char key[96];
    unsigned long long n;
};

static void gres_tally_add (struct gres_tally *t, size_t *nt, const char *key,
                            unsigned long long n)
{
    for (size_t i = 0; i < *nt; i++)
        if (!strcmp (t[i].key, key)) {
            t[i].n += n;
            return;
        }
    if (*nt < 32) {
        snprintf (t[*nt].key, sizeof (t[*nt].key), "%s", key);
        t[(*nt)++].n = n;
    }
}

/* ",gres/gpu=2,gres/gpu:a100=2" of a Gres= or GresUsed= text (the count
 * after the last ':', before any '('), as CfgTRES and AllocTRES list
 * them; "" for none or nothing used. */
static const char *control_node_gres_tres (const char *gres, char *buf,
                                           size_t len)
{
    struct gres_tally t[32];
    size_t nt = 0, at = 0;
    char item[96];

    buf[0] = '\0';
    for (const char *p = gres; *p;) {
        size_t n = strcspn (p, ",");
        char *paren, *last, *type;
        unsigned long long count;
        snprintf (item, sizeof (item), "%.*s", (int)n, p);
        p += n + (p[n] == ',');
        if ((paren = strchr (item, '(')))
            *paren = '\0';
        if (!(last = strrchr (item, ':'))
            || !(count = strtoull (last + 1, NULL, 10)))
            continue;
        *last = '\0';
        if ((type = strchr (item, ':'))) {
            gres_tally_add (t, &nt, item, count); /* name:type */
            *type = '\0';
        }
        gres_tally_add (t, &nt, item, count);
    }
    for (size_t i = 0; i < nt && at < len; i++)
        if (!strchr (t[i].key, ':')) { /* each name, then its types */
            at += (size_t)snprintf (buf + at, len - at, ",gres/%s=%llu",
                                    t[i].key, t[i].n);
            for (size_t k = 0; k < nt && at < len; k++)
                if (!strncmp (t[k].key, t[i].key, strlen (t[i].key))
                    && t[k].key[strlen (t[i].key)] == ':')
                    at += (size_t)snprintf (buf + at, len - at, ",gres/%s=%llu",
                                            t[k].key, t[k].n);
        }
    return buf;
}

/* CPULoad (two decimals) or FreeMem, "N/A" until the node reported. */
static const char *control_node_na (uint32_t v, bool hundredths, char *buf,
                                    size_t len)
{
    if (v == CONTROL_NA)
        snprintf (buf, len, "N/A");
    else if (hundredths)
        snprintf (buf, len, "%u.%02u", v / 100, v % 100);
    else
        snprintf (buf, len, "%u", v);
    return buf;
}

/* CfgTRES / AllocTRES: "cpu=4,mem=2000M[,billing=4]"; AllocTRES is empty
 * while nothing is allocated, as in scontrol. */
static const char *control_node_tres (uint32_t cpus, uint32_t mem, bool billing,
                                      char *buf, size_t len)
{
    char m[32], bill[32] = "";

    if (!billing && cpus == 0 && mem == 0) {
        snprintf (buf, len, "%s", "");
        return buf;
    }
    if (billing)
        snprintf (bill, sizeof (bill), ",billing=%u", cpus);
    if (mem)
        snprintf (buf, len, "cpu=%u,mem=%s%s", cpus,
                  control_mem (mem, m, sizeof (m)), bill);
    else
        snprintf (buf, len, "cpu=%u%s", cpus, bill);
    return buf;
}

/* The lines before ThreadsPerCore=: what the node is and has. */
static void control_node_head (const struct control_node *n,
                               struct control_rec *rec)
{
    char load[24], mem[24];

    /* State= comes right after the name (scontrol has it open the
     * eighth line): Arbor's show node has always put it there, and
     * scripts written for it grep "NodeName=n1 State=IDLE". A '*' marks
     * a node whose noded is not expected to answer, as in scontrol. */
    control_rec_add (rec, "NodeName=%s State=%s%s CoresPerSocket=1", n->name,
                     *n->state ? n->state : "UNKNOWN",
                     n->responding ? "" : "*");
    control_rec_add (rec, "CPUAlloc=%u CPUEfctv=%u CPUTot=%u CPULoad=%s",
                     n->alloc_cpus, n->cpus, n->cpus,
                     control_node_na (n->cpu_load, true, load, sizeof (load)));
    control_rec_add (rec, "AvailableFeatures=%s", control_null (n->features));
    control_rec_add (rec, "ActiveFeatures=%s",
                     control_null (n->features_active));
    control_rec_add (rec, "Gres=%s", control_null (n->gres));
    control_rec_add (rec, "NodeAddr=%s NodeHostName=%s Version=(null)", n->addr,
                     n->name);
    control_rec_add (rec,
                     "RealMemory=%u AllocMem=%u FreeMem=%s Sockets=%u "
                     "Boards=1",
                     n->real_memory, n->alloc_memory,
                     control_node_na (n->free_mem, false, mem, sizeof (mem)),
                     n->cpus);
}

int control_node_text (const struct control_node *n, bool details,
                       struct control_rec *rec)
{
    char cfg[96], alloc[96], cfg_gres[512], alloc_gres[512];

    control_node_head (n, rec);
    control_rec_add (rec, "ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A "
                          "MCS_label=N/A");
    control_rec_add (rec, "Partitions=%s", control_null (n->partitions));
    control_rec_add (rec, "BootTime=None SlurmdStartTime=None");
    control_rec_add (rec, "LastBusyTime=Unknown");
    control_rec_add (
        rec, "CfgTRES=%s%s",
        control_node_tres (n->cpus, n->real_memory, true, cfg, sizeof (cfg)),
        control_node_gres_tres (n->gres, cfg_gres, sizeof (cfg_gres)));
    control_node_tres (n->alloc_cpus, n->alloc_memory, false, alloc,
                       sizeof (alloc));
    control_node_gres_tres (n->gres_used, alloc_gres, sizeof (alloc_gres));
    control_rec_add (rec, "AllocTRES=%s%s", alloc,
                     *alloc ? alloc_gres : alloc_gres + (*alloc_gres == ','));
    control_rec_add (rec, "CapWatts=n/a");
    control_rec_add (rec, "CurrentWatts=0 AveWatts=0");
    control_rec_add (rec, "ExtSensorsJoules=n/s ExtSensorsWatts=0 "
                          "ExtSensorsTemp=n/s");
    if (details)
        control_rec_add (rec, "CpuSpeed=%u", n->cpu_speed);
    if (details && *n->gres)
        control_rec_add (rec, "GresUsed=%s", n->gres_used);
    if (*n->reason && n->reason_time) {
        char when[64];
        control_rec_add (rec, "Reason=%s [%s@%s]", n->reason, n->reason_user,
                         control_time (n->reason_time, when, sizeof (when)));
    } else if (*n->reason)
        control_rec_add (rec, "Reason=%s", n->reason);
    return rec->failed ? -1 : 0;
}

/* ---- partitions ---------------------------------------------------------
 */

int control_part_get (const struct conf_part *p,
                      const struct msg_node_info_reply *r,
                      struct control_part *v)
{
    struct hostlist *hl = hostlist_create (NULL, NULL);

    memset (v, 0, sizeof (*v));
    if (!hl)
        return -1;
    for (uint32_t i = 0; i < r->names_count; i++) {
        if (!jobsel_in_list (PROTO_STR (r, partitions, i), p->name, false))
            continue;
        if (hostlist_append (hl, r->names[i]) < 0)
            goto nomem;
        v->total_cpus += PROTO_NUM (r, cpus, i);
    }
    if (!(v->nodes = hostlist_ranged (hl)))
        goto nomem;
    v->total_nodes = (uint32_t)hostlist_count (hl);
    hostlist_destroy (hl);
    v->name = p->name;
    v->is_default = p->is_default;
    v->max_time = p->max_time;
    v->default_time = p->default_time;
    v->priority_tier = p->priority_tier;
    v->priority_job_factor = p->priority_job_factor;
    return 0;
nomem:
    hostlist_destroy (hl);
    memset (v, 0, sizeof (*v));
    errno = ENOMEM;
    return -1;
}

void control_part_clear (struct control_part *v)
{
    if (!v)
        return;
    free (v->nodes);
    memset (v, 0, sizeof (*v));
}

/* Arbor's partitions have no access lists, node or memory limits,
 * preemption or per-partition OverTimeLimit: scontrol's unset values. */
int control_part_text (const struct control_part *v, struct control_rec *rec)
{
    char maxt[32], deft[32];

    control_rec_add (rec, "PartitionName=%s", v->name);
    control_rec_add (rec, "AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL");
    control_rec_add (rec, "AllocNodes=ALL Default=%s QoS=N/A",
                     v->is_default ? "YES" : "NO");
    control_rec_add (rec,
                     "DefaultTime=%s DisableRootJobs=NO ExclusiveUser=NO "
                     "GraceTime=0 Hidden=NO",
                     control_limit (v->default_time, deft, sizeof (deft)));
    control_rec_add (rec,
                     "MaxNodes=UNLIMITED MaxTime=%s MinNodes=0 LLN=NO "
                     "MaxCPUsPerNode=UNLIMITED",
                     control_limit (v->max_time, maxt, sizeof (maxt)));
    control_rec_add (rec, "Nodes=%s", control_null (v->nodes));
    control_rec_add (rec,
                     "PriorityJobFactor=%u PriorityTier=%u RootOnly=NO "
                     "ReqResv=NO OverSubscribe=NO",
                     v->priority_job_factor, v->priority_tier);
    control_rec_add (rec, "OverTimeLimit=NONE PreemptMode=OFF");
    control_rec_add (rec,
                     "State=UP TotalCPUs=%llu TotalNodes=%u "
                     "SelectTypeParameters=NONE",
                     (unsigned long long)v->total_cpus, v->total_nodes);
    control_rec_add (rec, "JobDefaults=(null)");
    control_rec_add (rec, "DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED");
    return rec->failed ? -1 : 0;
}
