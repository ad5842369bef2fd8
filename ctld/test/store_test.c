/* store_test.c - the controller's state database (store.c): writes
 * grouped and committed before their sync is called back, read back in
 * kind and order, deletes by key and prefix, a damaged file refused
 * unless cleared, and a commit that fails (a file size limit stands in
 * for a full disk) losing nothing: its writes are kept and committed once
 * the store can write again, and the store says meanwhile that it
 * cannot. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <ev.h>
#include <sqlite3.h>

#include "state/store.h"

struct seen {
    char rows[16][64];
    size_t n;
};

static int collect (int kind, const char *key, uint64_t order, const void *rec,
                    size_t len, void *arg)
{
    struct seen *s = arg;

    snprintf (s->rows[s->n++], 64, "%d %s %llu %.*s", kind, key,
              (unsigned long long)order, (int)len, (const char *)rec);
    return 0;
}

static void synced (int errnum, const char *err, void *arg)
{
    *(int *)arg = errnum ? errnum : -1; /* -1: called, no error */
}

static char *make_dir (void)
{
    char *d = strdup ("/tmp/arbor-store-test-XXXXXX");

    assert_non_null (mkdtemp (d));
    return d;
}

static void remove_dir (char *d)
{
    char cmd[256];

    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", d);
    assert_int_equal (system (cmd), 0);
    free (d);
}

static void put (struct store *s, const char *key, int kind, uint64_t order,
                 const char *text)
{
    assert_int_equal (store_put (s, key, kind, order, text, strlen (text)), 0);
}

/* Sync and run the loop until the callback came. */
static void sync_now (struct ev_loop *loop, struct store *s)
{
    int done = 0;

    assert_int_equal (store_sync (s, synced, &done), 0);
    ev_run (loop, 0); /* returns once no sync is pending */
    assert_int_equal (done, -1);
}

static void test_write_read_back (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    char *dir = make_dir ();
    arbor_error_t err = { "" };
    struct seen seen = { .n = 0 };
    struct store *s = store_open (loop, dir, false, &err);

    (void)state;
    assert_non_null (s);
    put (s, "job/2", 3, 2, "two");
    put (s, "job/1", 3, 1, "one");
    put (s, "node/n1", 1, 0, "drained");
    put (s, "step/1/0", 4, 0, "s10");
    put (s, "step/1/1", 4, 1, "s11");
    put (s, "step/10/0", 4, 0, "s100");
    put (s, "job/1", 3, 1, "one again"); /* replaces */
    sync_now (loop, s);
    assert_int_equal (store_del_prefix (s, "step/1/"), 0);
    assert_int_equal (store_del (s, "job/2"), 0);
    sync_now (loop, s);
    store_close (s);

    s = store_open (loop, dir, false, &err);
    assert_non_null (s);
    assert_int_equal (store_load (s, collect, &seen), 0);
    assert_int_equal (seen.n, 3);
    assert_string_equal (seen.rows[0], "1 node/n1 0 drained");
    assert_string_equal (seen.rows[1], "3 job/1 1 one again");
    assert_string_equal (seen.rows[2], "4 step/10/0 0 s100");
    store_close (s);
    remove_dir (dir);
    ev_loop_destroy (loop);
}

static void test_close_commits_what_is_queued (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    char *dir = make_dir ();
    arbor_error_t err = { "" };
    struct seen seen = { .n = 0 };
    struct store *s = store_open (loop, dir, false, &err);
    int done = 0;

    (void)state;
    put (s, "job/7", 3, 7, "seven");
    assert_int_equal (store_sync (s, synced, &done), 0);
    store_close (s); /* the sync is called back before it returns */
    assert_int_equal (done, -1);
    s = store_open (loop, dir, false, &err);
    assert_int_equal (store_load (s, collect, &seen), 0);
    assert_int_equal (seen.n, 1);
    store_close (s);
    remove_dir (dir);
    ev_loop_destroy (loop);
}

/* Is 'key' in the committed database, as another reader sees it? */
static bool committed (const char *dir, const char *key)
{
    char path[256], sql[128];
    sqlite3 *db;
    sqlite3_stmt *st;
    bool found = false;

    snprintf (path, sizeof (path), "%s/%s", dir, STORE_FILE);
    snprintf (sql, sizeof (sql), "SELECT 1 FROM state WHERE key = '%s'", key);
    assert_int_equal (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL),
                      SQLITE_OK);
    if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK) {
        found = sqlite3_step (st) == SQLITE_ROW;
        sqlite3_finalize (st);
    }
    sqlite3_close (db);
    return found;
}

/* Writes no sync waits for are grouped for a moment, not kept: they are
 * committed with no sync and no close to push them. */
static void test_unwaited_writes_are_committed (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    char *dir = make_dir ();
    arbor_error_t err = { "" };
    struct store *s = store_open (loop, dir, false, &err);
    int i;

    (void)state;
    assert_non_null (s);
    put (s, "job/9", 3, 9, "nine");
    put (s, "job/10", 3, 10, "ten");
    for (i = 0; i < 500 && !committed (dir, "job/10"); i++)
        usleep (10000);
    assert_true (committed (dir, "job/9"));
    assert_true (committed (dir, "job/10"));
    store_close (s);
    remove_dir (dir);
    ev_loop_destroy (loop);
}

