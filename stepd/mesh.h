/* mesh.h - messages between the stepds of one step (mesh.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_MESH_H
#define ARBOR_STEPD_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frame;
struct stepd;

/* STEP_MESH kinds (mesh.c carries them, mpi.c dispatches them). */
enum mesh_kind {
    MESH_GATHER = 1, /* coll.c: records up the tree */
    MESH_BCAST = 2,  /* coll.c: a round's result down the tree */
    MESH_P2P = 3,    /* plugin to plugin (direct modex...) */
    MESH_ABORT = 4,  /* the step is aborted: [rank][code][text] */
};

/* STEP_MESH to the stepds of the step on other nodes, through
 * the nodeds. 'names' (borrowed until mesh_fini) are the step's nodes by
 * index. recv gets what arrives; fail is told when a send to 'dst' is
 * given up (after retries for MESH_DEADLINE). */
typedef void (*mesh_recv_f) (struct stepd *sd, uint32_t src, uint32_t kind,
                             uint64_t seq, const char *data, size_t len);
typedef void (*mesh_fail_f) (struct stepd *sd, uint32_t dst, const char *why);
int mesh_init (struct stepd *sd, const char *const *names, uint32_t nnodes,
               mesh_recv_f recv, mesh_fail_f fail);
/* Send (data copied), on whatever noded connection the stepd has then,
 * retried until taken (see mesh.c); 0, or -1 with errno (EINVAL,
 * EMSGSIZE, ENOMEM). */
int mesh_send (struct stepd *sd, uint32_t dst, uint32_t kind, uint64_t seq,
               const void *data, size_t len);
/* A STEP_MESH frame from the noded. */
void mesh_frame (struct stepd *sd, const struct frame *f);
size_t mesh_pending (const struct stepd *sd);
void mesh_fini (struct stepd *sd);

#endif
