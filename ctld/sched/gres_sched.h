/* gres_sched.h - what a job asks of generic resources, and how the
 * scheduler counts it on its nodes (issue 35).
 *
 * A job's request, from the options Slurm has:
 *   --gres=gpu:a100:2,nic:1     per node
 *   --gpus-per-node=[type:]N    per node (gpu)
 *   --gpus-per-task=[type:]N    per task (gpu): a node holding T of the
 *                               job's tasks holds T*N
 *   -G/--gpus=[type:]N          per job (gpu), spread over the job's
 *                               nodes in node order, as many on each as
 *                               it has free
 *   --cpus-per-gpu=C            each task (or node) takes C cores per GPU
 *   --mem-per-gpu=MB            and that much memory per GPU
 *   --gres-flags=enforce-binding  cores only among the GPUs' local CPUs
 * Units are counted per device (which index a job holds: gresalloc.h);
 * --exclusive takes every unit of its nodes. The selection (select.h) is
 * told, per node, how many tasks the node's free units allow and how
 * many units of the per-job request it can give; the units themselves
 * are taken when the job starts (gres_job_take).
 */
#ifndef ARBOR_CTLD_GRES_SCHED_H
#define ARBOR_CTLD_GRES_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "gresalloc.h"
#include "gresspec.h"
#include "sched/select.h"

struct ctld;
struct job;
struct node;
struct msg_job_alloc;

struct job_gres {
    struct gresspec per_node; /* --gres, --gpus-per-node */
    struct gres_req per_task; /* --gpus-per-task; count 0: none */
    struct gres_req per_job;  /* --gpus; count 0: none */
    uint32_t cpus_per_gpu;
    uint64_t mem_per_gpu; /* MB */
    bool enforce_binding;
    char *gpu_bind; /* --gpu-bind as given, for the steps; NULL none */
};

/* The four request options (each NULL or "" when not given) into *g
 * (zeroed first): 0, or -1 with errno EINVAL and err. */
int gres_req_parse (const char *gres, const char *gpus,
                    const char *gpus_per_node, const char *gpus_per_task,
                    struct job_gres *g, arbor_error_t *err);
/* Parse j's request into j->gres and fold --cpus-per-gpu and
 * --mem-per-gpu into j->req (before select_normalize). A resource no
 * GresTypes names is refused as Slurm does: "Invalid generic resource
 * (gres) specification". 0, or -1 with errno EINVAL and err. */
int gres_job_init (const struct ctld *ctx, struct job *j,
                   const struct msg_job_alloc *req, arbor_error_t *err);
/* Free what j->gres holds (gpu_bind); copy one (-1 ENOMEM). */
void gres_job_clear (struct job_gres *g);
int gres_job_copy (struct job_gres *dst, const struct job_gres *src);
/* Does j ask for any? */
bool gres_job_wants (const struct job *j);
/* Set the resource fields of 'v' (j's partition's views, in order) for
 * 'mode': what each node's units allow of j. */
void gres_views (const struct ctld *ctx, const struct job *j,
                 enum select_mode mode, struct select_node *v);
/* Are j's units for 'tasks' tasks and 'share' units of its per-job
 * request free on node n now? (A plan made off the loop is checked with
 * it before the job starts.) */
bool gres_node_fits (const struct node *n, const struct job *j, uint32_t tasks,
                     uint32_t share);
/* Take j's units on node 'n' for 'tasks' tasks and 'share' units of its
 * per-job request, into a new *out (NULL when j asks for none). -1 with
 * errno ENOSPC or ENOMEM, nothing taken. */
int gres_job_take (struct node *n, const struct job *j, uint32_t tasks,
                   uint32_t share, struct gresalloc **out);
struct env;
/* The Prolog's and Epilog's SLURM_JOB_GPUS, one per node of j that holds
 * GPUs, as "SLURM_JOB_GPUS@NODE=0,1" (the noded keeps its own: noded/
 * epilog.c). 0, or -1 ENOMEM. */
int gres_job_env (const struct ctld *ctx, const struct job *j, struct env *e);
/* The live fields of j's record (JOB_REC) about its resources:
 * tres_per_node ("gres/gpu:2", what squeue %b shows), tres_per_job,
 * tres_per_task, gres_alloc ("gres/gpu=2,gres/gpu:a100=2", what it holds
 * in all) and node_gres (what it holds on each node), each malloc'd.
 * -1 with errno ENOMEM. */
struct msg_job_rec;
/* Only the record's node_gres, what j holds on each node, as the state
 * store keeps it; left NULL (none in the record) when j holds none, or
 * when r has it already. -1 with errno ENOMEM. */
int gres_job_node_texts (const struct job *j, struct msg_job_rec *r);
int gres_job_rec (const struct ctld *ctx, const struct job *j,
                  struct msg_job_rec *r);

#endif