static void health (bool writable, const char *err, void *arg)
{
    *(int *)arg = writable ? 1 : 2;
}

static void limit_file_size (rlim_t size)
{
    struct rlimit rl;

    assert_int_equal (getrlimit (RLIMIT_FSIZE, &rl), 0);
    rl.rlim_cur = size;
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &rl), 0);
}

/* A commit that cannot be written: its sync hears why, the store says it
 * cannot write, and the write is not lost: it is committed, with what
 * followed, once the file may grow again. */
static void test_failed_commit_is_kept_and_retried (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    char *dir = make_dir (), wal[256], why[320] = "", big[8192];
    arbor_error_t err = { "" };
    struct store *s = store_open (loop, dir, false, &err);
    struct stat st;
    int done = 0, healthy = 0;

    (void)state;
    assert_non_null (s);
    store_on_health (s, health, &healthy);
    put (s, "job/1", 3, 1, "one");
    sync_now (loop, s);
    assert_int_equal (store_writable (s, why, sizeof (why)), 0);
    snprintf (wal, sizeof (wal), "%s/%s-wal", dir, STORE_FILE);
    assert_int_equal (stat (wal, &st), 0);
    signal (SIGXFSZ, SIG_IGN);
    limit_file_size ((rlim_t)st.st_size); /* the WAL may not grow */
    memset (big, 'x', sizeof (big) - 1);
    big[sizeof (big) - 1] = '\0';
    put (s, "job/2", 3, 2, big);
    assert_int_equal (store_sync (s, synced, &done), 0);
    ev_run (loop, 0);
    assert_true (done > 0); /* an errno: EIO or EFBIG, as SQLite saw it */
    assert_int_equal (healthy, 2);
    assert_int_equal (store_writable (s, why, sizeof (why)), done);
    assert_non_null (strstr (why, "StateSaveLocation"));
    assert_false (committed (dir, "job/2"));

    limit_file_size (RLIM_INFINITY);
    put (s, "job/3", 3, 3, "three");
    sync_now (loop, s); /* the kept write goes first, with this one */
    assert_int_equal (healthy, 1);
    assert_int_equal (store_writable (s, why, sizeof (why)), 0);
    assert_true (committed (dir, "job/2"));
    assert_true (committed (dir, "job/3"));
    store_close (s);
    remove_dir (dir);
    ev_loop_destroy (loop);
}

/* A state directory other users may read is refused, naming the fix;
 * the database files are the controller's alone. */
static void test_state_is_private (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    char *dir = make_dir (), path[256];
    arbor_error_t err = { "" };
    struct store *s;
    struct stat st;

    (void)state;
    assert_int_equal (chmod (dir, 0755), 0);
    assert_null (store_open (loop, dir, false, &err));
    assert_non_null (strstr (err.text, dir));
    assert_non_null (strstr (err.text, "chmod 700"));
    assert_int_equal (chmod (dir, 0700), 0);
    assert_non_null (s = store_open (loop, dir, false, &err));
    put (s, "job/1", 3, 1, "one");
    sync_now (loop, s);
    snprintf (path, sizeof (path), "%s/%s", dir, STORE_FILE);
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0600);
    snprintf (path, sizeof (path), "%s/%s-wal", dir, STORE_FILE);
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0600);
    store_close (s);
    remove_dir (dir);
    ev_loop_destroy (loop);
}

static void test_damaged_is_refused_unless_cleared (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    char *dir = make_dir (), path[256], aside[300];
    arbor_error_t err = { "" };
    struct seen seen = { .n = 0 };
    struct store *s;
    FILE *f;

    (void)state;
    snprintf (path, sizeof (path), "%s/%s", dir, STORE_FILE);
    assert_non_null (f = fopen (path, "w"));
    fputs ("this is not a database, not at all: junk junk junk junk junk "
           "junk junk junk junk junk junk junk junk junk junk junk\n",
           f);
    fclose (f);
    assert_null (store_open (loop, dir, false, &err));
    assert_non_null (strstr (err.text, "file is not a database"));
    assert_non_null (strstr (err.text, "start with -c"));
    assert_non_null (s = store_open (loop, dir, true, &err));
    assert_int_equal (store_load (s, collect, &seen), 0);
    assert_int_equal (seen.n, 0);
    store_close (s);
    snprintf (aside, sizeof (aside), "%s.cleared", path);
    assert_int_equal (access (aside, F_OK), 0); /* kept, not deleted */
    remove_dir (dir);
    ev_loop_destroy (loop);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_write_read_back),
        cmocka_unit_test (test_close_commits_what_is_queued),
        cmocka_unit_test (test_unwaited_writes_are_committed),
        cmocka_unit_test (test_damaged_is_refused_unless_cleared),
        cmocka_unit_test (test_failed_commit_is_kept_and_retried),
        cmocka_unit_test (test_state_is_private),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
