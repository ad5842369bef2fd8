/* opt_when.h - the options of sbatch and salloc that say when a job may
 * start: -a/--array (sbatch), -d/--dependency, --kill-on-invalid-dep,
 * -H/--hold, -b/--begin, --requeue/--no-requeue (sbatch).
 *
 * A command appends when_longopts to its option table and WHEN_SHORTOPTS
 * to its letters, hands unknown option values to when_opt_one, and puts
 * the result in its JOB_ALLOC with when_opts_apply. Each value is checked
 * here (common/spec/arrayspec.h, depspec.h, begintime.h) so that a malformed
 * expression is refused before anything is sent.
 */
#ifndef ARBOR_CLI_OPT_WHEN_H
#define ARBOR_CLI_OPT_WHEN_H

#include <getopt.h>
#include <stdbool.h>
#include <time.h>

#include "proto.h"

struct conf;

enum {
    WOPT_ARRAY = 'a',
    WOPT_DEPENDENCY = 'd',
    WOPT_HOLD = 'H',
    WOPT_BEGIN = 'b',
    WOPT_KILL_INVALID = 0x400,
    WOPT_REQUEUE,
    WOPT_NO_REQUEUE,
};

#define WHEN_SHORTOPTS "a:d:Hb:"
#define WHEN_NLONGOPTS 7
extern const struct option when_longopts[WHEN_NLONGOPTS];

struct when_opts {
    char *array;      /* NULL: not an array */
    char *dependency; /* NULL: none */
    bool hold;
    time_t begin;             /* 0: none */
    int requeue;              /* -1: JobRequeue decides */
    int kill_invalid;         /* -1: default (yes) */
    uint32_t max_array_index; /* set by the caller: MaxArraySize - 1 */
};

void when_opts_init (struct when_opts *w);
void when_opts_clear (struct when_opts *w);
/* Handle option 'c' with value 'a'. 1 if it is not one of these, 0 done,
 * -1 with err (the message names the problem) for a bad value. */
int when_opt_one (struct when_opts *w, int c, const char *a,
                  arbor_error_t *err);
/* Fill the request's when fields (borrowing w's strings). */
void when_opts_apply (const struct when_opts *w, const struct conf *conf,
                      struct msg_job_alloc *req);

#endif
