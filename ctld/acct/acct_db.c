/* acct_db.c - the accounting database and its thread. See acct_db.h.
 *
 * The loop and the thread share the queue of operations (writes and
 * queries, in order), the list of answered queries and the stop flag,
 * under db->lock. The thread takes the whole queue, runs it in one
 * transaction and hands the queries back through an ev_async, which is
 * referenced only while queries are out so that an idle database does
 * not keep ev_run() from returning.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "acct/acct_db.h"
#include "acct/acct_db_private.h"
#include "state/dbutil.h"
#include "log.h"

#define ACCT_DB_SCHEMA 2 /* 2: the site policy's table, assoc (2.14) */

static const char *const put_sql[3] = {
    "INSERT OR REPLACE INTO jobs (job_id, run, array_job_id, uid, submit, "
    "end_time, rec) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    "INSERT OR REPLACE INTO steps (job_id, run, step_id, rec) "
    "VALUES (?1, ?2, ?3, ?4)",
    "INSERT OR IGNORE INTO usage (job_id, run, step_id, node, rec) "
    "VALUES (?1, ?2, ?3, ?4, ?5)",
};
static const int put_ncols[3] = { 6, 3, 3 };

/* ---- opening ------------------------------------------------------------ */

static int acct_db_schema (sqlite3 *db, arbor_error_t *err)
{
    long version = db_pragma (db, "PRAGMA user_version");
    long tables = db_pragma (db, "SELECT count(*) FROM sqlite_master");

    if (version < 0 || tables < 0)
        return errprintf (err, "%s", sqlite3_errmsg (db));
    if (version == 0 && tables == 0)
        return db_exec (
            db,
            "CREATE TABLE jobs (job_id INTEGER NOT NULL, run INTEGER NOT "
            "NULL, array_job_id INTEGER NOT NULL, uid INTEGER NOT NULL, "
            "submit INTEGER NOT NULL, end_time INTEGER NOT NULL, rec BLOB NOT "
            "NULL, PRIMARY KEY (job_id, run)) WITHOUT ROWID;"
            "CREATE INDEX jobs_array ON jobs (array_job_id);"
            "CREATE INDEX jobs_end ON jobs (end_time);"
            "CREATE TABLE steps (job_id INTEGER NOT NULL, run INTEGER NOT "
            "NULL, step_id INTEGER NOT NULL, rec BLOB NOT NULL, PRIMARY KEY "
            "(job_id, run, step_id)) WITHOUT ROWID;"
            "CREATE TABLE usage (job_id INTEGER NOT NULL, run INTEGER NOT "
            "NULL, step_id INTEGER NOT NULL, node TEXT NOT NULL, rec BLOB NOT "
            "NULL, PRIMARY KEY (job_id, run, step_id, node)) WITHOUT ROWID;" ACCT_DB_ASSOC_TABLE
            "PRAGMA user_version = 2;",
            err);
    if (version == 1) /* before the site's policy: its table is added */
        return db_exec (db, ACCT_DB_ASSOC_TABLE "PRAGMA user_version = 2;",
                        err);
    if (version != ACCT_DB_SCHEMA)
        return errprintf (err,
                          "not an Arbor accounting database (schema "
                          "version %ld, expected %d)",
                          version, ACCT_DB_SCHEMA);
    return 0;
}

static int acct_db_prepare (struct acct_db *db, arbor_error_t *err)
{
    for (int i = 0; i < 3; i++)
        if (sqlite3_prepare_v2 (db->db, put_sql[i], -1, &db->put[i], NULL)
            != SQLITE_OK)
            return errprintf (err, "%s", sqlite3_errmsg (db->db));
    if (sqlite3_prepare_v2 (db->db,
                            "SELECT rec FROM steps WHERE job_id = ?1 AND "
                            "run = ?2 ORDER BY step_id",
                            -1, &db->get_steps, NULL)
            != SQLITE_OK
        || sqlite3_prepare_v2 (db->db,
                               "SELECT step_id, rec FROM usage WHERE job_id "
                               "= ?1 AND run = ?2 ORDER BY step_id, node",
                               -1, &db->get_usage, NULL)
               != SQLITE_OK)
        return errprintf (err, "%s", sqlite3_errmsg (db->db));
    return acct_db_assoc_prepare (db, err);
}

