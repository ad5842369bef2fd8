/* acct_db_assoc.c - the site policy's records (ctld/assoc/assoc.h) in the
 * accounting database: one row per entity, keyed "kind/name", its
 * ASSOC_REC encoded: the statements, one write (on the thread, in order
 * with everything else, queued by acct_db_put_assoc in acct_db.c) and
 * the reading, once, when the controller starts. See acct_db.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct_db.h"
#include "acct/acct_db_private.h"

int acct_db_assoc_prepare (struct acct_db *db, arbor_error_t *err)
{
    if (sqlite3_prepare_v2 (db->db,
                            "INSERT OR REPLACE INTO assoc (key, rec) VALUES "
                            "(?1, ?2)",
                            -1, &db->put_assoc, NULL)
            != SQLITE_OK
        || sqlite3_prepare_v2 (db->db, "DELETE FROM assoc WHERE key = ?1", -1,
                               &db->del_assoc, NULL)
               != SQLITE_OK)
        return errprintf (err, "%s", sqlite3_errmsg (db->db));
    return 0;
}

int acct_db_assoc_write (struct acct_db *db, const struct acct_op *op)
{
    sqlite3_stmt *st = op->rec ? db->put_assoc : db->del_assoc;
    int rc;

    sqlite3_bind_text (st, 1, op->node, -1, SQLITE_STATIC);
    if (op->rec)
        sqlite3_bind_blob (st, 2, op->rec, (int)op->len, SQLITE_STATIC);
    rc = sqlite3_step (st);
    sqlite3_reset (st);
    sqlite3_clear_bindings (st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int acct_db_assoc_each (struct acct_db *db,
                        int (*cb) (const char *rec, size_t len, void *arg),
                        void *arg, arbor_error_t *err)
{
    sqlite3_stmt *st;
    int rc = 0, s;

    if (sqlite3_prepare_v2 (db->db, "SELECT rec FROM assoc ORDER BY key", -1,
                            &st, NULL)
        != SQLITE_OK)
        return errprintf (err, "%s", sqlite3_errmsg (db->db));
    while (rc == 0 && (s = sqlite3_step (st)) == SQLITE_ROW)
        rc = cb (sqlite3_column_blob (st, 0),
                 (size_t)sqlite3_column_bytes (st, 0), arg);
    if (rc == 0 && s != SQLITE_DONE)
        rc = errprintf (err, "%s", sqlite3_errmsg (db->db));
    else if (rc < 0)
        errprintf (err, "a damaged record in the assoc table");
    sqlite3_finalize (st);
    return rc;
}
