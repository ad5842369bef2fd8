/* nvml.h - this node's NVIDIA GPUs, as the NVIDIA management library
 * (NVML) sees them, for gres.conf's AutoDetect=nvml (issue 35).
 *
 * The library is opened at run time (dlopen), so Arbor builds and runs
 * without it; nodes without NVIDIA drivers simply have none.
 */
#ifndef ARBOR_NODED_NVML_H
#define ARBOR_NODED_NVML_H

#include <stddef.h>

#include "error.h"

struct gresnode;

#define NVML_LIBRARY "libnvidia-ml.so.1"

/* Append one item per GPU to 'out' (zeroed, or holding items): name
 * "gpu", count 1, type the device's name in lower case with blanks as
 * '_' (nvml_type_name), file "/dev/nvidia<minor>", cores the CPUs NVML
 * says are local to it ("0-15,32-47"; NULL when it names none). 'lib'
 * NULL: NVML_LIBRARY, found the way dlopen finds libraries.
 *
 * 0, or -1 with err and errno: ENOENT when the library cannot be opened
 * ("NVML: libnvidia-ml.so.1 not found: ..."), ENOSYS when it lacks a
 * function, EIO when a call fails ("NVML: nvmlDeviceGetName (GPU 1):
 * Unknown Error"), ENOMEM or E2BIG; *out is then as it was. The library
 * is always shut down and closed before returning. */
int nvml_detect (const char *lib, struct gresnode *out, arbor_error_t *err);

/* The type Slurm gives a GPU called 'name' ("NVIDIA A100-SXM4-40GB"):
 * lower case, blanks as '_' ("nvidia_a100-sxm4-40gb"); any other byte a
 * type cannot hold (letters, digits, '_', '-', '.') is '_' too, and the
 * result is cut at 'len' - 1 bytes. Writes buf; returns it. */
char *nvml_type_name (const char *name, char *buf, size_t len);

/* The CPUs set in an NVML affinity mask ('nwords' unsigned longs, CPU k
 * at bit k % (8 * sizeof (long)) of word k / (8 * sizeof (long))), as
 * a CPU list: "0-3,8,10-11"; "" for none. The caller frees; NULL with
 * errno ENOMEM. */
char *nvml_cpu_list (const unsigned long *mask, size_t nwords);

#endif
