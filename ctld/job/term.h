/* term.h - the termination sequence, controller side, and time limits.
 */
#ifndef ARBOR_CTLD_TERM_H
#define ARBOR_CTLD_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "error.h"
#include "proto.h"
#include "states.h"

/* job_end and job_note_exit, which this header used to list */
#include "job/jobstate.h"

struct ctld;
struct job;
struct nodecomm_req;

#define CTLD_TERM_RESEND 5 /* s between JOB_TERMINATE attempts */
#define CTLD_TERM_REPEAT                    \
    30 /* s after an answered JOB_TERMINATE \
          before asking again (noded restart) */

/* Termination's bookkeeping for one node of a running job. Only term.c
 * reads and writes it; job.c makes room for it (job->term, one per job
 * node) when the job starts, so that ending a job never fails for want
 * of memory. */
struct term_node {
    bool acked;               /* the noded answered JOB_TERMINATE with 0 */
    bool inflight;            /* a JOB_TERMINATE awaits its answer */
    bool logged;              /* a failure to terminate was logged at info */
    time_t sent;              /* last JOB_TERMINATE sent (or answered) */
    struct nodecomm_req *req; /* the JOB_TERMINATE out (nodecomm.h),
                                 retried until answered; NULL none */
};

/* The reactions of a running job's end (jobstate.c, which set its end
 * state and completing flag): its nodes are COMPLETING and keep its cores
 * and memory until their EPILOG_COMPLETE, and each gets JOB_TERMINATE
 * (tried again every CTLD_TERM_RESEND s until answered). A node not responding
 * counts as done at once. */
void term_begin (struct ctld *ctx, struct job *j);
/* Requeue job j (requeue_pending) once it is done completing and its
 * old batch step has reported, or could not any more; else later, from
 * term_tick. */
void term_requeue_check (struct ctld *ctx, struct job *j, time_t now);
/* Drain node index 'node' (not a DOWN one) because of job 'job', with
 * reason 'why'. */
void term_drain (struct ctld *ctx, size_t node, const char *why, uint32_t job);
/* A noded answered JOB_TERMINATE for 'job_id' (errnum 0: under way). */
void term_answer (struct ctld *ctx, uint32_t job_id, size_t node, int errnum,
                  const char *text);
/* EPILOG_COMPLETE from a noded. 0 (also for repeats and unknown jobs),
 * or -1 with errno ENOENT and err when the node is not the job's. */
int term_epilog_complete (struct ctld *ctx, const struct msg_epilog_complete *m,
                          arbor_error_t *err);
/* Node index 'node' went DOWN ('why' becomes the jobs' reason): its
 * running jobs end NODE_FAIL through job_end (JOB_TERMINATE goes to every
 * node still responding, this one included when it was set DOWN by an
 * administrator and its noded answers: its processes must go too). Its
 * share of completing jobs is given back at once only when it is not
 * responding; otherwise its EPILOG_COMPLETE is awaited as for any node,
 * until it answers or falls silent for CTLD_NODE_TIMEOUT. */
void term_node_down (struct ctld *ctx, size_t node, const char *why);
/* Node 'node' registered: completing jobs there whose JOB_TERMINATE was
 * answered long ago are asked again (a restarted noded forgets). */
void term_node_registered (struct ctld *ctx, size_t node, time_t now);
/* Every second: end jobs past time limit + OverTimeLimit (TIMEOUT), send
 * --signal warnings once, resend unanswered JOB_TERMINATEs. Returns true
 * when something ended. */
bool term_tick (struct ctld *ctx, time_t now);

#endif
