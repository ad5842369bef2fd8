/* local_gres.h - arbor local --gres gpu:N: stand-in GPUs on every
 * emulated node (issue 35).
 *
 * There is no GPU here, so each node gets N device files that behave as
 * GPUs do for the scheduler, the task environment and containment: under
 * DIR/dev, gpu0..gpuN-1, character devices with the numbers of harmless
 * devices (/dev/full 1:7, /dev/random 1:8, /dev/urandom 1:9, /dev/zero
 * 1:5: hence N <= LOCAL_GPUS_MAX), made when arbor local runs as root;
 * as an ordinary user, who cannot mknod, empty files (and no
 * ConstrainDevices). Each has its share of the node's CPUs as its local
 * ones (Cores=: GPU k the k-th of N equal parts), so that jobs' cores go
 * near their GPUs as on a real node. DIR/gres.conf names them for every node,
 * arbor.conf gets GresTypes=gpu, each node Gres=gpu:N and, as root,
 * ConstrainDevices=yes. A task denied a stand-in is denied the real
 * device of the same numbers too: that is the point of the stand-in, and
 * why /dev/null is never one.
 */
#ifndef ARBOR_CLI_LOCAL_GRES_H
#define ARBOR_CLI_LOCAL_GRES_H

#include "local_base.h"

#define LOCAL_GPUS_MAX 4

/* --gres's value ("gpu:N") into *gpus, or "nvml" (*nvml: the host's own
 * GPUs, found by AutoDetect=nvml: gres.conf says only that, and the
 * nodes have no Gres=, so they register what NVML finds); -1 (said why)
 * for anything else or N out of 1..LOCAL_GPUS_MAX. */
int local_gres_parse (const char *s, unsigned *gpus, bool *nvml);
/* Make DIR/dev/gpu* and DIR/gres.conf for l->opt.gpus GPUs, or the
 * AutoDetect=nvml gres.conf (l->opt.nvml); neither: nothing. -1, said
 * why. */
int local_gres_setup (struct local *l);

#endif
