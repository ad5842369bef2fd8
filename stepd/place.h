/* place.h - which global ranks each node of a step runs.
 *
 * The controller decides how many tasks each node runs (STEPD_INIT's
 * tasks); srun -m decides which ranks they are: STEPD_INIT's distribution
 * ("block", "cyclic", "plane=N", common/spec/distrib.h) numbers them, or, for
 * "arbitrary", its task_nodes names the node of every rank (in rank
 * order, from the launcher's SLURM_HOSTFILE). Pure functions, shared by
 * the stepd's tasks, its I/O hello, the task environment and the MPI
 * plugins; unit-tested in stepd/test/place_test.c.
 */
#ifndef ARBOR_STEPD_PLACE_H
#define ARBOR_STEPD_PLACE_H

#include <stdint.h>
#include "error.h"

/* Every rank of the step, node by node: node 0's ranks in ascending
 * order, then node 1's, ...; node i's start at layout_first_rank (tasks,
 * nnodes, i). 'distribution' NULL or "" means block; task_nodes is used
 * (and required, one entry per rank) for "arbitrary" only, and must give
 * every node as many ranks as tasks[] does. *ranks is the caller's to
 * free (NULL for a step of no task). Returns 0, or -1 with errno EINVAL
 * and err (a bad distribution, task_nodes not matching), or ENOMEM. */
int place_ranks (const char *distribution, const uint32_t *tasks,
                 uint32_t nnodes, const uint32_t *task_nodes,
                 uint32_t ntask_nodes, uint32_t **ranks, arbor_error_t *err);

#endif
