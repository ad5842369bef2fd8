/* stat_step.h - what sstat says of one running step: its nodes'
 * STEP_STAT_REPLYs (what each task uses now) summed up.
 *
 * For each measure (CPU, resident size, virtual size, page faults, disk
 * reads and writes) the step keeps the total over its tasks and the
 * task that has the most (for CPU: the least, sstat's MinCPU), with its
 * node; averages are totals over the tasks counted. Pure functions,
 * unit tested.
 */
#ifndef ARBOR_CLI_STAT_STEP_H
#define ARBOR_CLI_STAT_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "proto.h"

#define STAT_NODE_MAX 64

/* The task with the extreme value of a measure. */
struct stat_extreme {
    bool set;
    uint64_t value;
    uint32_t task; /* global rank */
    char node[STAT_NODE_MAX];
};

struct stat_measure {
    uint64_t total;
    struct stat_extreme ext; /* the largest; for cpu, the smallest */
};

struct stat_step {
    uint32_t job_id, step_id;
    char *nodelist;  /* ranged, owned */
    uint32_t ntasks; /* tasks counted */
    struct stat_measure cpu_cs, rss_kb, vsize_kb, pages, read_kb, write_kb;
    char *pids; /* "123,124,...", owned; "" none */
};

/* Start s for (job, step) on 'nodelist' (copied). -1 with errno ENOMEM. */
int stat_step_init (struct stat_step *s, uint32_t job, uint32_t step,
                    const char *nodelist);
/* Count one node's reply. -1 with errno ENOMEM. */
int stat_step_add (struct stat_step *s, const struct msg_step_stat_reply *r);
/* The average of measure m over the tasks counted (0 with none). */
uint64_t stat_step_ave (const struct stat_step *s,
                        const struct stat_measure *m);
void stat_step_clear (struct stat_step *s);

#endif
