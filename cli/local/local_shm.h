/* local_shm.h - each emulated node its own /dev/shm (local_shm.c).
 * Private to cli/local/.
 */
#ifndef ARBOR_CLI_LOCAL_SHM_H
#define ARBOR_CLI_LOCAL_SHM_H

#include <stdbool.h>
#include <sys/types.h>

struct local;

/* Each emulated node its own /dev/shm (as root, not with
 * --netns). wanted: should conf node 'node' (< 0: the ctld) get one?
 * enter runs in its noded's child before exec: 0 (having said on stderr
 * why, when the node keeps the host's), or -1 with the reason on stderr
 * when the node cannot run. */
bool local_shm_wanted (const struct local *l, ssize_t node);
int local_shm_enter (const struct local *l, ssize_t node);

#endif
