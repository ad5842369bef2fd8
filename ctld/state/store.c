/* store.c - the controller's SQLite state database and its writer thread.
 * See store.h.
 *
 * The loop and the writer share only the queue (writes, then sync
 * markers, in order), the list of finished syncs and the stop flag, under
 * s->lock. The writer takes the whole queue at once, applies its writes
 * in one transaction (BEGIN IMMEDIATE ... COMMIT) and moves its sync
 * markers, with the commit's outcome, to s->done; the ev_async wakes the
 * loop, which calls them back in order. The ev_async is referenced only
 * while syncs are pending, so an idle store does not keep ev_run() from
 * returning.
 *
 * synchronous=FULL: a commit survives a power loss, not only a killed
 * controller; grouping makes its cost one fsync per burst. Writes that
 * nobody waits for are grouped further (STORE_GROUP_MS).
 *
 * A commit that fails (a full disk, an I/O error) loses nothing: its
 * writes go back to the head of the queue, in order, and are tried again
 * every STORE_RETRY_MS with whatever followed them, until a commit
 * succeeds. Its syncs are answered with the failure at once. Meanwhile
 * the store is "unwritable" (store_writable): the controller accepts no
 * change and starts no job (persist.h). The change of state is logged
 * once each way, and told to the loop (store_on_health).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "state/dbutil.h"
#include "log.h"
#include "state/store.h"

#define STORE_SCHEMA 1

/* Writes that no sync waits for are committed at most this long after
 * the first of them was queued, with whatever followed: one launch
 * changes its job's record three or four times within milliseconds, and
 * each commit is an fsync (in a VM also an exit to the hypervisor, the
 * writer's largest cost). A sync (an answer waiting for durability),
 * store_commit_soon (a job's end, a node decision: persist.c) or close
 * commits at once, everything queued before it included. */
#define STORE_GROUP_MS 10

/* While commits fail: how long the writer waits before trying again
 * (a full disk is not freed within milliseconds; the log stays quiet). */
#define STORE_RETRY_MS 1000

enum op_type { OP_PUT, OP_DEL, OP_DEL_PREFIX, OP_SYNC };

struct store_op {
    struct store_op *next;
    enum op_type type;
    char *key;
    int kind;
    uint64_t order;
    void *rec;
    size_t len;
    store_done_f cb; /* OP_SYNC */
    void *arg;
    int errnum; /* OP_SYNC, once committed */
    char err[320];
};

struct store {
    struct ev_loop *loop;
    sqlite3 *db;
    sqlite3_stmt *put, *del, *del_prefix;
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct store_op *queue, **queue_tail; /* loop -> writer */
    struct store_op *done, **done_tail;   /* writer -> loop */
    bool stop;
    bool sync_queued;       /* a sync waits in the queue: commit now */
    unsigned syncs_pending; /* loop only: the async is referenced */
    ev_async async;
    uint64_t commits, writes; /* the writer's; logged once it is joined */
    char dir[4096];           /* StateSaveLocation, for the messages */
    /* Under s->lock: whether the last commit failed, and why. */
    bool failing;
    int fail_errnum;
    char fail_err[320];
    unsigned long failures; /* commits failed in a row */
    bool health_changed;    /* writer -> loop: call health_cb */
    store_health_f health_cb;
    void *health_arg;
};

static void op_free (struct store_op *op)
{
    free (op->key);
    free (op->rec);
    free (op);
}

/* ---- opening ------------------------------------------------------------ */

/* Tables and version: a new file gets them, ours is checked. */
static int store_schema (sqlite3 *db, arbor_error_t *err)
{
    long version = db_pragma (db, "PRAGMA user_version");
    long tables = db_pragma (db, "SELECT count(*) FROM sqlite_master");

    if (version < 0 || tables < 0)
        return errprintf (err, "%s", sqlite3_errmsg (db));
    if (version == 0 && tables == 0) {
        if (db_exec (db,
                     "CREATE TABLE state (key TEXT PRIMARY KEY, "
                     "kind INTEGER NOT NULL, ord INTEGER NOT NULL, "
                     "rec BLOB NOT NULL);"
                     "CREATE INDEX state_order ON state (kind, ord);"
                     "PRAGMA user_version = 1;",
                     err)
            < 0)
            return -1;
        return 0;
    }
    if (version != STORE_SCHEMA)
        return errprintf (err,
                          "not an arbor-ctld state database (schema "
                          "version %ld, expected %d)",
                          version, STORE_SCHEMA);
    return 0;
}

