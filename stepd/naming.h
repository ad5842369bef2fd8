/* naming.h - how a step is named in logs and told to the user: "5.0",
 * "5.batch", and the banner a terminated step prints, as Slurm's
 * slurmstepd does. Pure functions, unit-tested (stepd/test/naming_test.c).
 */
#ifndef ARBOR_STEPD_NAMING_H
#define ARBOR_STEPD_NAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* "5.0", or "5.batch" / "5.extern" / "5.interactive" for the special step
 * ids, into buf (32 bytes are always enough). Returns buf. */
const char *step_name (char *buf, size_t size, uint32_t job, uint32_t step);

/* The line a terminated step prints on its first task's stderr, in the
 * words of Slurm's slurmstepd, 'who' (stepd_who) first, with a trailing
 * newline:
 *   "arbor-stepd: error: *** STEP 5.0 ON node1 CANCELLED AT
 *    2026-11-22T03:00:00 ***\n"
 *   "arbor-stepd: error: *** JOB 5 ON node1 CANCELLED AT
 *    2026-11-22T03:00:00 DUE TO TIME LIMIT ***\n"   (the batch step)
 * 'reason' is the STEPD_TERMINATE reason word (NULL or "": CANCELLED;
 * TIMEOUT, NODE_FAIL, PREEMPTED and REQUEUED are told as "CANCELLED AT
 * ... DUE TO ..."); the time is local, to the second. Returns the length
 * (truncated to size - 1), or -1 with errno EINVAL. */
int term_banner (char *buf, size_t size, const char *who, uint32_t job,
                 uint32_t step, const char *node, const char *reason,
                 time_t when);

/* The stepd's name in what the user reads: "slurmstepd" for a step
 * launched under Slurm's names (srun, sbatch), else "arbor-stepd". */
const char *stepd_who (bool slurm_names);

#endif
