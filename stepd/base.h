/* base.h - the helpers every part of the stepd uses (base.c).
 *
 * They sit under the driver (stepd.c) and the modules alike, so that no
 * module calls up into stepd.c: they read struct stepd (stepd.h) and,
 * for stepd_signal_tasks, signal through the container (contain.c, which
 * stands on stepd.h alone). Not installed.
 */
#ifndef ARBOR_STEPD_BASE_H
#define ARBOR_STEPD_BASE_H

#include <stdbool.h>
#include <sys/types.h>

struct stepd;

/* Is uid root or ArborUser? */
bool stepd_is_priv (const struct stepd *sd, uid_t uid);
/* The extern step (STEP_ID_EXTERN, PrologFlags=Contain): a container and
 * no task, kept until the job ends (STEPD_TERMINATE), for the ssh
 * sessions pam_arbor_adopt puts in it. */
bool stepd_extern (const struct stepd *sd);
/* Do our tasks' I/O go to a launcher (not the batch or extern step)? */
bool stepd_has_launcher (const struct stepd *sd);
/* Signal every process of the step: through the container once it
 * exists, else each task's process group. */
void stepd_signal_tasks (struct stepd *sd, int sig);
/* "5.0" for logs and messages; borrowed, valid until the next call. */
const char *stepd_id (struct stepd *sd);

#endif
