/* dbutil.c - opening and checking the controller's SQLite databases.
 * See dbutil.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/dbutil.h"

#define DB_BUSY_MS 5000

int db_exec (sqlite3 *db, const char *sql, arbor_error_t *err)
{
    char *msg = NULL;

    if (sqlite3_exec (db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    errprintf (err, "%s", msg ? msg : sqlite3_errmsg (db));
    sqlite3_free (msg);
    errno = EIO;
    return -1;
}

long db_pragma (sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    long v = -1;

    if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step (st) == SQLITE_ROW)
        v = (long)sqlite3_column_int64 (st, 0);
    sqlite3_finalize (st);
    return v;
}

int db_check (sqlite3 *db, arbor_error_t *err)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2 (db, "PRAGMA quick_check", -1, &st, NULL)
        != SQLITE_OK)
        return errprintf (err, "%s", sqlite3_errmsg (db));
    rc = sqlite3_step (st);
    if (rc != SQLITE_ROW) {
        errprintf (err, "%s", sqlite3_errmsg (db));
        sqlite3_finalize (st);
        return -1;
    }
    const char *text = (const char *)sqlite3_column_text (st, 0);
    if (!text || strcmp (text, "ok") != 0) {
        errprintf (err, "damaged: %s", text ? text : "?");
        sqlite3_finalize (st);
        return -1;
    }
    sqlite3_finalize (st);
    return 0;
}

/* The database and its -wal and -shm files: the controller's alone (they
 * hold users' commands, scripts and environment). SQLite creates the
 * -wal and -shm with the database's mode, so the file is made 0600
 * first; one left by an older version is made so too. */
static int db_private (const char *path, arbor_error_t *err)
{
    static const char *const ext[] = { "-wal", "-shm" };
    char other[4200];
    int fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

    if (fd < 0 || fchmod (fd, 0600) < 0) {
        errprintf (err, "%s", strerror (errno));
        if (fd >= 0)
            close (fd);
        return -1;
    }
    close (fd);
    for (size_t i = 0; i < 2; i++) {
        snprintf (other, sizeof (other), "%s%s", path, ext[i]);
        if (chmod (other, 0600) < 0 && errno != ENOENT)
            return errprintf (err, "%s: %s", other, strerror (errno));
    }
    return 0;
}

sqlite3 *db_open (const char *path, const char *synchronous, arbor_error_t *err)
{
    sqlite3 *db = NULL;
    char sql[64];

    if (db_private (path, err) < 0)
        return NULL;
    if (sqlite3_open_v2 (path, &db,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                             | SQLITE_OPEN_NOMUTEX,
                         NULL)
        != SQLITE_OK) {
        errprintf (err, "%s", db ? sqlite3_errmsg (db) : "no memory");
        sqlite3_close (db);
        return NULL;
    }
    sqlite3_busy_timeout (db, DB_BUSY_MS);
    snprintf (sql, sizeof (sql), "PRAGMA synchronous=%s", synchronous);
    if (db_exec (db, "PRAGMA journal_mode=WAL", err) < 0
        || db_exec (db, sql, err) < 0 || db_check (db, err) < 0) {
        sqlite3_close (db);
        return NULL;
    }
    return db;
}
