/* trigger_private.h - what trigger.c (records, requests, storage) gives
 * trigger_event.c (events, firing, programs): the records and their
 * storage. trigger_event.c's own stages stay static in it. */
#ifndef ARBOR_CTLD_TRIGGER_PRIVATE_H
#define ARBOR_CTLD_TRIGGER_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "error.h"
#include "states.h"

struct ctld;
struct ident;
struct spawned;

enum trigger_state {
    TRIGGER_ARMED,   /* waiting for its event */
    TRIGGER_FIRED,   /* its event came: the program runs at run_at */
    TRIGGER_RUNNING, /* its program runs */
};

struct trigger {
    struct trigger *next; /* id order */
    uint32_t id;
    uint32_t res_type; /* TRIG_RES_* */
    uint32_t types;    /* TRIG_* */
    uint32_t flags;    /* TRIG_FLAG_* */
    int32_t offset;
    char *res_id;    /* as set: job id, hostlist or "*" */
    uint32_t job_id; /* TRIG_RES_JOB */
    bool *nodes;     /* TRIG_RES_NODE: per ctx node; NULL: every node */
    uid_t uid;       /* its owner: the program runs as */
    gid_t gid;
    char *program;
    enum trigger_state state;
    time_t run_at;
    char *arg;         /* what it fired for: nodes, or the job id */
    time_t last_fired; /* a PERM --idle fires once per idle period */
    bool cleared;      /* cleared while its program runs: freed after */
    struct spawned *proc;
    struct ctld *ctx; /* for the program's end */
};

/* Node states as last seen, to turn them into events. */
struct trigger_nodes {
    size_t n;
    enum node_state *last;
    time_t *idle_since;        /* 0: not idle */
    bool *down, *up, *drained; /* this tick's events */
    bool seen;                 /* 'last' holds a first look */
};

struct triggers {
    struct trigger *head, **tail;
    size_t n;
    uint32_t next_id;
    struct trigger_nodes nodes;
    time_t last_tick;
};

/* Record t in the state database (or delete it); no-op without one. */
void trigger_persist (struct ctld *ctx, const struct trigger *t);
void trigger_persist_gone (struct ctld *ctx, const struct trigger *t);
/* Unlink t (from ctx->triggers), delete its record and free it; a
 * running one is marked cleared and freed when its program ends. */
void trigger_remove (struct ctld *ctx, struct trigger *t);
void trigger_free (struct trigger *t);

/* The program's path (its first word) is absolute, a regular file, and
 * executable by uid, member of groups. 0, or -1 with errno and err. */
int trigger_prog_ok (const char *program, uid_t uid, gid_t gid,
                     const struct ident *id, arbor_error_t *err);

#endif
