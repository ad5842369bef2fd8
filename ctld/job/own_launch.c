/* own_launch.c - the LAUNCH of the controller's own steps; see
 * own_launch.h.
 */
#include "job/own_launch.h"
#include "conf.h"
#include "ctld.h"
#include "job/job.h"
#include "nodes/nodecomm.h"

struct msg_launch launch_msg_own (const struct ctld *ctx, const struct job *j,
                                  uint32_t step_id,
                                  const struct msg_step_created *st)
{
    return (struct msg_launch){
        .cred = st->cred,
        .job_id = j->id,
        .step_id = step_id,
        .budget_ms = launch_budget_ms (ctx->conf),
        .io_host = "",
        .step_nodelist = st->nodelist,
        .tasks = st->tasks,
        .tasks_count = st->tasks_count,
        .cpus = st->cpus,
        .cpus_count = st->cpus_count,
        .job_nodelist = j->nodelist,
        .cpus_per_task = j->req.cpus_per_task,
        .stdin_task = STDIN_NONE,
        .job_name = j->name,
        .mpi = "none",
    };
}
