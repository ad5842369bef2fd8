/* cg_v1.h - proctrack/cgroup's cgroup v1 backend, through libcgroup
 * (cg_v1.c). Same contracts as struct proctrack_ops.
 */
#ifndef ARBOR_PROCTRACK_CG_V1_H
#define ARBOR_PROCTRACK_CG_V1_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct cg_ctx;
struct step_info;

int cg_v1_create (struct cg_ctx *c, const struct step_info *s,
                  arbor_error_t *err);
int cg_v1_add (struct cg_ctx *c, pid_t pid);
int cg_v1_add_self (struct cg_ctx *c);
/* A running process with all its threads (cgroup.procs of each group). */
int cg_v1_adopt (struct cg_ctx *c, pid_t pid);
int cg_v1_pids (struct cg_ctx *c, pid_t **pids, size_t *count);
int cg_v1_signal (struct cg_ctx *c, int sig);
int cg_v1_destroy (struct cg_ctx *c, arbor_error_t *err);
int cg_v1_is_empty (struct cg_ctx *c);
void cg_v1_fini (struct cg_ctx *c);
int cg_v1_oom_kills (struct cg_ctx *c, uint64_t *count);

#endif
