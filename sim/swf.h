/* swf.h - the Standard Workload Format of the Parallel Workloads Archive
 * (one job a line, 18 fields; ';' header lines, MaxProcs/MaxNodes among
 * them): what arbor-sim replays.
 */
#ifndef ARBOR_SIM_SWF_H
#define ARBOR_SIM_SWF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

struct swf_job {
    uint32_t id;
    int64_t submit;   /* s since the trace's start */
    int64_t run;      /* s it ran */
    uint32_t procs;   /* asked for (else allocated) */
    int64_t req_time; /* s asked for (else its run time) */
};

struct swf_trace {
    struct swf_job *jobs; /* in the file's (submission) order */
    size_t njobs;
    uint32_t max_procs; /* MaxProcs, else MaxNodes; 0: not said */
    size_t skipped;     /* lines of jobs that cannot be replayed */
};

/* Read a trace. -1 with err naming the line that is malformed. Jobs with
 * no processors or a negative run time are skipped (counted). */
int swf_read (FILE *f, const char *name, struct swf_trace *t,
              arbor_error_t *err);
void swf_free (struct swf_trace *t);

#endif
