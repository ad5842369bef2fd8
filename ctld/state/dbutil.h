/* dbutil.h - what the controller's two SQLite databases (the state,
 * store.c, and the accounting, acct_db.c) do alike when they open.
 */
#ifndef ARBOR_CTLD_DBUTIL_H
#define ARBOR_CTLD_DBUTIL_H

#include <sqlite3.h>

#include "error.h"

/* Run 'sql' (several statements allowed). -1 with errno EIO and err. */
int db_exec (sqlite3 *db, const char *sql, arbor_error_t *err);
/* The integer a one-value query (a pragma, a count) answers, or -1. */
long db_pragma (sqlite3 *db, const char *sql);
/* 0 when PRAGMA quick_check says "ok", else -1 with the first problem. */
int db_check (sqlite3 *db, arbor_error_t *err);
/* Open 'path' read-write (created if missing) for one thread's use, WAL
 * journal, 'synchronous' (a PRAGMA value: FULL, NORMAL), checked. NULL
 * with err. */
sqlite3 *db_open (const char *path, const char *synchronous,
                  arbor_error_t *err);

#endif
