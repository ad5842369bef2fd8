/* step.h - steps of a running job: cores within the job, credentials.
 */
#ifndef ARBOR_CTLD_STEP_H
#define ARBOR_CTLD_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "error.h"
#include "proto.h"

struct ctld;
struct job;

struct step {
    struct step *next;
    uint32_t id;
    char *name;
    size_t nnodes;
    size_t *jnodes; /* indexes into job->nodes */
    uint32_t *tasks;
    uint32_t *cpus;
    uint8_t **cores; /* per node: mask of the cores it was given */
    bool *done;      /* per node: its stepd reported */
    uint64_t mem_mb; /* asked per node; 0: the job's memory */
    uint32_t ntasks;
    char *nodelist; /* ranged */
    time_t start_time;
    bool shadow; /* holds none of the job's cores (the batch step) */
    /* How it ended, as its launcher or (batch) its node told (acct.h) */
    bool ended;
    int32_t exit_code, signal;
    bool oom;
    /* Its generic resources (step_gres.h) */
    struct gresalloc **gres; /* per node: held apart; NULL: the job's, shared */
    bool gres_overlap;       /* --overlap: held against no other step */
    uint32_t gpus_per_task;  /* its --gpus-per-task; 0: the job's */
    char *gpu_bind;          /* its --gpu-bind; NULL: the job's */
};

/* Create a step of job 'j' for sender uid/gid and fill 'out', its
 * credential sealed under the cluster's key (credkey.h). -1 with errno
 * EBUSY (cores busy now), EINVAL (impossible), ENOMEM and err. */
int step_create (struct ctld *ctx, struct job *j,
                 const struct msg_step_create *req, uid_t uid, gid_t gid,
                 struct msg_step_created *out, arbor_error_t *err);
/* The batch step of running job 'j' (STEP_ID_BATCH): one task on the
 * job's first node, with the job's cores and memory there, holding none
 * of them against the job's other steps (as in Slurm, the script's own
 * steps use the whole allocation). Fills 'out' as step_create does.
 * -1 with errno and err. */
int step_create_batch (struct ctld *ctx, struct job *j,
                       struct msg_step_created *out, arbor_error_t *err);
/* The extern step of running job j (STEP_ID_EXTERN, PrologFlags=Contain):
 * every job node, no task, the job's cores, held by no one. As
 * step_create_batch otherwise. */
int step_create_extern (struct ctld *ctx, struct job *j,
                        struct msg_step_created *out, arbor_error_t *err);
struct step *step_find (const struct job *j, uint32_t id);
/* A node of the step (or, node NULL, the whole step) is over. Frees the
 * step once every node is done. -1 with errno ENOENT for an unknown node. */
int step_complete (struct job *j, struct step *s, const char *node,
                   const struct ctld *ctx);
/* A report of how s ended: kept when it is the worst so far. */
void step_note_end (struct step *s, const struct msg_step_complete *m);
/* Free every step of 'j' and its per-node step usage. */
void steps_release (struct job *j);

/* A step of running job j as the state database kept it (persist.c):
 * rebuilt and holding its cores and memory in the job again. -1 with
 * errno and err when the record does not fit the job. */
int step_restore (struct job *j, const struct msg_step_rec *r,
                  arbor_error_t *err);

#endif
