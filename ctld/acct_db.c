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

#include "acct_db.h"
#include "acct_usage.h"
#include "dbutil.h"
#include "log.h"
#include "states.h"

#define ACCT_DB_SCHEMA 1

enum put_table { PUT_JOB, PUT_STEP, PUT_USAGE, PUT_QUERY };

struct acct_op {
    struct acct_op *next;
    enum put_table table;
    sqlite3_int64 col[6]; /* the key columns, in the table's order */
    char *node;           /* PUT_USAGE */
    char *rec;
    size_t len;
    struct acct_db_query *q; /* PUT_QUERY */
};

struct acct_db {
    struct ev_loop *loop;
    sqlite3 *db;
    sqlite3_stmt *put[3];
    sqlite3_stmt *get_steps, *get_usage;
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
            "NULL, PRIMARY KEY (job_id, run, step_id, node)) WITHOUT ROWID;"
            "PRAGMA user_version = 1;",
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
    return 0;
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
        || acct_db_schema (db->db, &why) < 0 || acct_db_prepare (db, &why) < 0) {
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

struct acct_db_query *acct_db_query_new (void)
{
    return calloc (1, sizeof (struct acct_db_query));
}

static void bins_free (struct proto_bin *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free (v[i].data);
    free (v);
}

void acct_db_query_free (struct acct_db_query *q)
{
    if (!q)
        return;
    free (q->job_ids);
    free (q->uids);
    free (q->extra);
    free (q->found);
    bins_free (q->jobs, q->njobs);
    bins_free (q->steps_found, q->nsteps);
    free (q);
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

/* ---- the thread: queries -------------------------------------------------
 */

/* Append a copy of (p, n) to the list *v of *count. -1 on ENOMEM. */
static int bins_add (struct proto_bin **v, size_t *count, const void *p,
                     size_t n)
{
    struct proto_bin *nv;

    if ((*count & (*count - 1)) == 0) { /* 0, 1, 2, 4...: grow */
        if (!(nv = realloc (*v, (*count ? 2 * *count : 1) * sizeof (**v))))
            return -1;
        *v = nv;
    }
    if (!((*v)[*count].data = malloc (n + 1)))
        return -1;
    memcpy ((*v)[*count].data, p, n);
    (*v)[*count].len = (uint32_t)n;
    (*count)++;
    return 0;
}

/* " AND col IN (1,2,3)" for a list, "" for none. NULL on ENOMEM. */
static char *sql_in (const char *col, const uint32_t *v, size_t n,
                     const char *col2)
{
    char *s = NULL;
    size_t size = 0;
    FILE *f = open_memstream (&s, &size);

    if (!f)
        return NULL;
    for (int c = 0; n && c < (col2 ? 2 : 1); c++) {
        fprintf (f, "%s%s IN (", c ? " OR " : " AND (", c ? col2 : col);
        for (size_t i = 0; i < n; i++)
            fprintf (f, "%s%u", i ? "," : "", v[i]);
        fputs (")", f);
    }
    if (n)
        fputs (")", f);
    if (fclose (f) != 0) {
        free (s);
        return NULL;
    }
    return s;
}

static char *query_sql (const struct acct_db_query *q)
{
    char *ids = sql_in ("job_id", q->job_ids, q->njob_ids, "array_job_id");
    char *uids = sql_in ("uid", q->uids, q->nuids, NULL);
    char *sql = NULL;

    if (ids && uids
        && asprintf (&sql,
                     "SELECT job_id, run, rec FROM jobs WHERE end_time >= ?1 "
                     "AND submit <= ?2%s%s ORDER BY job_id, run",
                     ids, uids)
               < 0)
        sql = NULL;
    free (ids);
    free (uids);
    return sql;
}

/* The usage rows of (job, run), decoded, step ids ascending. */
struct usage_rows {
    uint32_t *step_ids;
    struct msg_step_complete *m;
    size_t n;
};

static void usage_rows_free (struct usage_rows *u)
{
    for (size_t i = 0; i < u->n; i++)
        proto_clear (MSG_STEP_COMPLETE, &u->m[i]);
    free (u->m);
    free (u->step_ids);
    memset (u, 0, sizeof (*u));
}

static int usage_rows_read (struct acct_db *db, uint32_t job, uint32_t run,
                            struct usage_rows *u)
{
    sqlite3_stmt *st = db->get_usage;
    arbor_error_t err;
    int rc;

    sqlite3_bind_int64 (st, 1, job);
    sqlite3_bind_int64 (st, 2, run);
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        size_t k = u->n;
        void *a = realloc (u->m, (k + 1) * sizeof (*u->m));
        if (a)
            u->m = a;
        void *b = a ? realloc (u->step_ids, (k + 1) * sizeof (uint32_t)) : NULL;
        if (!b) {
            rc = SQLITE_NOMEM;
            break;
        }
        u->step_ids = b;
        u->step_ids[k] = (uint32_t)sqlite3_column_int64 (st, 0);
        if (proto_decode (MSG_STEP_COMPLETE, sqlite3_column_blob (st, 1),
                          (size_t)sqlite3_column_bytes (st, 1), &u->m[k], &err)
            < 0) {
            log_warn ("accounting: usage of %u (run %u): %s", job, run,
                      err.text);
            continue;
        }
        u->n++;
    }
    sqlite3_reset (st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Step record 'rec' of the database with its nodes' usage, encoded
 * into the answer. */
static int step_answer (struct acct_db_query *q, const void *rec, size_t len,
                        const struct usage_rows *u)
{
    struct msg_acct_step s;
    arbor_error_t err;
    size_t first = 0, n = 0;
    char *buf;
    size_t blen;

    if (proto_decode (MSG_ACCT_STEP, rec, len, &s, &err) < 0) {
        log_warn ("accounting: a step record: %s", err.text);
        return 0;
    }
    while (first < u->n && u->step_ids[first] < s.step_id)
        first++;
    while (first + n < u->n && u->step_ids[first + n] == s.step_id)
        n++;
    int rc = acct_step_add_usage (&s, u->m + first, n);
    if (rc == 0 && (rc = proto_encode (MSG_ACCT_STEP, &s, &buf, &blen)) == 0) {
        rc = bins_add (&q->steps_found, &q->nsteps, buf, blen);
        free (buf);
    }
    proto_clear (MSG_ACCT_STEP, &s);
    return rc;
}

static int steps_read (struct acct_db *db, struct acct_db_query *q,
                       uint32_t job, uint32_t run)
{
    struct usage_rows u = { 0 };
    sqlite3_stmt *st = db->get_steps;
    int rc = SQLITE_DONE;

    if (usage_rows_read (db, job, run, &u) < 0) {
        usage_rows_free (&u);
        return -1;
    }
    sqlite3_bind_int64 (st, 1, job);
    sqlite3_bind_int64 (st, 2, run);
    while ((rc = sqlite3_step (st)) == SQLITE_ROW)
        if (step_answer (q, sqlite3_column_blob (st, 0),
                         (size_t)sqlite3_column_bytes (st, 0), &u)
            < 0) {
            rc = SQLITE_NOMEM;
            break;
        }
    sqlite3_reset (st);
    usage_rows_free (&u);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Append row (job, run, rec) to the answer. -1 on ENOMEM. */
static int job_add (struct acct_db_query *q, struct acct_run r,
                    const void *rec, size_t len)
{
    struct acct_run *more;

    if (bins_add (&q->jobs, &q->njobs, rec, len) < 0)
        return -1;
    if (!(more = realloc (q->found, q->njobs * sizeof (*more)))) {
        free (q->jobs[--q->njobs].data);
        return -1;
    }
    q->found = more;
    q->found[q->njobs - 1] = r;
    return 0;
}

/* The job rows of the query; only each job's last run unless asked. */
static int jobs_read (struct acct_db *db, struct acct_db_query *q)
{
    char *sql = query_sql (q);
    sqlite3_stmt *st = NULL;
    int rc;

    if (!sql || sqlite3_prepare_v2 (db->db, sql, -1, &st, NULL) != SQLITE_OK) {
        free (sql);
        return -1;
    }
    free (sql);
    sqlite3_bind_int64 (st, 1, (sqlite3_int64)q->start);
    sqlite3_bind_int64 (st, 2, (sqlite3_int64)(q->end ? q->end : INT64_MAX));
    rc = sqlite3_step (st);
    while (rc == SQLITE_ROW) {
        struct acct_run r = { (uint32_t)sqlite3_column_int64 (st, 0),
                              (uint32_t)sqlite3_column_int64 (st, 1) };
        if (q->njobs == ACCT_DB_MAX_JOBS) {
            q->errnum = E2BIG;
            break;
        }
        if (job_add (q, r, sqlite3_column_blob (st, 2),
                     (size_t)sqlite3_column_bytes (st, 2))
            < 0) {
            rc = SQLITE_NOMEM;
            break;
        }
        rc = sqlite3_step (st);
        if (!q->duplicates && rc == SQLITE_ROW
            && (uint32_t)sqlite3_column_int64 (st, 0) == r.job_id)
            free (q->jobs[--q->njobs].data); /* a later run follows */
    }
    sqlite3_finalize (st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

/* Is encoded job record 'b' in one of the states of 'mask'? */
static bool job_state_wanted (const struct proto_bin *b, uint32_t mask)
{
    struct msg_acct_job r;
    arbor_error_t err;
    int state;

    if (proto_decode (MSG_ACCT_JOB, b->data, b->len, &r, &err) < 0)
        return false;
    state = job_state_parse (r.state ? r.state : "", false);
    proto_clear (MSG_ACCT_JOB, &r);
    return state >= 0 && (mask & (1u << state));
}

/* -s: keep the runs in the states asked (after the last-run choice, as
 * sacct filters what it shows). */
static void jobs_filter_states (struct acct_db_query *q)
{
    size_t kept = 0;

    for (size_t i = 0; i < q->njobs; i++) {
        if (!job_state_wanted (&q->jobs[i], q->state_mask)) {
            free (q->jobs[i].data);
            continue;
        }
        q->jobs[kept] = q->jobs[i];
        q->found[kept++] = q->found[i];
    }
    q->njobs = kept;
}

static void acct_db_answer (struct acct_db *db, struct acct_db_query *q)
{
    int rc = jobs_read (db, q);

    if (q->errnum)
        rc = -1; /* E2BIG: no answer */
    if (rc == 0 && q->state_mask)
        jobs_filter_states (q);
    for (size_t i = 0; rc == 0 && q->steps && i < q->njobs; i++)
        rc = steps_read (db, q, q->found[i].job_id, q->found[i].run);
    for (size_t i = 0; rc == 0 && q->steps && i < q->nextra; i++)
        rc = steps_read (db, q, q->extra[i].job_id, q->extra[i].run);
    if (q->errnum == E2BIG)
        snprintf (q->err, sizeof (q->err),
                  "more than %d jobs match: narrow the query (-S, -E, -u, "
                  "-j, -s)",
                  ACCT_DB_MAX_JOBS);
    else if (rc < 0 && !q->errnum) {
        q->errnum = EIO;
        snprintf (q->err, sizeof (q->err), "accounting database: %s",
                  sqlite3_errmsg (db->db));
    }
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
        } else if (rc == SQLITE_OK && (rc = acct_db_write (db, op)) != SQLITE_OK)
            log_err ("accounting database: write: %s",
                     sqlite3_errmsg (db->db));
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
    sqlite3_close (db->db);
    pthread_mutex_destroy (&db->lock);
    pthread_cond_destroy (&db->wake);
    free (db);
}