static void *acct_db_thread (void *arg);
static void acct_db_async_cb (struct ev_loop *loop, ev_async *w, int revents);

struct acct_db *acct_db_open (struct ev_loop *loop, const char *path,
                              arbor_error_t *err)
{
    struct acct_db *db = calloc (1, sizeof (*db));
    arbor_error_t why = { "" };

    if (!db) {
        errprintf (err, "out of memory");
        return NULL;
    }
    db->loop = loop;
    db->queue_tail = &db->queue;
    db->answered_tail = &db->answered;
    pthread_mutex_init (&db->lock, NULL);
    pthread_cond_init (&db->wake, NULL);
    ev_async_init (&db->async, acct_db_async_cb);
    db->async.data = db;
    if (!(db->db = db_open (path, "NORMAL", &why))
        || acct_db_schema (db->db, &why) < 0
        || acct_db_prepare (db, &why) < 0) {
        errprintf (err, "accounting database %s: %s", path, why.text);
        acct_db_close (db);
        return NULL;
    }
    if (pthread_create (&db->thread, NULL, acct_db_thread, db) != 0) {
        errprintf (err, "accounting database: cannot start its thread");
        acct_db_close (db);
        return NULL;
    }
    db->thread_started = true;
    ev_async_start (loop, &db->async);
    ev_unref (loop);
    return db;
}

/* ---- queueing (on the loop) ------------------------------------------- */

static int acct_db_queue (struct acct_db *db, struct acct_op *op)
{
    pthread_mutex_lock (&db->lock);
    *db->queue_tail = op;
    db->queue_tail = &op->next;
    pthread_cond_signal (&db->wake);
    pthread_mutex_unlock (&db->lock);
    return 0;
}

static int acct_db_put (struct acct_db *db, enum put_table table,
                        const sqlite3_int64 *col, const char *node, char *rec,
                        size_t len)
{
    struct acct_op *op = calloc (1, sizeof (*op));

    if (!op || (node && !(op->node = strdup (node)))) {
        free (op);
        free (rec);
        errno = ENOMEM;
        return -1;
    }
    op->table = table;
    memcpy (op->col, col, sizeof (op->col[0]) * (size_t)put_ncols[table]);
    op->rec = rec;
    op->len = len;
    return acct_db_queue (db, op);
}

int acct_db_put_job (struct acct_db *db, const struct msg_acct_job *key,
                     char *rec, size_t len)
{
    sqlite3_int64 col[6] = { key->job_id,
                             key->run,
                             key->array_job_id,
                             key->uid,
                             (sqlite3_int64)key->submit_time,
                             (sqlite3_int64)key->end_time };

    return acct_db_put (db, PUT_JOB, col, NULL, rec, len);
}

int acct_db_put_step (struct acct_db *db, uint32_t job_id, uint32_t run,
                      uint32_t step_id, char *rec, size_t len)
{
    sqlite3_int64 col[3] = { job_id, run, step_id };

    return acct_db_put (db, PUT_STEP, col, NULL, rec, len);
}

int acct_db_put_usage (struct acct_db *db, uint32_t job_id, uint32_t run,
                       uint32_t step_id, const char *node, char *rec,
                       size_t len)
{
    sqlite3_int64 col[3] = { job_id, run, step_id };

    return acct_db_put (db, PUT_USAGE, col, node ? node : "", rec, len);
}

int acct_db_put_assoc (struct acct_db *db, const char *key, char *rec,
                       size_t len)
{
    struct acct_op *op = calloc (1, sizeof (*op));

    if (!op || !(op->node = strdup (key))) {
        free (op);
        free (rec);
        errno = ENOMEM;
        return -1;
    }
    op->table = PUT_ASSOC;
    op->rec = rec;
    op->len = len;
    return acct_db_queue (db, op);
}

int acct_db_query (struct acct_db *db, struct acct_db_query *q,
                   void (*cb) (struct acct_db_query *q, void *arg), void *arg)
{
    struct acct_op *op = calloc (1, sizeof (*op));

    if (!op)
        return -1;
    op->table = PUT_QUERY;
    op->q = q;
    q->cb = cb;
    q->arg = arg;
    if (db->queries_out++ == 0)
        ev_ref (db->loop);
    return acct_db_queue (db, op);
}

