/* states.c - the tables of job and node state names, codes and flags;
 * see states.h. Designated initializers keep each entry beside its enum
 * value, and states_test checks that no entry is missing.
 */
#include <errno.h>
#include <stddef.h>
#include <strings.h>

#include "states.h"

static const struct state_info job_states[JOB_STATE_COUNT] = {
    [JOB_PENDING] = { "PENDING", "PD", STATE_ACTIVE },
    [JOB_RUNNING] = { "RUNNING", "R", STATE_ACTIVE },
    [JOB_SUSPENDED] = { "SUSPENDED", "S", STATE_ACTIVE },
    [JOB_COMPLETING] = { "COMPLETING", "CG", 0 },
    [JOB_COMPLETED] = { "COMPLETED", "CD", STATE_FINISHED },
    [JOB_FAILED] = { "FAILED", "F", STATE_FINISHED },
    [JOB_CANCELLED] = { "CANCELLED", "CA", STATE_FINISHED },
    [JOB_TIMEOUT] = { "TIMEOUT", "TO", STATE_FINISHED },
    [JOB_NODE_FAIL] = { "NODE_FAIL", "NF", STATE_FINISHED },
    [JOB_OUT_OF_MEMORY] = { "OUT_OF_MEMORY", "OOM", STATE_FINISHED },
    [JOB_REQUEUED] = { "REQUEUED", "RQ", STATE_FINISHED },
};

static const struct state_info job_state_unknown = { "UNKNOWN", "??", 0 };

/* sinfo's codes; arbor's sinfo prints "unknown" where Slurm's says
 * "unk", as it always has. */
static const struct state_info node_states[NODE_STATE_COUNT] = {
    [NODE_STATE_UNKNOWN] = { "UNKNOWN", "unknown", 0 },
    [NODE_STATE_IDLE] = { "IDLE", "idle", 0 },
    [NODE_STATE_MIXED] = { "MIXED", "mix", 0 },
    [NODE_STATE_ALLOCATED] = { "ALLOCATED", "alloc", 0 },
    [NODE_STATE_COMPLETING] = { "COMPLETING", "comp", 0 },
    [NODE_STATE_DRAINING] = { "DRAINING", "drng", 0 },
    [NODE_STATE_DRAIN] = { "DRAIN", "drain", 0 },
    [NODE_STATE_DOWN] = { "DOWN", "down", 0 },
};

const struct state_info *job_state_info (enum job_state s)
{
    if ((unsigned)s < JOB_STATE_COUNT)
        return &job_states[s];
    return &job_state_unknown;
}

const struct state_info *node_state_info (enum node_state s)
{
    if ((unsigned)s < NODE_STATE_COUNT)
        return &node_states[s];
    return &node_states[NODE_STATE_UNKNOWN];
}

const char *job_state_str (enum job_state s)
{
    return job_state_info (s)->name;
}

/* Index of 'word' in table 'tab' of 'n' entries, or -1 with EINVAL. */
static int states_lookup (const struct state_info *tab, int n, const char *word,
                          bool codes)
{
    for (int i = 0; word && i < n; i++) {
        if (!strcasecmp (word, tab[i].name)
            || (codes && !strcasecmp (word, tab[i].code)))
            return i;
    }
    errno = EINVAL;
    return -1;
}

int job_state_parse (const char *word, bool codes)
{
    return states_lookup (job_states, JOB_STATE_COUNT, word, codes);
}

int node_state_parse (const char *word, bool codes)
{
    return states_lookup (node_states, NODE_STATE_COUNT, word, codes);
}
