/* stepd_mesh.h - STEP_MESH between the stepds of a step on different
 * nodes, carried by their nodeds. */
#ifndef ARBOR_NODED_STEPD_MESH_H
#define ARBOR_NODED_STEPD_MESH_H

#include <stdbool.h>
#include <stdint.h>

#include "proto.h"

struct noded;
struct conn;
struct stepd_table;

/* A frame from the stepd of (job, step) on its connection c: a STEP_MESH
 * is checked (it must name that job and step) and sent on to the noded
 * of its dst_node; that noded's answer goes back to the stepd. True if
 * the frame was a STEP_MESH (handled), else false. */
bool stepd_mesh_frame (struct noded *nd, struct conn *c, const struct frame *f,
                       uint32_t job, uint32_t step);
/* A STEP_MESH from another noded on c (serve.c): to this node's stepd of
 * the step, answered RC (ENOENT: no such stepd here). */
void stepd_mesh_deliver (struct noded *nd, struct conn *c,
                         const struct frame *f, const struct msg_step_mesh *m);
/* Daemon shutdown: drop the relays in flight. */
void stepd_mesh_free_all (struct stepd_table *t);

#endif
