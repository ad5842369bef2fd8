/* job_rec.h - a job as one record (JOB_REC), from the store to the screen.
 *
 * The same record is what the state database keeps of a job
 * (state/persist.c) and what JOB_INFO answers a command with, one per job
 * (serve/info.c): its request, what happened to it, its allocation, and,
 * in an answer, the live fields the controller works out then (its
 * owner's name, the state shown, its priority...). A job attribute is a
 * field of the request or of this record, set here once for both.
 */
#ifndef ARBOR_CTLD_JOB_REC_H
#define ARBOR_CTLD_JOB_REC_H
#include <stdbool.h>
#include <stdint.h>
#include "proto.h"

struct ctld;
struct job;
struct prio_pass;

/* What a record is for: the state database keeps everything (the
 * allocation's per-node lists, the licenses held, the history); an
 * answer leaves those out (JOB_EVENTS, sstat and squeue -s tell them)
 * and adds the live fields (job_rec_live). */
enum job_rec_use {
    JOB_REC_STORE,
    JOB_REC_ANSWER,
};

/* Fill r with j's record for 'use'. The strings and the request are
 * borrowed from j (j must not change until r is released); the rest is
 * allocated. 0, or -1 with errno ENOMEM (r is then released). Release
 * with job_rec_release(). */
int job_rec_fill (const struct ctld *ctx, const struct job *j,
                  enum job_rec_use use, struct msg_job_rec *r);
void job_rec_release (struct msg_job_rec *r);

/* Add the live fields of an answer to r (filled by job_rec_fill): all
 * allocated. 0, or -1 ENOMEM. pp: the priority pass of this answer
 * (sched/prio.h). Released by job_rec_release() too. */
int job_rec_live (const struct ctld *ctx, const struct prio_pass *pp,
                  const struct job *j, struct msg_job_rec *r);

/* j's answer record (JOB_REC_ANSWER with its live fields, priority as
 * of now), encoded into *buf (caller frees), for a record that carries
 * it (ACCT_JOB's 'job'). 0, or -1 ENOMEM. */
int job_rec_encode (const struct ctld *ctx, const struct job *j, char **buf,
                    uint32_t *len);

#endif
