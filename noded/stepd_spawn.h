/* stepd_spawn.h - start one arbor-stepd per (job, step) on this node.
 *
 * stepd_spawn.c starts the stepd: a socketpair on its fd 0, setsid,
 * STEPD_INIT built from the verified claims, then it waits for
 * STEPD_LAUNCHED and reports to the launch (stepd_launched_f).
 */
#ifndef ARBOR_NODED_STEPD_SPAWN_H
#define ARBOR_NODED_STEPD_SPAWN_H

#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "proto.h"
#include "stepd_table.h"

struct noded;
struct conf;

/* Start the stepd for 'req' with identity from 'claims' (both borrowed for
 * the duration of the call only). node_id is this node's index in the
 * step. 'cb' reports the outcome later (never from inside this call).
 * Returns the stepd (owned by nd->stepds) or NULL with errno and err. */
struct stepd_rec *stepd_spawn (struct noded *nd, const struct msg_launch *req,
                               const struct msg_cred_claims *claims,
                               uint32_t node_id, stepd_launched_f cb, void *arg,
                               arbor_error_t *err);

/* From the spawner (stepd_spawner.c): the stepd forked as 'pid' (its
 * record and watcher start now); it could not be (reported to the launch
 * with errnum and text, and forgotten); it was reaped with wait 'status'
 * (as ev_child would report it). */
void stepd_spawned (struct stepd_rec *s, pid_t pid);
void stepd_spawn_failed (struct stepd_rec *s, int errnum, const char *text);
void stepd_reaped (struct stepd_rec *s, int status);

/* posix_spawn StepdPath with 'argv' and 'envp' (NULL: the noded's
 * environment) as a stepd starts: its own session, default signals and an
 * empty mask, 'fd' as fd 0, /dev/null as 1 and 2, nothing else open. 0 or
 * an errno. */
int stepd_exec_argv (struct noded *nd, char *const argv[], char *const envp[],
                     int fd, pid_t *pid);

/* The launch stops waiting: 'cb' will not be called. NULL is accepted. */
void stepd_detach (struct stepd_rec *s);

/* Path of arbor-stepd: StepdPath, else beside /proc/self/exe. Caller
 * frees; NULL with errno. */
char *stepd_default_path (const struct conf *conf);

#endif
