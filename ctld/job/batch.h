/* batch.h - batch jobs: the script a job runs, and its batch step.
 *
 * A JOB_ALLOC with a script is a submission (sbatch): the job belongs to
 * no connection. When it starts (sched.c), batch_start creates its batch
 * step (step.h, STEP_ID_BATCH) on the job's first node, has the
 * step's credential sealed, and sends LAUNCH (with the
 * script, the job's environment and the expanded output paths) to that
 * node's noded, as a launcher would. The script's end, reported by that
 * node (STEP_COMPLETE of the batch step), ends the job: COMPLETED on
 * exit 0, else FAILED, with the script's exit code as the job's.
 */
#ifndef ARBOR_CTLD_BATCH_H
#define ARBOR_CTLD_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "proto.h"

struct ctld;
struct job;

struct batch {
    char *script; /* the text, script_len bytes */
    size_t script_len;
    char **argv; /* its arguments, NULL-terminated */
    size_t argc;
    char **env; /* as submitted, NULL-terminated */
    size_t nenv;
    char *std_out, *std_err, *std_in; /* patterns; "" for the default */
    bool append;
    bool slurm_names;       /* sbatch, not arbor batch: "slurmstepd:" */
    bool cpus_per_task_set; /* -c given (also 1): SLURM_CPUS_PER_TASK */
    char *submit_host;
    uint32_t ntasks_asked; /* -n as given (SLURM_NTASKS), 0: none */
    unsigned refs;         /* jobs sharing it: the tasks of an array */
    uint32_t store_id;     /* its BATCH_REC's id (persist.c); 0: none */
    bool stored;           /* written to the state database */
};

/* Queue batch job j (made by job_create and batch_create) and, with an
 * 'array' expression ("0-99%10"), the other tasks of its array, copies
 * of it with consecutive ids; j is the first. 0 (j and its tasks are
 * ctx's; the pass that starts them runs later), or -1 with errno and err
 * (j is still the caller's; nothing was queued). */
int batch_submit (struct ctld *ctx, struct job *j, const char *array,
                  arbor_error_t *err);
/* Job j (a batch job) just started: launch its batch step. A failure
 * ends the job FAILED with the reason. */
void batch_start (struct ctld *ctx, struct job *j);

#endif
