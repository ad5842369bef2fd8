/* distrib.h - which task ranks each node of a step runs (srun -m).
 *
 * Slurm's -m/--distribution at the node level. The number of tasks each
 * node runs is decided elsewhere (from the CPUs, -n, --ntasks-per-node);
 * this only numbers them:
 *   block      consecutive ranks share a node: node 0 runs the first
 *              counts[0] ranks, node 1 the next counts[1], ...
 *   cyclic     rank by rank, round-robin over the nodes that still have
 *              room (2 nodes, 4 tasks: node 0 {0,2}, node 1 {1,3});
 *   plane=N    as cyclic, but each node in its turn takes N consecutive
 *              ranks, or as many as it still has room for, and the next
 *              node starts its own block (2 nodes, 8 tasks, plane=2:
 *              node 0 {0,1,4,5}, node 1 {2,3,6,7}). This is Slurm's
 *              _task_layout_plane (common/slurm_step_layout.c).
 *   arbitrary  numbered as block here; the caller has ordered the nodes by
 *              the hostfile.
 */
#ifndef ARBOR_DISTRIB_H
#define ARBOR_DISTRIB_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

enum distrib {
    DISTRIB_BLOCK = 0,
    DISTRIB_CYCLIC,
    DISTRIB_PLANE,
    DISTRIB_ARBITRARY,
};

/* Parse a -m value, case-insensitively: "block", "cyclic", "plane=N"
 * (N >= 1), "arbitrary" or "*" (block), then as in Slurm up to two more
 * levels for sockets and cores, each ":block", ":cyclic", ":fcyclic" or
 * ":*", then ",Pack" or ",NoPack"; levels and Pack are accepted and
 * ignored. Sets *d, and *plane to N for plane or 0 otherwise. Returns 0,
 * or -1 with errno EINVAL and err; on failure *d and *plane are kept. */
int distrib_parse (const char *s, enum distrib *d, uint32_t *plane,
                   arbor_error_t *err);

/* Number the tasks of n nodes, node i running counts[i] of them. ranks
 * (sum of counts entries, allocated by the caller) receives node 0's ranks
 * in ascending order, then node 1's, and so on. 'plane' is used by
 * DISTRIB_PLANE only. Returns 0, or -1 with errno EINVAL (plane 0, an
 * unknown d, a total over UINT32_MAX, NULL arrays) or ENOMEM (cyclic and
 * plane use O(n) scratch memory); on failure ranks may be partly written. */
int distrib_ranks (enum distrib d, uint32_t plane, const uint32_t *counts,
                   size_t n, uint32_t *ranks);

/* Slurm's SLURM_DISTRIBUTION value: "block", "cyclic", "plane",
 * "arbitrary"; "unknown" for a value outside the enum. Static string. */
const char *distrib_name (enum distrib d);

#endif
