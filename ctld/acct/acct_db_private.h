/* acct_db_private.h - what the accounting database's two halves share:
 * acct_db.c (opening, the queue, the thread, writes), acct_db_read.c
 * (answering queries, on the thread) and acct_db_assoc.c (the site
 * policy's records): one module in three files.
 */
#ifndef ARBOR_CTLD_ACCT_DB_PRIVATE_H
#define ARBOR_CTLD_ACCT_DB_PRIVATE_H

#include <pthread.h>
#include <sqlite3.h>

#include "acct/acct_db.h"

enum put_table { PUT_JOB, PUT_STEP, PUT_USAGE, PUT_QUERY, PUT_ASSOC };

/* The site policy's table (acct_db_assoc.c), in the schema's SQL. */
#define ACCT_DB_ASSOC_TABLE                                            \
    "CREATE TABLE assoc (key TEXT NOT NULL PRIMARY KEY, rec BLOB NOT " \
    "NULL) WITHOUT ROWID;"

struct acct_op {
    struct acct_op *next;
    enum put_table table;
    sqlite3_int64 col[6]; /* the key columns, in the table's order */
    char *node;           /* PUT_USAGE; PUT_ASSOC: its key */
    char *rec;
    size_t len;
    struct acct_db_query *q; /* PUT_QUERY */
};

struct acct_db {
    struct ev_loop *loop;
    sqlite3 *db;
    sqlite3_stmt *put[3];
    sqlite3_stmt *get_steps, *get_usage;
    sqlite3_stmt *put_assoc, *del_assoc;
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct acct_op *queue, **queue_tail;
    struct acct_db_query *answered, **answered_tail;
    bool stop;
    unsigned queries_out; /* loop only: the async is referenced */
    ev_async async;
};

/* The policy's statements (at open), and one write (on the thread:
 * rec NULL deletes). */
int acct_db_assoc_prepare (struct acct_db *db, arbor_error_t *err);
int acct_db_assoc_write (struct acct_db *db, const struct acct_op *op);

/* On the thread: answer q (its errnum and err say why not). */
void acct_db_answer (struct acct_db *db, struct acct_db_query *q);

#endif
