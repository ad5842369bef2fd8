/* acct_db.h - the accounting database: what ran, kept after the
 * controller forgets it (MinJobAge).
 *
 * One SQLite file in WAL mode (AccountingStorageLoc, default
 * StateSaveLocation/arbor_acct.db), apart from the state database so
 * that clearing the state (arbor-ctld -c) keeps the history. Three
 * tables of what ran, each row an encoded record with the columns
 * queries select on (and a fourth, assoc, of the site's policy:
 * acct_db_assoc.c):
 *   jobs  (job_id, run, array_job_id, uid, submit, end_time) ACCT_JOB
 *   steps (job_id, run, step_id)                             ACCT_STEP
 *   usage (job_id, run, step_id, node)       a node's STEP_COMPLETE
 * A node's report is kept apart from its step's record because they
 * come in any order (arbor run reports the whole step before its nodes
 * do; the extern step's nodes report after the job ended) and a node's
 * report may come twice (INSERT OR IGNORE keeps the first). Reading a
 * step adds its nodes' reports to it (acct_usage.h).
 *
 * A thread of its own does every read and write, in the order they were
 * asked, a batch per transaction: a query sees every write asked before
 * it, and the loop never waits for the disk. synchronous=NORMAL: a
 * killed controller loses nothing; a power loss may lose the last
 * commit, which the restored state writes again (acct.h).
 *
 * The interface of one module in two files: acct_db.c, and
 * acct_db_assoc.c for the site policy's table.
 */
#ifndef ARBOR_CTLD_ACCT_DB_H
#define ARBOR_CTLD_ACCT_DB_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "acct/acct_query.h"
#include "proto.h"

#define ACCT_DB_FILE "arbor_acct.db"
#define ACCT_DB_MAX_JOBS 100000 /* records one query may answer */

struct acct_db;

/* Open (or create) the database at 'path'. NULL with err (a file that
 * is not ours or is damaged says so). */
struct acct_db *acct_db_open (struct ev_loop *loop, const char *path,
                              arbor_error_t *err);
/* Finish what is queued (queries are answered), stop, close. */
void acct_db_close (struct acct_db *db);

/* Queue writing a record; 'rec' (malloc'd) is the database's from now
 * on, also when it fails. -1 with errno ENOMEM. */
int acct_db_put_job (struct acct_db *db, const struct msg_acct_job *key,
                     char *rec, size_t len);
int acct_db_put_step (struct acct_db *db, uint32_t job_id, uint32_t run,
                      uint32_t step_id, char *rec, size_t len);
int acct_db_put_usage (struct acct_db *db, uint32_t job_id, uint32_t run,
                       uint32_t step_id, const char *node, char *rec,
                       size_t len);

/* The site policy's records (ctld/assoc/assoc.h), keyed "kind/name":
 * queue writing one (rec NULL: deleting it; rec, malloc'd, is the
 * database's from now on); and, when the controller starts, before
 * anything is queued, read each with cb (on the caller's thread; a cb
 * that returns -1 stops it). -1 with errno ENOMEM; -1 with err. */
int acct_db_put_assoc (struct acct_db *db, const char *key, char *rec,
                       size_t len);
int acct_db_assoc_each (struct acct_db *db,
                        int (*cb) (const char *rec, size_t len, void *arg),
                        void *arg, arbor_error_t *err);

/* Queue q; cb(q, arg) is called on the loop once it is answered and
 * must free it. -1 with errno (nothing queued). */
int acct_db_query (struct acct_db *db, struct acct_db_query *q,
                   void (*cb) (struct acct_db_query *q, void *arg), void *arg);

#endif
