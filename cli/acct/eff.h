/* eff.h - seff's report on one job: how much of the CPU time and memory
 * it was given it used.
 *
 *   CPU utilized      the user + system time of all its steps
 *   core-walltime     elapsed time x allocated CPUs
 *   memory utilized   the largest MaxRSS of its steps
 *   memory asked      --mem x nodes, or --mem-per-cpu x CPUs
 *
 * Computed from the job run's view (jobview_acct.h: its record, and its
 * accounting record for the state, exit and memory accounted) and its
 * steps' records; printed in seff's words. Pure functions.
 */
#ifndef ARBOR_CLI_EFF_H
#define ARBOR_CLI_EFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "jobview.h"
#include "proto.h"

struct eff_report {
    const struct job_view *job; /* borrowed, with job->acct */
    uint32_t ncpus, nnodes;     /* at least 1 */
    uint64_t cpu_used_s;        /* rounded to the second */
    uint64_t walltime_s;
    uint64_t mem_used_kb;
    uint64_t mem_asked_kb; /* for the whole job; 0: none asked */
    bool mem_per_cpu;
};

/* The report on run 'job' with its 'nsteps' steps, at time 'now' (for a
 * job still running). */
void eff_compute (const struct job_view *job, const struct msg_acct_step *steps,
                  size_t nsteps, time_t now, struct eff_report *r);

/* Percentages; 0 when there is nothing to divide by. */
double eff_cpu_percent (const struct eff_report *r);
double eff_mem_percent (const struct eff_report *r);

/* seff's sizes: "1.50 GB", "0.00 MB" for nothing. Returns buf. */
const char *eff_kbytes_text (double kb, char *buf, size_t len);

/* The report as seff prints it; 'group' is the job's group name. */
void eff_print (FILE *f, const struct eff_report *r, const char *group);

#endif
