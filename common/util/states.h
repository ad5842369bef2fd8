/* states.h - the vocabulary of job and node states, shared by both ends.
 *
 * The controller keeps a job's state as an enum job_state and computes a
 * node's enum node_state from its record; on the wire and on screen both
 * travel as names ("RUNNING", "DRAINING"), and the commands print the
 * short codes squeue ("R") and sinfo ("drng") print. This file holds the
 * one table of names, codes and flags, so the controller and the commands
 * cannot drift apart. Names are part of the wire protocol: they never
 * change, and states are only ever added. Pure functions, no allocation.
 */
#ifndef ARBOR_COMMON_STATES_H
#define ARBOR_COMMON_STATES_H

#include <stdbool.h>

enum job_state {
    JOB_PENDING,
    JOB_RUNNING,
    JOB_SUSPENDED,  /* scontrol suspend: the controller keeps such a
                       job RUNNING with a flag */
    JOB_COMPLETING, /* shown while an ended job's epilogs run: the
                       controller keeps the end state and a flag */
    JOB_COMPLETED,
    JOB_FAILED,
    JOB_CANCELLED,
    JOB_TIMEOUT,
    JOB_NODE_FAIL,
    JOB_OUT_OF_MEMORY,
    JOB_REQUEUED, /* a run that ended to be run again (accounting) */
    JOB_STATE_COUNT
};

enum node_state {
    NODE_STATE_UNKNOWN,    /* configured, never registered */
    NODE_STATE_IDLE,       /* up, no core allocated */
    NODE_STATE_MIXED,      /* up, some cores allocated */
    NODE_STATE_ALLOCATED,  /* up, every core allocated */
    NODE_STATE_COMPLETING, /* up, epilogs (or orphaned jobs) still there */
    NODE_STATE_DRAINING,   /* drained, jobs still there */
    NODE_STATE_DRAIN,      /* drained, no job left */
    NODE_STATE_DOWN,       /* not responding, or set DOWN */
    NODE_STATE_COUNT
};

/* Flags of a state (jobs only so far; node states have none). */
enum {
    STATE_ACTIVE = 1 << 0,   /* may still be cancelled or signalled:
                                PENDING, RUNNING, SUSPENDED */
    STATE_FINISHED = 1 << 1, /* an end state: COMPLETED, FAILED,
                                CANCELLED, TIMEOUT, NODE_FAIL,
                                OUT_OF_MEMORY (COMPLETING is neither) */
};

struct state_info {
    const char *name; /* as the controller reports it: "RUNNING" */
    const char *code; /* as squeue / sinfo print it: "R", "drng" */
    unsigned flags;   /* STATE_* */
};

/* The table entry of 's' (a static const, never NULL). Out of range:
 * name "UNKNOWN", code "??" (jobs) or the NODE_STATE_UNKNOWN entry
 * (nodes), no flags. */
const struct state_info *job_state_info (enum job_state s);
const struct state_info *node_state_info (enum node_state s);

/* job_state_info (s)->name. (ctld's node_state_str names a node record's
 * state, so nodes have no such shorthand here.) */
const char *job_state_str (enum job_state s);

/* The state that 'word' names, in any case: its name, or also its short
 * code when 'codes' is true ("pd", "Running"; "drng", "DRAIN"). Returns
 * the enum value, or -1 with errno EINVAL (also for NULL). */
int job_state_parse (const char *word, bool codes);
int node_state_parse (const char *word, bool codes);

#endif
