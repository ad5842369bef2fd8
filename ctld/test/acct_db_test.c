/* acct_db_test.c - the accounting database (acct_db.c, acct_usage.c):
 * jobs read back by window, id, array and user; only the last run unless
 * duplicates; a state filter; steps with their nodes' usage folded in (a
 * node's report counted once); a file that is not ours refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <ev.h>

#include "acct/acct_db.h"
#include "acct/acct_usage.h"
#include "states.h"

static char *make_path (char **dir)
{
    char *d = strdup ("/tmp/arbor-acct-test-XXXXXX"), *p;

    assert_non_null (mkdtemp (d));
    assert_true (asprintf (&p, "%s/acct.db", d) > 0);
    *dir = d;
    return p;
}

static void remove_dir (char *d)
{
    char cmd[256];

    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", d);
    assert_int_equal (system (cmd), 0);
    free (d);
}

static void put_job (struct acct_db *db, uint32_t id, uint32_t run,
                     uint32_t array, uint32_t uid, uint64_t submit,
                     uint64_t end, const char *state)
{
    struct msg_acct_job r = { .job_id = id,
                              .run = run,
                              .array_job_id = array,
                              .uid = uid,
                              .submit_time = submit,
                              .end_time = end,
                              .state = (char *)state,
                              .user = "u" };
    char *buf;
    size_t len;

    assert_int_equal (proto_encode (MSG_ACCT_JOB, &r, &buf, &len), 0);
    assert_int_equal (acct_db_put_job (db, &r, buf, len), 0);
}

static void put_step (struct acct_db *db, uint32_t id, uint32_t step,
                      const char *state, int exit_code)
{
    struct msg_acct_step r = { .job_id = id,
                               .step_id = step,
                               .state = (char *)state,
                               .exit_code = exit_code };
    char *buf;
    size_t len;

    assert_int_equal (proto_encode (MSG_ACCT_STEP, &r, &buf, &len), 0);
    assert_int_equal (acct_db_put_step (db, id, 0, step, buf, len), 0);
}

static void put_usage (struct acct_db *db, uint32_t id, uint32_t step,
                       const char *node, uint64_t user, uint64_t rss,
                       uint32_t task, int signal)
{
    struct msg_step_complete m = {
        .job_id = id,
        .step_id = step,
        .node = (char *)node,
        .signal = signal,
        .usage = true,
        .user_usec = user,
        .sys_usec = 10,
        .max_rss_kb = rss,
        .max_rss_task = task,
        .sum_rss_kb = rss,
        .ntasks = 1,
    };
    char *buf;
    size_t len;

    assert_int_equal (proto_encode (MSG_STEP_COMPLETE, &m, &buf, &len), 0);
    assert_int_equal (acct_db_put_usage (db, id, 0, step, node, buf, len), 0);
}

static void answered (struct acct_db_query *q, void *arg)
{
    *(struct acct_db_query **)arg = q;
}

/* Ask and run the loop until the answer came. The caller frees it. */
static struct acct_db_query *ask (struct ev_loop *loop, struct acct_db *db,
                                  struct acct_db_query *q)
{
    struct acct_db_query *got = NULL;

    assert_int_equal (acct_db_query (db, q, answered, &got), 0);
    ev_run (loop, 0); /* returns once no query is out */
    assert_ptr_equal (got, q);
    assert_int_equal (q->errnum, 0);
    return q;
}

static uint32_t job_at (const struct acct_db_query *q, size_t i, uint32_t *run)
{
    *run = q->found[i].run;
    return q->found[i].job_id;
}

static struct acct_db *fill (struct ev_loop *loop, const char *path)
{
    arbor_error_t err = { "" };
    struct acct_db *db = acct_db_open (loop, path, &err);

    assert_non_null (db);
    put_job (db, 5, 0, 0, 1000, 100, 200, "REQUEUED");
    put_job (db, 5, 1, 0, 1000, 100, 300, "COMPLETED");
    put_job (db, 6, 0, 0, 1001, 150, 400, "FAILED");
    put_job (db, 7, 0, 7, 1000, 500, 600, "COMPLETED");
    put_job (db, 8, 0, 7, 1000, 500, 700, "CANCELLED");
    return db;
}

static void test_jobs_by_filters (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    char *dir, *path = make_path (&dir);
    struct acct_db *db = fill (loop, path);
    struct acct_db_query *q = acct_db_query_new ();
    uint32_t run;

    ask (loop, db, q); /* everything: each job's last run */
    assert_int_equal (q->njobs, 4);
    assert_int_equal (job_at (q, 0, &run), 5);
    assert_int_equal (run, 1);
    acct_db_query_free (q);

    q = acct_db_query_new ();
    q->duplicates = true;
    ask (loop, db, q);
    assert_int_equal (q->njobs, 5);
    acct_db_query_free (q);

    q = acct_db_query_new (); /* an array job's id names its tasks */
    q->job_ids = calloc (1, sizeof (uint32_t));
    q->job_ids[0] = 7;
    q->njob_ids = 1;
    ask (loop, db, q);
    assert_int_equal (q->njobs, 2);
    acct_db_query_free (q);

    q = acct_db_query_new (); /* a user, a window */
    q->uids = calloc (1, sizeof (uint32_t));
    q->uids[0] = 1000;
    q->nuids = 1;
    q->start = 350;
    q->end = 550;
    ask (loop, db, q);
    assert_int_equal (q->njobs, 2);
    assert_int_equal (job_at (q, 0, &run), 7);
    acct_db_query_free (q);

    q = acct_db_query_new (); /* -s CA,F */
    q->state_mask = 1u << JOB_CANCELLED | 1u << JOB_FAILED;
    ask (loop, db, q);
    assert_int_equal (q->njobs, 2);
    assert_int_equal (job_at (q, 0, &run), 6);
    assert_int_equal (job_at (q, 1, &run), 8);
    acct_db_query_free (q);

    acct_db_close (db);
    free (path);
    remove_dir (dir);
    ev_loop_destroy (loop);
}

