/* acct_private.h - what acct.c (writing) gives acct_serve.c (queries):
 * the accounting state and how records are filled. (What acct.c asks of
 * acct_serve.c is acct_serve.h's.)
 */
#ifndef ARBOR_CTLD_ACCT_PRIVATE_H
#define ARBOR_CTLD_ACCT_PRIVATE_H

#include <time.h>

#include "proto.h"

struct ctld;
struct job;
struct step;
/* A query the database is answering, and who asked. */
struct acct_ask {
    struct acct_ask *next;
    struct ctld *ctx;
    struct conn *c; /* NULL once it closed */
    uint32_t tag;
};

struct acct {
    struct acct_db *db;    /* NULL: AccountingStorageType=none */
    struct acct_ask *asks; /* queries the database is answering */
};

/* j's record as the controller has it, in 'state'. Strings are
 * borrowed from j, ctx and 'state'; no events. */
void acct_job_fill (const struct ctld *ctx, const struct job *j,
                    const char *state, struct msg_acct_job *r);
/* ... with j's events (the lists are allocated, their texts borrowed;
 * acct_job_events_free). -1 with errno ENOMEM. */
int acct_job_events (const struct job *j, struct msg_acct_job *r);
void acct_job_events_free (struct msg_acct_job *r);
/* Step s of j's record, ended at 'end' (0: running). Borrowed strings. */
void acct_step_fill (const struct job *j, const struct step *s,
                     const char *state, time_t end, struct msg_acct_step *r);

#endif
