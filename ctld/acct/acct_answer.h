/* acct_answer.h - the ACCT_REPLY frames of a query (acct_answer.c).
 */
#ifndef ARBOR_CTLD_ACCT_ANSWER_H
#define ARBOR_CTLD_ACCT_ANSWER_H

#include "acct/acct_query.h"

/* Merge what the database found with the memory's records and encode
 * the ACCT_REPLY frames (done by the database's thread; called directly
 * when there is no database). -1 with q->errnum and q->err set. */
int acct_answer_frames (struct acct_db_query *q);

#endif
