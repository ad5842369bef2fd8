/* simrun.h - replaying a trace through the controller's scheduling code
 * in virtual time (arbor-sim).
 */
#ifndef ARBOR_SIM_SIMRUN_H
#define ARBOR_SIM_SIMRUN_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "swf.h"

struct sim_result {
    size_t jobs;     /* replayed to their end */
    size_t skipped;  /* refused or never started */
    double avg_wait; /* s */
    double
        avg_bsld; /* bounded slowdown: max (1, (wait + run) / max (run, 10)) */
    double utilization;
    int64_t makespan; /* s from the first submission to the last end */
};

/* Replay jobs (in submission order; their submit times as the trace has
 * them) on the cluster and policy 'conf_text' describes, whose CPUs number
 * 'procs' (for the utilization). -1 with err. */
int sim_run (const char *conf_text, const struct swf_job *jobs, size_t n,
             uint32_t procs, struct sim_result *out, arbor_error_t *err);

#endif
