/* task_limits.c - the launcher's resource limits for the tasks.
 *
 * srun and sbatch send the user's soft limits as SLURM_RLIMIT_* variables
 * (common/spec/rlimits.h). Once per step they are read from STEPD_INIT's
 * environment and checked against this stepd's hard limits, which the
 * tasks inherit and cannot raise: a value above one is lowered to it, so
 * the task still runs, and a note says so on the first local task's
 * stderr and in the log (Slurm's behaviour). The child sets them once it
 * is the job's user (task_child.c); env_task_create leaves the variables
 * out of the tasks' environment.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "naming.h"
#include "stepd.h"
#include "task_limits.h"
#include "task_child.h"

void task_limits_plan (struct stepd *sd, struct task_plan *plan, char *note,
                       size_t len)
{
    const struct msg_stepd_init *in = &sd->init;
    struct rlimits_want w;
    rlim_t hard[RLIMITS_N];
    char lowered[400];
    struct rlimit rl;

    note[0] = '\0';
    plan->nrlims = 0;
    rlimits_from_env (in->env, in->env_count, &w);
    for (size_t i = 0; i < RLIMITS_N; i++)
        hard[i] = getrlimit (rlimits_resource (i), &rl) == 0 ? rl.rlim_max
                                                             : RLIM_INFINITY;
    if (rlimits_clamp (&w, hard, lowered, sizeof (lowered)) > 0) {
        log_info ("limits of the submit host above this node's: %s", lowered);
        snprintf (note, len, "%s: warning: %s\n",
                  stepd_who (sd->init.slurm_names), lowered);
    }
    for (size_t i = 0; i < RLIMITS_N; i++) {
        if (!(w.mask & (1u << i)))
            continue;
        plan->rlim_res[plan->nrlims] = rlimits_resource (i);
        plan->rlims[plan->nrlims].rlim_cur = w.value[i];
        plan->rlims[plan->nrlims].rlim_max = hard[i];
        plan->nrlims++;
    }
}
