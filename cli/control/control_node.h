/* control_node.h - what arbor control show node and show partition say
 * about a node or a partition, and their text records.
 *
 * Nodes come from NODE_INFO_REPLY; partitions from the client's
 * arbor.conf (struct conf_part) with their nodes and CPUs counted from
 * NODE_INFO_REPLY (the nodes whose partitions list names them). As in
 * control_job.h, a view gathers the facts once for the text and the
 * JSON. Pure functions, unit tested.
 */
#ifndef ARBOR_CLI_CONTROL_NODE_H
#define ARBOR_CLI_CONTROL_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"
#include "control_rec.h"
#include "proto.h"

#define CONTROL_NA UINT32_MAX /* cpu_load, free_mem: not reported yet */

/* One node. Text is borrowed from the reply (never NULL). */
struct control_node {
    const char *name;
    const char *state;      /* IDLE, MIXED, ALLOCATED, DOWN, DRAIN, ... */
    bool responding;        /* false: its noded is not expected to answer
                               (2.8; true from an older controller) */
    const char *reason;     /* "" none */
    uint64_t reason_time;   /* when it was set, unix s; 0 not said */
    uint32_t reason_uid;    /* who set it (with reason_time) ... */
    char reason_user[64];   /* ... by name on this host, or the number */
    const char *addr;       /* NodeAddr */
    const char *partitions; /* comma-separated, "" none */
    uint32_t cpus, alloc_cpus;
    uint32_t cpu_load; /* hundredths, or CONTROL_NA */
    uint32_t real_memory, alloc_memory;
    uint32_t free_mem; /* MB, or CONTROL_NA */
    uint32_t cpu_speed;
    const char *features;        /* AvailableFeatures, "" none */
    const char *features_active; /* ActiveFeatures */
    const char *gres;            /* Gres=: "gpu:a100:4"; "" none */
    const char *gres_used;       /* GresUsed=: "gpu:a100:1(IDX:0)" */
};

/* Fill 'n' from entry i of 'r' (i < r->names_count). */
void control_node_get (const struct msg_node_info_reply *r, uint32_t i,
                       struct control_node *n);

/* Add n's lines to 'rec' ('details': also Arbor's CpuSpeed). 0, or -1
 * with errno ENOMEM. */
int control_node_text (const struct control_node *n, bool details,
                       struct control_rec *rec);

/* One partition. */
struct control_part {
    const char *name; /* borrowed from the conf */
    bool is_default;
    uint32_t max_time;     /* minutes or TIME_INFINITE */
    uint32_t default_time; /* minutes or TIME_INFINITE */
    uint32_t priority_tier, priority_job_factor;
    char *nodes; /* ranged, "" none; owned (control_part_clear) */
    uint64_t total_cpus;
    uint32_t total_nodes;
};

/* Fill 'v' from 'p' and the nodes of 'r' that are in it. 0, or -1 with
 * errno ENOMEM ('v' then holds nothing to free). */
int control_part_get (const struct conf_part *p,
                      const struct msg_node_info_reply *r,
                      struct control_part *v);
void control_part_clear (struct control_part *v);

int control_part_text (const struct control_part *v, struct control_rec *rec);

#endif
