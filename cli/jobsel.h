/* jobsel.h - naming and selecting jobs: JOBID[_TASK][.STEP] arguments,
 * job state names and codes, and scancel's filters.
 *
 * Job states are named as the controller reports them (PENDING, RUNNING,
 * COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL,
 * OUT_OF_MEMORY, SUSPENDED) or by squeue's codes (PD, R, CG, CD, F, CA,
 * TO, NF, OOM, S), in any case: the table of common/util/states.h, which the
 * controller uses too. Pure functions, unit-tested.
 */
#ifndef ARBOR_CLI_JOBSEL_H
#define ARBOR_CLI_JOBSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JOBSEL_NO_TASK UINT32_MAX /* the id names no array task */

/* "5" (step STEP_ID_ALL), "5.2", "5.batch", "5.extern",
 * "5.interactive"; "5_3" is task 3 of array 5 (*task 3; JOBSEL_NO_TASK
 * without "_"), "5_3.2" a step of it. Which job a task is, the
 * controller says (its record's array_job_id, array_task_id). 0,
 * or -1 with errno EINVAL ("5.x", "0", "", "5.", "5_", "5_x"), the
 * outputs untouched. */
int jobsel_parse_id (const char *s, uint32_t *job, uint32_t *task,
                     uint32_t *step);

/* "5.2", "5.batch" or "5" into buf. Returns buf. */
const char *jobsel_id_str (uint32_t job, uint32_t step, char *buf, size_t len);

/* The same with an array task: "5_3", "5_3.2" (jobsel_id_str's when task
 * is JOBSEL_NO_TASK). Returns buf. */
const char *jobsel_task_str (uint32_t job, uint32_t task, uint32_t step,
                             char *buf, size_t len);

/* squeue's code for a state name ("RUNNING" -> "R"), "??" if unknown. */
const char *jobsel_state_code (const char *state);

/* Is 'word' a state name or code (or "all")? */
bool jobsel_state_valid (const char *word);

/* Is 'state' named in comma-separated 'list' (names, codes or "all")? */
bool jobsel_state_in (const char *list, const char *state);

/* Is 'item' in comma-separated 'list' (exact match, or any case)? */
bool jobsel_in_list (const char *list, const char *item, bool nocase);

/* Active = may still be cancelled or signalled (STATE_ACTIVE): pending,
 * running, suspended. 'state' is a name or a code. */
bool jobsel_state_active (const char *state);

/* A listing's jobs (jobview.h). */
struct job_list;
struct job_view;
/* The index in 'l' of task 'task' of array 'array', or -1. */
int jobsel_list_task (const struct job_list *l, uint32_t array, uint32_t task);
/* Is the job active (jobsel_state_active of its state; a job whose
 * state is not said is not)? */
bool jobsel_view_active (const struct job_view *v);

/* scancel's filters; NULL fields do not filter. user/name/partition are
 * comma-separated lists, states too. */
struct jobsel_filter {
    const char *user;
    const char *name;
    const char *states;
    const char *partition;
};

bool jobsel_filter_empty (const struct jobsel_filter *f);

/* Does the job (user, name, state, partition) pass every filter? Without
 * a state filter only active jobs pass, as scancel. */
bool jobsel_filter_match (const struct jobsel_filter *f, const char *user,
                          const char *name, const char *state,
                          const char *partition);

#endif
