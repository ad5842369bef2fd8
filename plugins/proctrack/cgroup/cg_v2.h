/* cg_v2.h - proctrack/cgroup's cgroup v2 backend, through the cgroup2
 * files (cg_v2.c). Same contracts as struct proctrack_ops.
 */
#ifndef ARBOR_PROCTRACK_CG_V2_H
#define ARBOR_PROCTRACK_CG_V2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct cg_ctx;
struct step_info;

int cg_v2_create (struct cg_ctx *c, const struct step_info *s,
                  arbor_error_t *err);
int cg_v2_add (struct cg_ctx *c, pid_t pid);
int cg_v2_pids (struct cg_ctx *c, pid_t **pids, size_t *count);
int cg_v2_signal (struct cg_ctx *c, int sig);
int cg_v2_destroy (struct cg_ctx *c, arbor_error_t *err);
int cg_v2_oom_kills (struct cg_ctx *c, uint64_t *count);
/* 1 if the v2 hierarchy at 'mount' offers 'controller'. */
bool cg_v2_has_controller (const char *mount, const char *controller);

#endif
