/* term.h - the end of jobs and steps on this node.
 *
 * JOB_TERMINATE runs, per job, a chain of phases on the loop:
 *     KILLING    the job is revoked (late launches refused) and every stepd
 *                of it gets STEPD_TERMINATE; wait for every answer (RC 0:
 *                container empty; ETIME or silence past KillWait +
 *                UnkillableStepTimeout + 10 s: drain "Kill task failed")
 *     EPILOG     Epilog, if configured (epilog.c): a non-zero status drains
 *                with "Epilog error", a timeout with "Epilog timed out"
 *     NOTIFYING  EPILOG_COMPLETE {job, node, rc, drain_reason} to the ctld,
 *                a new attempt every 5 s until it answers RC 0
 *     DONE       remembered for 10 minutes: a repeated JOB_TERMINATE then
 *                sends EPILOG_COMPLETE again (one in progress is ignored)
 * STEP_TERMINATE revokes one step and sends STEPD_TERMINATE to its stepd,
 * with no Epilog and no EPILOG_COMPLETE. Both are answered RC 0 at once.
 */
#ifndef ARBOR_NODED_TERM_H
#define ARBOR_NODED_TERM_H

#include <stdint.h>

#include "conn.h"
#include "proto.h"

struct noded;
struct term;

#define TERM_RESEND 5.0      /* seconds between EPILOG_COMPLETE attempts */
#define TERM_DONE_KEEP 600.0 /* seconds a finished job is remembered */
#define TERM_DONE_MAX 1024   /* finished jobs remembered at most */
#define TERM_SAFETY 10.0     /* seconds added to the stepds' own limits */
#define TERM_KILL_FAILED "Kill task failed"

enum term_phase {
    TERM_UNKNOWN, /* no termination of that job here */
    TERM_KILLING,
    TERM_EPILOG,
    TERM_NOTIFYING,
    TERM_DONE,
};

/* JOB_TERMINATE received on 'c' (its fields are taken over: set to NULL). */
void term_job_handle (struct noded *nd, struct conn *c, const struct frame *f,
                      struct msg_job_terminate *m);

/* STEP_TERMINATE received on 'c'. */
void term_step_handle (struct noded *nd, struct conn *c, const struct frame *f,
                       const struct msg_step_terminate *m);

/* Where the termination of 'job' stands (tests, logs). */
enum term_phase term_job_phase (const struct noded *nd, uint32_t job);

/* How long a stepd may take to answer STEPD_TERMINATE: KillWait +
 * UnkillableStepTimeout + TERM_SAFETY seconds. */
double term_stepd_timeout (const struct noded *nd);

/* Forget every termination (daemon shutdown): a running Epilog is killed,
 * nothing more is sent. */
void term_destroy_all (struct noded *nd);

#endif
