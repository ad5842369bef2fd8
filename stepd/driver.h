/* driver.h - the step daemon assembled, run and taken apart (stepd.c).
 *
 * What stepd_main.c and spawner.c call; the modules never do (they stand
 * on stepd.h and base.h). Not installed.
 */
#ifndef ARBOR_STEPD_DRIVER_H
#define ARBOR_STEPD_DRIVER_H

#include "error.h"

struct stepd;

/* A step daemon in two halves, so that the spawner (spawner.c) does the
 * first once and forks before the second. stepd_load: load CONF_PATH,
 * open NODE's log, load and set up ProctrackType (contain_preload); no
 * loop, no threads, no connection. 'node' is borrowed and must outlive the
 * stepd. NULL with err on failure. */
struct stepd *stepd_load (const char *conf_path, const char *node, int verbose,
                          arbor_error_t *err);
/* stepd_start: make the loop and its watchers and take 'noded_fd' (the
 * socketpair to the noded, STEPD_INIT expected on it). 0, or -1 with err
 * (stepd_destroy frees what was made). */
int stepd_start (struct stepd *sd, int noded_fd, arbor_error_t *err);
/* Run until the step is over (lifecycle.c). The exit status: 0, or 1 if
 * no valid STEPD_INIT came. */
int stepd_run (struct stepd *sd);
/* Free everything; NULL is accepted; errno is kept. */
void stepd_destroy (struct stepd *sd);

#endif
