/* persist_private.h - the state database's record of itself (struct
 * persist) and its record kinds, which persist.c (writing) and
 * persist_restore.c (reading back at start) share. */
#ifndef ARBOR_CTLD_PERSIST_PRIVATE_H
#define ARBOR_CTLD_PERSIST_PRIVATE_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "proto.h"
#include "state/store.h"

struct ctld;
struct job;

enum {
    KIND_NODE = 1,
    KIND_BATCH = 2,
    KIND_JOB = 3,
    KIND_STEP = 4,
    KIND_TRIGGER = 5, /* trigger.c: after the jobs they may name */
};

struct persist {
    struct ctld *ctx;
    struct store *store;
    ev_prepare prepare_w;
    struct job **dirty; /* marked jobs (j->dirty), to be written */
    size_t ndirty, adirty;
    bool dirty_lost; /* the list ran out of memory: walk every job */
    uint64_t next_seq;
    /* During the restore: scripts read, by id, until their jobs take
     * them (the first takes the script, the others share it). */
    struct restored_batch {
        uint32_t id;
        struct msg_batch_rec rec;
        struct job *first;
    } * batches;
    size_t nbatches;
    unsigned restored_jobs, restored_steps, dropped;
};

/* The database is open and restored: watch its health and commit what
 * is marked before each sleep of the loop, from now on (persist_open). */
void persist_begin (struct ctld *ctx, struct persist *p);

#endif
