/* node_gres.h - a node's generic resources in the controller: what it
 * has, which units are taken, and the registration check (issue 35).
 *
 * Until its noded registers, a node's resources are its Gres= in
 * arbor.conf, count only. A registration brings the items the noded
 * learnt (gres.conf, NVML, Gres=: common/conf/gresnode.h), each with its
 * device files and local CPUs; a node that registers fewer units of a
 * name (or of a name and type) than its Gres= says is drained with
 * Slurm's reason "gres/gpu count reported lower than configured (1 < 4)".
 *
 * Units of one name are numbered across its items from 0, as the node
 * numbers them (the index behind CUDA_VISIBLE_DEVICES and Slurm's
 * IDX:). Units are tracked one by one (which index a job holds) when the
 * name has at most GRESALLOC_IDX_MAX of them, else by count (mps:100k).
 */
#ifndef ARBOR_CTLD_NODE_GRES_H
#define ARBOR_CTLD_NODE_GRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "gresalloc.h"

struct node;
struct msg_node_register;

struct node_gres_item {
    char *name;
    char *type;     /* NULL: none */
    uint32_t count; /* units */
    uint32_t base;  /* index of its first unit among its name's */
    bool indexed;   /* units one by one (used[]), else by count */
    uint8_t *used;  /* count entries when indexed */
    uint32_t nused;
    char **files; /* count entries, or NULL (count only) */
    char *cores;  /* local CPUs "0-15"; NULL any */
};

struct node_gres {
    struct node_gres_item *v;
    size_t n;
    char *cfg; /* Gres= as configured (its text); NULL none */
};

/* From Gres= ('cfg', checked by the conf parser; NULL none). */
int node_gres_init (struct node_gres *g, const char *cfg, arbor_error_t *err);
void node_gres_clear (struct node_gres *g);
/* A registration's items replace the node's (the units taken are kept
 * where the items are alike). Fills 'why' with the drain reason when it
 * has fewer than configured ("" none). -1 with errno EINVAL (a damaged
 * message: err) or ENOMEM, nothing changed. */
int node_gres_register (struct node_gres *g, const struct msg_node_register *m,
                        char *why, size_t len, arbor_error_t *err);

/* Units of 'name' (and 'type', "" or NULL any) free now, or in all
 * ('all': what it has, as SELECT_EVER asks). */
uint64_t node_gres_avail (const struct node_gres *g, const char *name,
                          const char *type, bool all);
/* Take 'count' free units of name (and type), lowest index first, into
 * 'out'. -1 with errno ENOSPC (nothing taken) or E2BIG (out full). */
int node_gres_take (struct node_gres *g, const char *name, const char *type,
                    uint64_t count, struct gresalloc *out);
/* Mark in 'mask' (ncpus entries) the CPUs local to the units 'a' holds
 * (their Cores=; units without any mark nothing). Returns how many
 * CPUs it marked. */
uint32_t node_gres_cpus (const struct node_gres *g, const struct gresalloc *a,
                         uint8_t *mask, uint32_t ncpus);
/* Take exactly what 'a' holds (a restored job): -1 ENOSPC when a unit is
 * taken already (nothing taken). */
int node_gres_retake (struct node_gres *g, const struct gresalloc *a);
/* Give back what 'a' holds. */
void node_gres_give (struct node_gres *g, const struct gresalloc *a);
/* All the node's units of every name ('a' then holds the whole node:
 * --exclusive). */
void node_gres_all (const struct node_gres *g, struct gresalloc *a);

/* The CPUs local to the first 'units' units of 'name' (in index order;
 * free ones, or with 'all' any) that 'used' (ncpus entries; NULL: none)
 * leaves free: what a job bound to the units node_gres_take would give
 * it may use. UINT32_MAX when those units say no CPUs (any CPU will do).
 * For enforce-binding. */
uint32_t node_gres_near_cpus (const struct node_gres *g, const char *name,
                              uint64_t units, bool all, const uint8_t *used,
                              uint32_t ncpus);

/* scontrol's Gres= ("gpu:a100:4,nic:1"; used: GresUsed=
 * "gpu:a100:2(IDX:0-1),nic:0"), "" none. Writes at most len bytes. */
const char *node_gres_text (const struct node_gres *g, bool used, char *buf,
                            size_t len);
/* What 'held' (a job's units on the node) is, as scontrol show job -d
 * prints it: "gpu:a100:2(IDX:0-1),nic:1" (kinds it holds none of left
 * out); "" none. */
const char *node_gres_held_text (const struct node_gres *g,
                                 const struct gresalloc *held, char *buf,
                                 size_t len);
#endif