static void test_steps_with_usage (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    char *dir, *path = make_path (&dir);
    arbor_error_t err = { "" };
    struct acct_db *db = acct_db_open (loop, path, &err);
    struct acct_db_query *q = acct_db_query_new ();
    struct msg_acct_step s;

    assert_non_null (db);
    put_job (db, 9, 0, 0, 1000, 1, 2, "COMPLETED");
    put_usage (db, 9, 0, "n1", 1000, 5000, 0, 0);
    put_step (db, 9, 0, "COMPLETED", 0);
    put_usage (db, 9, 0, "n2", 2000, 9000, 3, 9);
    put_usage (db, 9, 0, "n2", 7777, 1, 1, 0); /* sent twice: the first */
    put_step (db, 9, STEP_ID_BATCH, "CANCELLED", 0);
    put_usage (db, 9, STEP_ID_BATCH, "n1", 1, 1, 0, 15);
    q->steps = true;
    ask (loop, db, q);
    assert_int_equal (q->njobs, 1);
    assert_int_equal (q->nsteps, 2);
    assert_int_equal (proto_decode (MSG_ACCT_STEP, q->steps_found[0].data,
                                    q->steps_found[0].len, &s, &err),
                      0);
    assert_int_equal (s.step_id, 0);
    assert_int_equal (s.nodes_reported, 2);
    assert_int_equal (s.user_usec, 3000);
    assert_int_equal (s.sys_usec, 20);
    assert_int_equal (s.max_rss_kb, 9000);
    assert_int_equal (s.max_rss_task, 3);
    assert_string_equal (s.max_rss_node, "n2");
    assert_int_equal (s.ave_rss_kb, 7000);
    assert_int_equal (s.signal, 9); /* the worst end: FAILED now */
    assert_string_equal (s.state, "FAILED");
    proto_clear (MSG_ACCT_STEP, &s);
    assert_int_equal (proto_decode (MSG_ACCT_STEP, q->steps_found[1].data,
                                    q->steps_found[1].len, &s, &err),
                      0);
    assert_int_equal (s.signal, 15);
    assert_string_equal (s.state, "CANCELLED"); /* stays */
    proto_clear (MSG_ACCT_STEP, &s);
    acct_db_query_free (q);
    acct_db_close (db);
    free (path);
    remove_dir (dir);
    ev_loop_destroy (loop);
}

/* A run in memory hides its job's runs in the database; the answer is
 * one frame with every record, in job order. */
static void test_answer_merges_memory (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    char *dir, *path = make_path (&dir);
    struct acct_db *db = fill (loop, path);
    struct acct_db_query *q = acct_db_query_new ();
    struct msg_acct_job mem = { .job_id = 5, .run = 2, .state = "PENDING" };
    struct msg_acct_reply r;
    struct msg_acct_job got;
    arbor_error_t err;

    char *buf;
    size_t len;

    q->mem_jobs = calloc (1, sizeof (*q->mem_jobs));
    q->mem_keys = calloc (1, sizeof (*q->mem_keys));
    assert_int_equal (proto_encode (MSG_ACCT_JOB, &mem, &buf, &len), 0);
    q->mem_jobs[0] = (struct proto_bin){ buf, (uint32_t)len };
    q->mem_keys[0] = (struct acct_run){ 5, 2 };
    q->nmem_jobs = 1;
    ask (loop, db, q);
    assert_int_equal (q->nframes, 1);
    assert_int_equal (proto_decode (MSG_ACCT_REPLY, q->frames[0].data,
                                    q->frames[0].len, &r, &err),
                      0);
    assert_false (r.more);
    assert_int_equal (r.jobs_count, 4); /* 5 (memory), 6, 7, 8 */
    assert_int_equal (
        proto_decode (MSG_ACCT_JOB, r.jobs[0].data, r.jobs[0].len, &got, &err),
        0);
    assert_int_equal (got.job_id, 5);
    assert_string_equal (got.state, "PENDING");
    proto_clear (MSG_ACCT_JOB, &got);
    proto_clear (MSG_ACCT_REPLY, &r);
    acct_db_query_free (q);
    acct_db_close (db);
    free (path);
    remove_dir (dir);
    ev_loop_destroy (loop);
}

static void test_not_ours_is_refused (void **state)
{
    struct ev_loop *loop = ev_loop_new (EVFLAG_AUTO);
    char *dir, *path = make_path (&dir);
    arbor_error_t err = { "" };
    FILE *f = fopen (path, "w");

    assert_non_null (f);
    fputs ("this is not a database, it is a poem\n", f);
    fclose (f);
    assert_null (acct_db_open (loop, path, &err));
    assert_non_null (strstr (err.text, "accounting database"));
    free (path);
    remove_dir (dir);
    ev_loop_destroy (loop);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_jobs_by_filters),
        cmocka_unit_test (test_steps_with_usage),
        cmocka_unit_test (test_answer_merges_memory),
        cmocka_unit_test (test_not_ours_is_refused),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
