/* store.h - the controller's durable state: one SQLite database in WAL
 * mode, StateSaveLocation/arbor_state.db, written by a thread of its own.
 *
 * The state is a set of records, each a key ("job/5", "step/5/0",
 * "node/node3"), a kind, an order within its kind and an opaque blob
 * (persist.c encodes them). The loop never waits for the disk: it
 * queues writes (store_put, store_del) and asks, with store_sync, to be
 * called back once everything queued so far is durable. The writer thread
 * takes whatever is queued, writes it in one transaction and commits:
 * a burst of submissions costs one commit (grouped commits), and the
 * callbacks come back to the loop through an ev_async. The records are
 * read once, at start, on the loop (store_load), before any write.
 *
 * StateSaveLocation must be ours and closed to other users (0700), and
 * the database files are made 0600: else the controller does not start.
 *
 * A database that cannot be opened, is not ours or is corrupt
 * (PRAGMA quick_check) stops the controller with the reason; 'clear'
 * (arbor-ctld -c) starts from an empty one instead, keeping the old file
 * as arbor_state.db.cleared.
 */
#ifndef ARBOR_CTLD_STORE_H
#define ARBOR_CTLD_STORE_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define STORE_FILE "arbor_state.db"

struct store;

/* Open (or create) the database in 'dir' on 'loop'. NULL with err. */
struct store *store_open (struct ev_loop *loop, const char *dir, bool clear,
                          arbor_error_t *err);
/* 0 if 'dir' is a directory of ours that no other user may enter or read
 * (the state holds every user's scripts and environment); else -1 with
 * err naming it and the chmod that fixes it. store_open checks it. */
int store_dir_private (const char *dir, arbor_error_t *err);
/* Commit what is queued, stop the thread, close (NULL accepted). Pending
 * syncs are called back, with the commit's outcome, before it returns. */
void store_close (struct store *s);

/* Called for each record, kinds ascending, then 'order' ascending. A
 * non-zero return stops the load with that value. */
typedef int (*store_row_f) (int kind, const char *key, uint64_t order,
                            const void *rec, size_t len, void *arg);
int store_load (struct store *s, store_row_f f, void *arg);

/* Queue writing record 'key' (copied), or deleting it, or every record
 * whose key starts with 'prefix'. -1 with errno ENOMEM (nothing queued). */
int store_put (struct store *s, const char *key, int kind, uint64_t order,
               const void *rec, size_t len);
int store_del (struct store *s, const char *key);
int store_del_prefix (struct store *s, const char *prefix);

/* Commit what is queued now, not after STORE_GROUP_MS (a job's end, an
 * administrator's node decision: persist.c), without a callback. */
void store_commit_soon (struct store *s);

/* cb (on the loop) once every write queued before this call is
 * committed: errnum 0, or the errno of a failed commit (err says why).
 * -1 with errno ENOMEM. */
typedef void (*store_done_f) (int errnum, const char *err, void *arg);
int store_sync (struct store *s, store_done_f cb, void *arg);

/* 0 while the store can be written; else the errno of the commit that
 * failed last (ENOSPC: a full disk, SQLITE_FULL on the WAL or the
 * database alike), with err "StateSaveLocation DIR: No space left on
 * device". Writes that failed are kept, in order, and tried again every
 * second until a commit succeeds; nothing queued is dropped but at close. */
int store_writable (struct store *s, char *err, size_t size);
/* cb (on the loop) when that changes: writable again, or not any more. */
typedef void (*store_health_f) (bool writable, const char *err, void *arg);
void store_on_health (struct store *s, store_health_f cb, void *arg);

#endif