/* ---- the thread: writes --------------------------------------------------
 */

static int acct_db_write (struct acct_db *db, const struct acct_op *op)
{
    if (op->table == PUT_ASSOC)
        return acct_db_assoc_write (db, op);
    sqlite3_stmt *st = db->put[op->table];
    int n = put_ncols[op->table];

    for (int i = 0; i < n; i++)
        sqlite3_bind_int64 (st, i + 1, op->col[i]);
    if (op->table == PUT_USAGE)
        sqlite3_bind_text (st, ++n, op->node, -1, SQLITE_STATIC);
    sqlite3_bind_blob (st, n + 1, op->rec ? op->rec : "", (int)op->len,
                       SQLITE_STATIC);
    int rc = sqlite3_step (st);
    sqlite3_reset (st);
    sqlite3_clear_bindings (st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* ---- the thread ------------------------------------------------------------
 */

/* Run a batch in one transaction; answered queries go to db->answered. */
static void acct_db_run (struct acct_db *db, struct acct_op *batch)
{
    int rc = sqlite3_exec (db->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    struct acct_db_query *answered = NULL, **tail = &answered;

    for (struct acct_op *op = batch; op; op = op->next) {
        if (op->table == PUT_QUERY) {
            acct_db_answer (db, op->q);
            *tail = op->q;
            tail = &op->q->next;
        } else if (rc == SQLITE_OK
                   && (rc = acct_db_write (db, op)) != SQLITE_OK)
            log_err ("accounting database: write: %s", sqlite3_errmsg (db->db));
    }
    if (sqlite3_exec (db->db, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", NULL,
                      NULL, NULL)
        != SQLITE_OK)
        log_err ("accounting database: commit: %s", sqlite3_errmsg (db->db));
    while (batch) {
        struct acct_op *op = batch;
        batch = op->next;
        free (op->node);
        free (op->rec);
        free (op);
    }
    if (!answered)
        return;
    pthread_mutex_lock (&db->lock);
    *db->answered_tail = answered;
    db->answered_tail = tail;
    pthread_mutex_unlock (&db->lock);
    ev_async_send (db->loop, &db->async);
}

static void *acct_db_thread (void *arg)
{
    struct acct_db *db = arg;

    pthread_mutex_lock (&db->lock);
    for (;;) {
        while (!db->queue && !db->stop)
            pthread_cond_wait (&db->wake, &db->lock);
        if (!db->queue && db->stop)
            break;
        struct acct_op *batch = db->queue;
        db->queue = NULL;
        db->queue_tail = &db->queue;
        pthread_mutex_unlock (&db->lock);
        acct_db_run (db, batch);
        pthread_mutex_lock (&db->lock);
    }
    pthread_mutex_unlock (&db->lock);
    return NULL;
}

/* On the loop: the answered queries' callbacks, in order. */
static void acct_db_async_cb (struct ev_loop *loop, ev_async *w, int revents)
{
    struct acct_db *db = w->data;
    struct acct_db_query *q;

    pthread_mutex_lock (&db->lock);
    q = db->answered;
    db->answered = NULL;
    db->answered_tail = &db->answered;
    pthread_mutex_unlock (&db->lock);
    while (q) {
        struct acct_db_query *next = q->next;
        if (--db->queries_out == 0)
            ev_unref (loop);
        q->cb (q, q->arg);
        q = next;
    }
}

void acct_db_close (struct acct_db *db)
{
    if (!db)
        return;
    if (db->thread_started) {
        pthread_mutex_lock (&db->lock);
        db->stop = true;
        pthread_cond_signal (&db->wake);
        pthread_mutex_unlock (&db->lock);
        pthread_join (db->thread, NULL);
        ev_ref (db->loop);
        ev_async_stop (db->loop, &db->async);
        acct_db_async_cb (db->loop, &db->async, 0);
    }
    for (int i = 0; i < 3; i++)
        sqlite3_finalize (db->put[i]);
    sqlite3_finalize (db->get_steps);
    sqlite3_finalize (db->get_usage);
    sqlite3_finalize (db->put_assoc);
    sqlite3_finalize (db->del_assoc);
    sqlite3_close (db->db);
    pthread_mutex_destroy (&db->lock);
    pthread_cond_destroy (&db->wake);
    free (db);
}
