/* attach_text.h - the pure parts of "arbor attach" (sattach): its
 * arguments, which output it shows, and the step layout it prints.
 *
 * No I/O but the FILE given, no state: unit-tested in
 * cli/test/attach_text_test.c.
 */
#ifndef ARBOR_CLI_ATTACH_TEXT_H
#define ARBOR_CLI_ATTACH_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ATTACH_ALL (-1) /* no --*-filter: every task */

/* "JOBID.STEPID" into *job and *step ("5.0", "5.interactive"). -1 with
 * errno EINVAL when it is not one (no step, "5_3.0" array task form,
 * junk), outputs untouched. */
int attach_parse_step (const char *s, uint32_t *job, uint32_t *step);

/* Does step id 'step' have I/O to attach to? Not the batch and extern
 * steps (their output goes to files; extern has no task). */
bool attach_step_has_io (uint32_t step);

/* A --*-filter value: a task rank, "0" to "2147483646". -1 with errno
 * EINVAL otherwise. */
int attach_parse_rank (const char *s, int32_t *rank);

/* What is shown: one task's stdout and/or stderr, or all (ATTACH_ALL). */
struct attach_filter {
    int32_t out; /* --output-filter */
    int32_t err; /* --error-filter */
};

/* Is output of 'task' on 'stream' (1 stdout, 2 stderr) shown? */
bool attach_shows (const struct attach_filter *f, uint32_t task, int stream);

/* One node of the step: its name and the ranks it runs (borrowed). */
struct attach_node {
    const char *name;
    const uint32_t *ranks;
    uint32_t nranks;
};

/* Print the layout of step job.step, 'ntasks' tasks over 'nodes' (in the
 * step's node order) named 'nodelist':
 *     Job step 5.0 layout:
 *       3 tasks, 2 nodes (node[1-2])
 *
 *       Node 0 (node1), 2 tasks: 0 1
 *       Node 1 (node2), 1 task: 2
 * Returns 0, or -1 with errno when writing fails. */
int attach_layout_print (FILE *f, uint32_t job, uint32_t step,
                         const char *nodelist, uint32_t ntasks,
                         const struct attach_node *nodes, size_t nnodes);

#endif
