/* depspec.h - job dependency expressions (sbatch/salloc --dependency).
 *
 *     after:5:6        5 and 6 have started (or were cancelled pending)
 *     afterany:5       5 has ended, however
 *     afterok:5_3      task 3 of array job 5 ended COMPLETED
 *     afternotok:5     5 ended otherwise (FAILED, CANCELLED, TIMEOUT...)
 *     singleton        no earlier job of the same name and user is active
 *
 * Terms joined by ',' must all hold; joined by '?', any one (the two
 * separators are not mixed, as in Slurm). An id names a job, or all the
 * tasks of an array job.
 */
#ifndef ARBOR_DEPSPEC_H
#define ARBOR_DEPSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define DEP_ALL_TASKS UINT32_MAX /* the job, or every task of the array */
#define DEP_MAX_TERMS 1024

enum dep_type {
    DEP_AFTER,
    DEP_AFTERANY,
    DEP_AFTEROK,
    DEP_AFTERNOTOK,
    DEP_SINGLETON,
};

struct dep {
    enum dep_type type;
    uint32_t job_id; /* 0 for singleton */
    uint32_t task;   /* array task, or DEP_ALL_TASKS */
};

struct depspec {
    struct dep *deps;
    size_t n;
    bool any; /* '?': one term is enough */
};

/* Parse 's' (non-empty). 0, or -1 with errno EINVAL (err: "invalid
 * --dependency 'afterok:x': ...") or ENOMEM; 'out' untouched on failure. */
int depspec_parse (const char *s, struct depspec *out, arbor_error_t *err);
void depspec_clear (struct depspec *d);
/* "afterok" ... for messages. */
const char *dep_type_name (enum dep_type t);

#endif