static int store_prepare (struct store *s, arbor_error_t *err)
{
    if (sqlite3_prepare_v2 (s->db,
                            "INSERT OR REPLACE INTO state (key, kind, ord, "
                            "rec) VALUES (?1, ?2, ?3, ?4)",
                            -1, &s->put, NULL)
            != SQLITE_OK
        || sqlite3_prepare_v2 (s->db, "DELETE FROM state WHERE key = ?1", -1,
                               &s->del, NULL)
               != SQLITE_OK
        || sqlite3_prepare_v2 (s->db,
                               "DELETE FROM state WHERE key >= ?1 AND "
                               "key < ?1 || x'ff'",
                               -1, &s->del_prefix, NULL)
               != SQLITE_OK)
        return errprintf (err, "%s", sqlite3_errmsg (s->db));
    return 0;
}

/* -c: the old file (and its WAL) is kept aside, never deleted. */
static int store_set_aside (const char *path, arbor_error_t *err)
{
    static const char *const ext[] = { "", "-wal", "-shm" };

    for (size_t i = 0; i < 3; i++) {
        char from[4200], to[4200];
        snprintf (from, sizeof (from), "%s%s", path, ext[i]);
        snprintf (to, sizeof (to), "%s.cleared%s", path, ext[i]);
        if (rename (from, to) < 0 && errno != ENOENT)
            return errprintf (err, "cannot move %s aside: %s", from,
                              strerror (errno));
    }
    return 0;
}

static int store_open_db (struct store *s, const char *path, bool clear,
                          arbor_error_t *err)
{
    arbor_error_t why = { "" };

    if (clear && store_set_aside (path, err) < 0)
        return -1;
    if (!(s->db = db_open (path, "FULL", &why))
        || store_schema (s->db, &why) < 0 || store_prepare (s, &why) < 0)
        goto fail;
    return 0;
fail:
    errno = EIO;
    return errprintf (err,
                      "state database %s: %s (start with -c to set it "
                      "aside and start with no state)",
                      path, why.text);
}

/* ---- the writer -----------------------------------------------------------
 */

