/* base.c - the helpers every part of the stepd uses; see base.h.
 *
 * Moved down from stepd.c, so that the modules and the driver stand on
 * the same floor rather than the modules calling up into the driver.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "base.h"
#include "contain.h"
#include "log.h"
#include "naming.h"
#include "stepd.h"

bool stepd_extern (const struct stepd *sd)
{
    return sd->have_init && sd->init.step_id == STEP_ID_EXTERN;
}

/* Not the batch step (batch_step, batch.c), written out here so that the
 * base does not stand on batch.c. */
bool stepd_has_launcher (const struct stepd *sd)
{
    bool batch = sd->have_init && sd->init.step_id == STEP_ID_BATCH;

    return !batch && !stepd_extern (sd);
}

bool stepd_is_priv (const struct stepd *sd, uid_t uid)
{
    return uid == 0 || (sd->arbor_uid >= 0 && uid == (uid_t)sd->arbor_uid);
}

const char *stepd_id (struct stepd *sd)
{
    return step_name (sd->id, sizeof (sd->id), sd->init.job_id,
                      sd->init.step_id);
}

void stepd_signal_tasks (struct stepd *sd, int sig)
{
    if (contain_signal (sd, sig) == 0)
        return;
    if (errno != ESRCH)
        log_warn ("signal %d to the container: %s; signalling the tasks' "
                  "groups",
                  sig, strerror (errno));
    for (uint32_t i = 0; i < sd->ntasks; i++) {
        struct task *t = &sd->tasks[i];
        if (t->pid <= 0)
            continue;
        /* The group outlives its leader while grandchildren run in it. */
        if (kill (-t->pid, sig) < 0 && errno == ESRCH && !t->exited)
            kill (t->pid, sig);
    }
}
