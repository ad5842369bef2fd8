/* kill.h - the termination sequence and the end-of-step cleanup (kill.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_KILL_H
#define ARBOR_STEPD_KILL_H

#include <stdbool.h>
#include <stdint.h>

struct conn;
struct stepd;

/* Its private state. 0, or -1 with errno ENOMEM. kill_fini frees it. */
int kill_init (struct stepd *sd);
/* STEPD_TERMINATE from conn c (answered later with RC on matchtag). */
void kill_terminate (struct stepd *sd, struct conn *c, uint32_t matchtag,
                     const char *reason);
/* The tasks are over: SIGKILL what is left in the container, wait until
 * it is empty, remove it. */
void kill_leftovers (struct stepd *sd);
/* A STEPD_TERMINATE came: the step is being ended. */
bool kill_requested (const struct stepd *sd);
/* The container is empty and removed (or there never was one). */
bool kill_done (const struct stepd *sd);
/* Forget requests from a closing connection. */
void kill_forget_conn (struct stepd *sd, struct conn *c);
/* Stop the poll and drop pending requests (the state stays). */
void kill_fini (struct stepd *sd);
/* kill_fini, then free the state. NULL-safe. */
void kill_free (struct stepd *sd);

#endif
