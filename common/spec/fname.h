/* fname.h - Slurm's file name patterns (-o, -e, -i of srun and sbatch).
 *
 *   %%  a percent sign          %j  job id
 *   %J  job id.step id (the job id alone for the batch step)
 *   %s  step id ("batch", "extern", "interactive" for those steps)
 *   %t  task rank               %n  node index within the step
 *   %N  node name               %u  user name
 *   %x  job name                %A  array job id (the job id otherwise)
 *   %a  array task id (4294967294, Slurm's NO_VAL, outside an array)
 *
 * A number between '%' and a numeric field zero-pads it to that width
 * ("%4j" gives "0042"). An unknown field is kept as written. A pattern
 * holding a backslash is not expanded: its backslashes are removed and
 * the rest is taken literally, as Slurm does.
 */
#ifndef ARBOR_FNAME_H
#define ARBOR_FNAME_H

#include <stdbool.h>
#include <stdint.h>

#define FNAME_NO_ARRAY 4294967294u /* %a outside an array (NO_VAL) */

struct fname_vars {
    uint32_t job_id;
    uint32_t step_id;       /* or STEP_ID_BATCH, ... (stepids.h) */
    uint32_t task;          /* %t */
    uint32_t node_id;       /* %n */
    const char *node;       /* %N; NULL: "unknown" */
    const char *user;       /* %u; NULL: "" */
    const char *job_name;   /* %x; NULL: "" */
    uint32_t array_job_id;  /* %A; 0: the job id */
    uint32_t array_task_id; /* %a; FNAME_NO_ARRAY outside an array */
};

/* The expanded pattern; caller frees. NULL with errno ENOMEM. */
char *fname_expand (const char *pattern, const struct fname_vars *v);

/* Does the pattern depend on the task (%t) or the node (%n, %N)? Such a
 * pattern names one file per task or node. */
bool fname_per_task (const char *pattern);

#endif
