/* acct_query.h - one accounting query (ACCT_QUERY) on its way through the
 * database's thread: what it selects, what was found, the answer's frames
 * (acct_db_read.c makes and frees it; acct_db.c runs it; acct_answer.c
 * encodes its answer).
 */
#ifndef ARBOR_CTLD_ACCT_QUERY_H
#define ARBOR_CTLD_ACCT_QUERY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* A job's run. */
struct acct_run {
    uint32_t job_id, run;
};

/* A query: what to select (filled by the caller, freed with it), the
 * records the controller has in memory, and, once answered, what the
 * database has: encoded ACCT_JOB records by job id then run (only each
 * job's last run unless 'duplicates'), and the ACCT_STEP records of
 * those and of the memory's runs, their nodes' usage added; and the
 * answer, merged (acct_answer.c): ACCT_REPLY bodies ready to send. */
struct acct_db_query {
    uint32_t *job_ids; /* job or array job ids; NULL: any */
    size_t njob_ids;
    uint32_t *uids; /* NULL: anyone */
    size_t nuids;
    uint64_t start, end; /* ended at or after / submitted at or before */
    bool steps;
    bool duplicates;

    struct proto_bin *mem_jobs; /* from memory: ACCT_JOB records */
    struct acct_run *mem_keys;  /* ... each one's job and run */
    size_t nmem_jobs;
    struct proto_bin *mem_steps; /* ... their running steps */
    size_t nmem_steps;

    uint32_t state_mask; /* 1 << enum job_state of the runs wanted; 0 any */

    struct proto_bin *jobs; /* the answer */
    struct acct_run *found; /* ... each one's job and run */
    size_t njobs;
    struct proto_bin *steps_found;
    size_t nsteps;
    struct proto_bin *frames; /* the answer: ACCT_REPLY bodies */
    size_t nframes;
    int errnum; /* 0, or why there is no answer (E2BIG: too many) */
    char err[160];

    void (*cb) (struct acct_db_query *q, void *arg);
    void *arg;
    struct acct_db_query *next;
};

#define ACCT_ANSWER_MAX (48u << 20) /* bytes one answer may take */

struct acct_db_query *acct_db_query_new (void);
void acct_db_query_free (struct acct_db_query *q);

#endif
