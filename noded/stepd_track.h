/* stepd_track.h - the table of the stepds this noded started, and
 * STEP_KILL delivered to them.
 *
 * stepd_track.c keeps the table of stepds (reaped through ev_child), and
 * delivers STEP_KILL: STEP_SIGNAL over each matching stepd's unix socket
 * <spool>/stepd.<job>.<step>.sock, which also finds stepds started before
 * a noded restart.
 */
#ifndef ARBOR_NODED_STEPD_TRACK_H
#define ARBOR_NODED_STEPD_TRACK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "stepd_table.h"

struct stepd_table *stepd_table_create (void);
/* Forget every stepd without signalling it (they outlive the noded):
 * closes the socketpairs and stops the child watchers. */
void stepd_table_destroy (struct stepd_table *t);

void stepd_table_insert (struct stepd_table *t, struct stepd_rec *s);
/* Unlink and free 's' (its conn and watcher are stopped). */
void stepd_table_remove (struct stepd_table *t, struct stepd_rec *s);
struct stepd_rec *stepd_table_find (struct stepd_table *t, uint32_t job,
                                    uint32_t step);

/* Called by stepd_spawn.c when a STARTING stepd reports RUNNING: delivers
 * a signal that arrived in the meantime. */
void stepd_running (struct stepd_rec *s);

/* True if (job, step) has a stepd here: in the table, or a socket in the
 * spool from before a restart. */
bool stepd_exists (struct noded *nd, uint32_t job, uint32_t step);

/* Send 'sig' to every stepd of (job, step) (step may be STEP_ID_ALL).
 * Returns how many stepds were signalled or will be once started. */
int stepd_kill (struct noded *nd, uint32_t job, uint32_t step, int sig);

/* "<spool>/stepd.<job>.<step>.sock". Caller frees. */
char *stepd_socket_path (const struct noded *nd, uint32_t job, uint32_t step);

/* Call f for each live stepd of 'uid' here: ours (not FAILED) and those
 * of a previous noded (stepd_watch_each_of_user, stepd_info.h). */
void stepd_each_of_user (struct noded *nd, uid_t uid, stepd_each_f f,
                         void *arg);

#endif
