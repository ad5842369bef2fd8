/* willrun.c - --test-only's question and its answer; see willrun.h. */
#include <stdio.h>
#include <time.h>

#include "willrun.h"

#define WILLRUN_TIMEOUT_MS 30000

int willrun_print (struct client *c, const struct msg_job_alloc *req,
                   const char *prog)
{
    struct msg_job_will_run a = { 0 };
    arbor_error_t err;
    char when[32];
    time_t t;

    if (client_call (c, MSG_JOB_ALLOC, req, MSG_JOB_WILL_RUN, &a,
                     WILLRUN_TIMEOUT_MS, &err)
        < 0) {
        fprintf (stderr, "%s: error: Job submission failed: %s\n", prog,
                 err.text);
        return 1;
    }
    if (a.start_time == 0) {
        fprintf (stderr,
                 "%s: Job %u cannot be placed within the scheduler's "
                 "planning window (bf_window) in partition %s\n",
                 prog, a.job_id, a.partition);
    } else {
        t = (time_t)a.start_time;
        strftime (when, sizeof (when), "%Y-%m-%dT%H:%M:%S", localtime (&t));
        fprintf (stderr,
                 "%s: Job %u to start at %s using %u processors%s%s "
                 "in partition %s\n",
                 prog, a.job_id, when, a.ncpus,
                 a.nodelist && *a.nodelist ? " on nodes " : "",
                 a.nodelist ? a.nodelist : "", a.partition);
    }
    proto_clear (MSG_JOB_WILL_RUN, &a);
    return 0;
}
