/* jobsel.h - naming and selecting jobs: JOBID[.STEP] arguments, job state
 * names and codes, and scancel's filters.
 *
 * Job states are named as the controller reports them (PENDING, RUNNING,
 * COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL,
 * OUT_OF_MEMORY, SUSPENDED) or by squeue's codes (PD, R, CG, CD, F, CA,
 * TO, NF, OOM, S), in any case: the table of common/states.h, which the
 * controller uses too. Pure functions, unit-tested.
 */
#ifndef ARBOR_CLI_JOBSEL_H
#define ARBOR_CLI_JOBSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "5" (step STEP_ID_ALL), "5.2", "5.batch", "5.extern",
 * "5.interactive". 0, or -1 with errno EINVAL ("5.x", "0", "", "5."). */
int jobsel_parse_id (const char *s, uint32_t *job, uint32_t *step);

/* "5.2", "5.batch" or "5" into buf. Returns buf. */
const char *jobsel_id_str (uint32_t job, uint32_t step, char *buf, size_t len);

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
