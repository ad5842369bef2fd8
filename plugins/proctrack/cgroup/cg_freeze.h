/* cg_freeze.h - freeze, signal, thaw: how both backends signal a step
 * (cg_freeze.c), each with its own freezer.
 */
#ifndef ARBOR_PROCTRACK_CG_FREEZE_H
#define ARBOR_PROCTRACK_CG_FREEZE_H

#include <stddef.h>
#include <sys/types.h>

struct cg_ctx;

/* How long signalling waits for a group to be frozen before it signals
 * it unfrozen. */
#define CG_FREEZE_WAIT_MS 500

/* One backend's freezer, for cg_freeze_signal(). Each call returns 0, or
 * -1 with errno; is_frozen returns 1 (frozen), 0 (not yet) or -1. */
struct cg_freezer {
    int (*freeze) (struct cg_ctx *c);
    int (*is_frozen) (struct cg_ctx *c);
    int (*thaw) (struct cg_ctx *c);
    int (*pids) (struct cg_ctx *c, pid_t **pids, size_t *count);
};

/* Freeze the step's group (waiting CG_FREEZE_WAIT_MS at most; a group
 * that does not freeze is signalled unfrozen, with a warning), send sig to
 * each listed process (cg_signal_pids), then thaw it, even when it was not
 * seen frozen. 0, or -1 with the errno of the last failure. */
int cg_freeze_signal (struct cg_ctx *c, const struct cg_freezer *fz, int sig);

#endif