static int store_apply (struct store *s, const struct store_op *op)
{
    sqlite3_stmt *st;

    switch (op->type) {
    case OP_PUT:
        st = s->put;
        sqlite3_bind_text (st, 1, op->key, -1, SQLITE_STATIC);
        sqlite3_bind_int (st, 2, op->kind);
        sqlite3_bind_int64 (st, 3, (sqlite3_int64)op->order);
        sqlite3_bind_blob (st, 4, op->rec ? op->rec : "", (int)op->len,
                           SQLITE_STATIC);
        break;
    case OP_DEL:
        st = s->del;
        sqlite3_bind_text (st, 1, op->key, -1, NULL);
        break;
    case OP_DEL_PREFIX:
        st = s->del_prefix;
        sqlite3_bind_text (st, 1, op->key, -1, SQLITE_STATIC);
        break;
    default: return SQLITE_OK;
    }
    int rc = sqlite3_step (st);
    sqlite3_reset (st);
    sqlite3_clear_bindings (st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Why the transaction failed, as the user is told it: "StateSaveLocation
 * DIR: No space left on device". SQLITE_FULL is ENOSPC whether the WAL
 * or the database ran out of room; otherwise the system's errno, when
 * SQLite kept one. The transaction is rolled back. */
static int store_commit_error (struct store *s, int rc, char *err,
                               size_t errsize)
{
    int sys = sqlite3_system_errno (s->db);
    int e = rc == SQLITE_FULL ? ENOSPC : sys > 0 ? sys : EIO;

    if (e == EIO && sys <= 0)
        snprintf (err, errsize, "StateSaveLocation %.200s: %s", s->dir,
                  sqlite3_errmsg (s->db));
    else
        snprintf (err, errsize, "StateSaveLocation %.200s: %s", s->dir,
                  strerror (e));
    sqlite3_exec (s->db, "ROLLBACK", NULL, NULL, NULL);
    return e;
}

/* One transaction for the batch; 0 or an errno with 'err'. */
static int store_commit_batch (struct store *s, struct store_op *batch,
                               char *err, size_t errsize, uint64_t *writes)
{
    int rc = sqlite3_exec (s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

    *writes = 0;
    for (struct store_op *op = batch; op && rc == SQLITE_OK; op = op->next)
        if (op->type != OP_SYNC) {
            rc = store_apply (s, op);
            (*writes)++;
        }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec (s->db, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        return 0;
    return store_commit_error (s, rc, err, errsize);
}

static void deadline_ms (struct timespec *until, long ms)
{
    clock_gettime (CLOCK_MONOTONIC, until);
    until->tv_sec += ms / 1000;
    until->tv_nsec += (ms % 1000) * 1000000L;
    if (until->tv_nsec >= 1000000000L) {
        until->tv_sec++;
        until->tv_nsec -= 1000000000L;
    }
}

/* With s->lock held and writes queued: give more writes STORE_GROUP_MS
 * to join them, unless a sync or close wants the commit now. While
 * commits fail, wait STORE_RETRY_MS whatever is asked (only close ends
 * the wait): trying again sooner would only fail again. */
static void store_group_wait (struct store *s)
{
    struct timespec until;

    deadline_ms (&until, s->failing ? STORE_RETRY_MS : STORE_GROUP_MS);
    while ((s->failing || !s->sync_queued) && !s->stop)
        if (pthread_cond_timedwait (&s->wake, &s->lock, &until) == ETIMEDOUT)
            break;
}

/* With s->lock held: a commit's outcome changes the store's health. */
static void store_health (struct store *s, int errnum, const char *err)
{
    if (errnum) {
        s->failures++;
        s->fail_errnum = errnum;
        snprintf (s->fail_err, sizeof (s->fail_err), "%s", err);
        if (s->failing)
            return;
        s->failing = true;
        log_err ("state database: cannot write: %s. No job starts and no "
                 "change is accepted until it can; what is not written yet "
                 "is kept and tried again every %d ms",
                 err, STORE_RETRY_MS);
    } else {
        if (!s->failing)
            return;
        log_info ("state database: written again, after %lu failed commits",
                  s->failures);
        s->failing = false;
        s->failures = 0;
    }
    s->health_changed = true;
}

/* With s->lock held: the batch's syncs go to s->done with the outcome;
 * its writes are freed once committed, or go back to the head of the
 * queue to be tried again (none is lost, their order is kept), unless
 * the store is closing. True if a sync is to be called back. */
static bool store_settle (struct store *s, struct store_op *batch, int errnum,
                          const char *err)
{
    struct store_op *retry = NULL, **retry_tail = &retry;
    unsigned long lost = 0;
    bool wake = false;

    while (batch) {
        struct store_op *op = batch;
        batch = op->next;
        op->next = NULL;
        if (op->type == OP_SYNC) {
            op->errnum = errnum;
            snprintf (op->err, sizeof (op->err), "%s", err);
            *s->done_tail = op;
            s->done_tail = &op->next;
            wake = true;
        } else if (errnum && !s->stop) {
            *retry_tail = op;
            retry_tail = &op->next;
        } else {
            lost += errnum != 0;
            op_free (op);
        }
    }
    if (lost)
        log_err ("state database: closing with %lu writes that could not be "
                 "committed: %s",
                 lost, err);
    if (retry) {
        *retry_tail = s->queue;
        if (!s->queue)
            s->queue_tail = retry_tail;
        s->queue = retry;
    }
    return wake;
}

static void *store_writer (void *arg)
{
    struct store *s = arg;

    pthread_mutex_lock (&s->lock);
    for (;;) {
        while (!s->queue && !s->stop)
            pthread_cond_wait (&s->wake, &s->lock);
        if (!s->queue && s->stop)
            break;
        store_group_wait (s);
        struct store_op *batch = s->queue;
        s->queue = NULL;
        s->queue_tail = &s->queue;
        s->sync_queued = false;
        pthread_mutex_unlock (&s->lock);

        char err[320] = "";
        uint64_t writes;
        int errnum = store_commit_batch (s, batch, err, sizeof (err), &writes);
        if (errnum)
            log_debug ("state database: commit of %llu writes failed: %s",
                       (unsigned long long)writes, err);

        pthread_mutex_lock (&s->lock);
        s->commits++;
        if (!errnum)
            s->writes += writes;
        store_health (s, errnum, err);
        if (store_settle (s, batch, errnum, err) || s->health_changed)
            ev_async_send (s->loop, &s->async);
    }
    pthread_mutex_unlock (&s->lock);
    return NULL;
}

/* On the loop: the finished syncs' callbacks, in order. */
static void store_async_cb (struct ev_loop *loop, ev_async *w, int revents)
{
    struct store *s = w->data;
    struct store_op *done;

    pthread_mutex_lock (&s->lock);
    done = s->done;
    s->done = NULL;
    s->done_tail = &s->done;
    bool changed = s->health_changed, writable = !s->failing;
    char why[sizeof (s->fail_err)];
    snprintf (why, sizeof (why), "%s", s->fail_err);
    s->health_changed = false;
    pthread_mutex_unlock (&s->lock);
    if (changed && s->health_cb)
        s->health_cb (writable, writable ? "" : why, s->health_arg);
    while (done) {
        struct store_op *op = done;
        done = op->next;
        if (--s->syncs_pending == 0)
            ev_unref (s->loop);
        op->cb (op->errnum, op->err, op->arg);
        op_free (op);
    }
}

/* ---- the loop's side ------------------------------------------------------
 */

/* The writer is woken by the first write of a group and by a sync; the
 * writes in between only join the queue. */
static int store_queue (struct store *s, struct store_op *op)
{
    pthread_mutex_lock (&s->lock);
    bool first = !s->queue;
    *s->queue_tail = op;
    s->queue_tail = &op->next;
    if (op->type == OP_SYNC)
        s->sync_queued = true;
    if (first || op->type == OP_SYNC)
        pthread_cond_signal (&s->wake);
    pthread_mutex_unlock (&s->lock);
    return 0;
}

static struct store_op *op_new (enum op_type type, const char *key)
{
    struct store_op *op = calloc (1, sizeof (*op));

    if (!op || (key && !(op->key = strdup (key)))) {
        free (op);
        errno = ENOMEM;
        return NULL;
    }
    op->type = type;
    return op;
}

int store_put (struct store *s, const char *key, int kind, uint64_t order,
               const void *rec, size_t len)
{
    struct store_op *op = op_new (OP_PUT, key);

    if (!op)
        return -1;
    if (len && !(op->rec = malloc (len))) {
        op_free (op);
        errno = ENOMEM;
        return -1;
    }
    if (len)
        memcpy (op->rec, rec, len);
    op->kind = kind;
    op->order = order;
    op->len = len;
    return store_queue (s, op);
}

int store_del (struct store *s, const char *key)
{
    struct store_op *op = op_new (OP_DEL, key);

    return op ? store_queue (s, op) : -1;
}

int store_del_prefix (struct store *s, const char *prefix)
{
    struct store_op *op = op_new (OP_DEL_PREFIX, prefix);

    return op ? store_queue (s, op) : -1;
}

void store_commit_soon (struct store *s)
{
    pthread_mutex_lock (&s->lock);
    if (s->queue) {
        s->sync_queued = true; /* the writer's group wait ends */
        pthread_cond_signal (&s->wake);
    }
    pthread_mutex_unlock (&s->lock);
}

int store_writable (struct store *s, char *err, size_t size)
{
    int e = 0;

    pthread_mutex_lock (&s->lock);
    if (s->failing) {
        e = s->fail_errnum;
        if (err && size)
            snprintf (err, size, "%s", s->fail_err);
    }
    pthread_mutex_unlock (&s->lock);
    return e;
}

void store_on_health (struct store *s, store_health_f cb, void *arg)
{
    s->health_cb = cb;
    s->health_arg = arg;
}

int store_sync (struct store *s, store_done_f cb, void *arg)
{
    struct store_op *op = op_new (OP_SYNC, NULL);

    if (!op)
        return -1;
    op->cb = cb;
    op->arg = arg;
    if (s->syncs_pending++ == 0)
        ev_ref (s->loop);
    return store_queue (s, op);
}

int store_load (struct store *s, store_row_f f, void *arg)
{
    sqlite3_stmt *st;
    int rc = 0, step;

    if (sqlite3_prepare_v2 (s->db,
                            "SELECT kind, key, ord, rec FROM state ORDER BY "
                            "kind, ord, key",
                            -1, &st, NULL)
        != SQLITE_OK) {
        errno = EIO;
        return -1;
    }
    while (rc == 0 && (step = sqlite3_step (st)) == SQLITE_ROW)
        rc = f (sqlite3_column_int (st, 0),
                (const char *)sqlite3_column_text (st, 1),
                (uint64_t)sqlite3_column_int64 (st, 2),
                sqlite3_column_blob (st, 3),
                (size_t)sqlite3_column_bytes (st, 3), arg);
    if (rc == 0 && step != SQLITE_DONE) {
        errno = EIO;
        rc = -1;
    }
    sqlite3_finalize (st);
    return rc;
}

int store_dir_private (const char *dir, arbor_error_t *err)
{
    struct stat st;

    if (stat (dir, &st) < 0)
        return errprintf (err, "StateSaveLocation %s: %s", dir,
                          strerror (errno));
    if (!S_ISDIR (st.st_mode)) {
        errno = ENOTDIR;
        return errprintf (err, "StateSaveLocation %s is not a directory", dir);
    }
    if (st.st_uid != geteuid () || (st.st_mode & 077)) {
        /* short: the path may be long, and the fix must fit (160) */
        errno = EPERM;
        if (st.st_uid != geteuid ())
            return errprintf (err,
                              "StateSaveLocation %s is uid %u's; it must "
                              "be ours: chown %u %s",
                              dir, (unsigned)st.st_uid, (unsigned)geteuid (),
                              dir);
        return errprintf (err,
                          "StateSaveLocation %s is open to others (mode "
                          "%04o); it holds their scripts: chmod 700 %s",
                          dir, (unsigned)(st.st_mode & 07777), dir);
    }
    return 0;
}

struct store *store_open (struct ev_loop *loop, const char *dir, bool clear,
                          arbor_error_t *err)
{
    struct store *s = calloc (1, sizeof (*s));
    char path[4096];

    if (!s) {
        errprintf (err, "out of memory");
        return NULL;
    }
    s->loop = loop;
    s->queue_tail = &s->queue;
    s->done_tail = &s->done;
    pthread_mutex_init (&s->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init (&ca);
    pthread_condattr_setclock (&ca, CLOCK_MONOTONIC); /* store_group_wait */
    pthread_cond_init (&s->wake, &ca);
    pthread_condattr_destroy (&ca);
    ev_async_init (&s->async, store_async_cb);
    s->async.data = s;
    snprintf (s->dir, sizeof (s->dir), "%s", dir);
    if (mkdir (dir, 0700) < 0 && errno != EEXIST) {
        errprintf (err, "StateSaveLocation %s: %s", dir, strerror (errno));
        goto fail;
    }
    if (store_dir_private (dir, err) < 0)
        goto fail;
    snprintf (path, sizeof (path), "%s/%s", dir, STORE_FILE);
    if (store_open_db (s, path, clear, err) < 0)
        goto fail;
    if (pthread_create (&s->thread, NULL, store_writer, s) != 0) {
        errprintf (err, "cannot start the state writer thread");
        goto fail;
    }
    s->thread_started = true;
    ev_async_start (loop, &s->async);
    ev_unref (loop); /* idle: see store_sync */
    return s;
fail:
    store_close (s);
    return NULL;
}

void store_close (struct store *s)
{
    if (!s)
        return;
    if (s->thread_started) {
        pthread_mutex_lock (&s->lock);
        s->stop = true;
        pthread_cond_signal (&s->wake);
        pthread_mutex_unlock (&s->lock);
        pthread_join (s->thread, NULL);
        store_async_cb (s->loop, &s->async, 0); /* the last callbacks */
        ev_ref (s->loop);
        ev_async_stop (s->loop, &s->async);
        log_info ("state database: %llu records written in %llu commits",
                  (unsigned long long)s->writes,
                  (unsigned long long)s->commits);
    }
    sqlite3_finalize (s->put);
    sqlite3_finalize (s->del);
    sqlite3_finalize (s->del_prefix);
    if (s->db)
        sqlite3_close (s->db);
    pthread_mutex_destroy (&s->lock);
    pthread_cond_destroy (&s->wake);
    free (s);
}
