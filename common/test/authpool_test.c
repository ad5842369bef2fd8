/* authpool_test.c - the auth pool against a private munged, on a real loop.
 *
 * Round trip (encode, then decode from the callback), 200 concurrent jobs
 * each answered once, cancel before completion (no callback), uid
 * restriction reported (a token for another uid refused: EPERM), an expired
 * token, an unreachable munged (EIO), and destroy with jobs queued (no
 * callback, nothing leaked: the suite runs under ASan). Threads start at
 * the first job and are joined by destroy, counted in /proc/self/task.
 * Exits 77 (SKIP) when munged cannot be started.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ev.h>
#include <cmocka.h>

#include "skip.h"

#include "auth.h"
#include "authpool.h"
#include "munged_fixture.h"

#define MANY 200

struct fixture {
    struct munged_fixture m;
    struct ev_loop *loop;
    struct auth_pool *pool;
};

/* What a callback saw: how often it ran and a copy of the result. */
struct seen {
    int calls;
    int errnum;
    char text[160];
    char *token;
    void *payload;
    size_t len;
    uid_t uid;
    uid_t restricted_uid;
    struct auth_job *self; /* to cancel from inside the callback */
};

static struct fixture *fx_of (void **state)
{
    return *state;
}

static int setup (void **state)
{
    struct fixture *fx = fx_of (state);
    arbor_error_t err = { "" };

    fx->loop = ev_loop_new (EVFLAG_AUTO);
    fx->pool = auth_pool_create (fx->loop, fx->m.socket, 0, &err);
    if (!fx->loop || !fx->pool) {
        fprintf (stderr, "auth_pool_create: %s\n", err.text);
        return -1;
    }
    return 0;
}

static int teardown (void **state)
{
    struct fixture *fx = fx_of (state);

    auth_pool_destroy (fx->pool);
    fx->pool = NULL;
    ev_loop_destroy (fx->loop);
    fx->loop = NULL;
    return 0;
}

static void guard_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)w;
    (void)revents;
    ev_break (loop, EVBREAK_ALL);
}

/* Run until no job is left (the pool lets ev_run return then), failing
 * after 20 s. The guard is unreferenced so that it does not keep the loop
 * running itself. */
static void run_loop (struct ev_loop *loop)
{
    ev_timer guard;

    ev_timer_init (&guard, guard_cb, 20., 0.);
    ev_timer_start (loop, &guard);
    ev_unref (loop);
    ev_run (loop, 0);
    ev_ref (loop);
    bool fired = !ev_is_active (&guard);
    ev_timer_stop (loop, &guard);
    if (fired)
        fail_msg ("loop still busy after 20 s");
}

static void seen_cb (struct auth_result *res, void *arg)
{
    struct seen *s = arg;

    s->calls++;
    s->errnum = res->errnum;
    snprintf (s->text, sizeof (s->text), "%s",
              res->errnum ? res->err.text : "");
    s->token = res->token; /* take ownership */
    res->token = NULL;
    s->payload = res->payload;
    res->payload = NULL;
    s->len = res->len;
    s->uid = res->uid;
    s->restricted_uid = res->restricted_uid;
    auth_job_cancel (s->self); /* a no-op from inside the callback */
}

static void seen_clear (struct seen *s)
{
    free (s->token);
    free (s->payload);
    memset (s, 0, sizeof (*s));
}

/* Encode through the pool and wait; the token is the caller's. */
static char *encode_wait (struct fixture *fx, const char *payload, int ttl,
                          uid_t restrict_uid)
{
    struct seen s = { 0 };

    s.self = auth_pool_encode (fx->pool, payload, strlen (payload), ttl,
                               restrict_uid, seen_cb, &s);
    assert_non_null (s.self);
    assert_int_equal (s.calls, 0); /* never inside the submitting call */
    run_loop (fx->loop);
    assert_int_equal (s.calls, 1);
    if (s.errnum)
        fail_msg ("encode: %s", s.text);
    assert_non_null (s.token);
    return s.token;
}

static void decode_wait (struct fixture *fx, const char *token, struct seen *s)
{
    memset (s, 0, sizeof (*s));
    s->self = auth_pool_decode (fx->pool, token, strlen (token), seen_cb, s);
    assert_non_null (s->self);
    assert_int_equal (s->calls, 0);
    run_loop (fx->loop);
    assert_int_equal (s->calls, 1);
}

static int count_threads (void)
{
    DIR *d = opendir ("/proc/self/task");
    int n = 0;

    if (!d)
        return -1;
    while (readdir (d))
        n++;
    closedir (d);
    return n;
}

/* The threads of this process once none is on its way out: a thread
 * joined by an earlier test (its pool destroyed in the teardown) may
 * linger in /proc for a moment after pthread_join, and counting it
 * would make a later comparison depend on timing. Two equal counts
 * 20 ms apart (at most 2 s). */
static int settled_threads (void)
{
    int last = count_threads (), now;

    for (int i = 0; i < 100; i++, last = now) {
        usleep (20000);
        if ((now = count_threads ()) == last)
            return now;
    }
    return count_threads ();
}

/* A joined thread may linger in /proc for a moment after pthread_join. */
static void expect_threads (int n)
{
    for (int i = 0; i < 100 && count_threads () != n; i++)
        usleep (10000);
    assert_int_equal (count_threads (), n);
}

/* Encode, then decode the token from the encode's callback. */
struct chain {
    struct fixture *fx;
    struct seen dec;
    int encoded;
};

static void chain_encoded_cb (struct auth_result *res, void *arg)
{
    struct chain *c = arg;

    c->encoded++;
    assert_int_equal (res->errnum, 0);
    c->dec.self = auth_pool_decode (c->fx->pool, res->token,
                                    strlen (res->token), seen_cb, &c->dec);
    assert_non_null (c->dec.self);
    assert_int_equal (c->dec.calls, 0);
}

static void test_round_trip (void **state)
{
    struct fixture *fx = fx_of (state);
    struct chain c = { .fx = fx };
    int before = settled_threads (), during;

    assert_int_equal (auth_pool_calls (fx->pool), 0);
    /* Threads start at the first job, not at create. */
    assert_non_null (auth_pool_encode (fx->pool, "hello", 5, 0, AUTH_UID_ANY,
                                       chain_encoded_cb, &c));
    /* >=: a sanitizer may start a helper thread with the first one. */
    during = count_threads ();
    assert_true (during >= before + AUTH_POOL_THREADS);
    run_loop (fx->loop);
    assert_int_equal (c.encoded, 1);
    assert_int_equal (c.dec.calls, 1);
    assert_int_equal (c.dec.errnum, 0);
    assert_int_equal (c.dec.len, 5);
    assert_memory_equal (c.dec.payload, "hello", 5);
    assert_int_equal (c.dec.uid, getuid ());
    assert_int_equal (c.dec.restricted_uid, AUTH_UID_ANY);
    assert_int_equal (auth_pool_calls (fx->pool), 2);
    seen_clear (&c.dec);
    auth_pool_destroy (fx->pool);
    fx->pool = NULL;
    expect_threads (during - AUTH_POOL_THREADS);
}

static void count_cb (struct auth_result *res, void *arg)
{
    int *n = arg;

    assert_int_equal (res->errnum, 0);
    assert_non_null (res->token);
    (*n)++;
}

static void test_many (void **state)
{
    struct fixture *fx = fx_of (state);
    static int counts[MANY];
    char buf[32];

    memset (counts, 0, sizeof (counts));
    for (int i = 0; i < MANY; i++) {
        int n = snprintf (buf, sizeof (buf), "job %d", i);
        assert_non_null (auth_pool_encode (fx->pool, buf, (size_t)n, 0,
                                           AUTH_UID_ANY, count_cb, &counts[i]));
    }
    run_loop (fx->loop);
    for (int i = 0; i < MANY; i++)
        if (counts[i] != 1)
            fail_msg ("job %d called %d times", i, counts[i]);
    assert_int_equal (auth_pool_calls (fx->pool), MANY);
}

static void fail_cb (struct auth_result *res, void *arg)
{
    (void)res;
    (void)arg;
    fail_msg ("callback of a cancelled or dropped job ran");
}

/* Cancel queued jobs and the one a worker may be running: none answers,
 * and the pool still serves the next job. Then cancel a job whose munge
 * call is over but whose result is not delivered. */
static void test_cancel (void **state)
{
    struct fixture *fx = fx_of (state);
    arbor_error_t err = { "" };
    struct auth_job *jobs[20];
    int done = 0;

    auth_pool_destroy (fx->pool);
    assert_non_null (fx->pool =
                         auth_pool_create (fx->loop, fx->m.socket, 1, &err));
    for (int i = 0; i < 20; i++)
        assert_non_null (jobs[i] = auth_pool_encode (
                             fx->pool, "x", 1, 0, AUTH_UID_ANY, fail_cb, NULL));
    usleep (2000); /* let the worker pick up a job or a few */
    for (int i = 19; i >= 0; i--)
        auth_job_cancel (jobs[i]);
    auth_job_cancel (NULL);
    assert_non_null (
        auth_pool_encode (fx->pool, "y", 1, 0, AUTH_UID_ANY, count_cb, &done));
    run_loop (fx->loop);
    assert_int_equal (done, 1);
    assert_true (auth_pool_calls (fx->pool) <= 21);

    /* Once the call has been made the job is no longer queued: the
     * cancel drops the result the worker posts (or has posted). */
    unsigned long calls = auth_pool_calls (fx->pool);
    struct auth_job *j =
        auth_pool_encode (fx->pool, "z", 1, 0, AUTH_UID_ANY, fail_cb, NULL);
    assert_non_null (j);
    for (int i = 0; i < 5000 && auth_pool_calls (fx->pool) == calls; i++)
        usleep (1000);
    assert_int_equal (auth_pool_calls (fx->pool), calls + 1);
    auth_job_cancel (j);
    run_loop (fx->loop);
}

/* AUTH_POOL_CALLER: no thread at all; each call is made before its
 * submission returns (the call count says so), and its callback still
 * runs only from the loop (chain_encoded_cb checks that the decode it
 * submits has not answered inside the submission); a result cancelled
 * before the loop delivers it is dropped. */
static void test_in_caller (void **state)
{
    struct fixture *fx = fx_of (state);
    arbor_error_t err = { "" };
    struct chain c = { .fx = fx };
    int before;
    struct auth_job *j;

    auth_pool_destroy (fx->pool);
    assert_non_null (fx->pool = auth_pool_create (fx->loop, fx->m.socket,
                                                  AUTH_POOL_CALLER, &err));
    /* counted now: the pool destroyed above (and an earlier test's) may
     * leave a joined thread in /proc for a moment */
    before = settled_threads ();
    assert_non_null (auth_pool_encode (fx->pool, "hello", 5, 0, AUTH_UID_ANY,
                                       chain_encoded_cb, &c));
    assert_int_equal (auth_pool_calls (fx->pool), 1);
    assert_int_equal (c.encoded, 0);
    assert_int_equal (count_threads (), before);
    run_loop (fx->loop);
    assert_int_equal (c.encoded, 1);
    assert_int_equal (c.dec.calls, 1);
    assert_int_equal (c.dec.errnum, 0);
    assert_int_equal (c.dec.len, 5);
    assert_memory_equal (c.dec.payload, "hello", 5);
    assert_int_equal (auth_pool_calls (fx->pool), 2);
    assert_int_equal (count_threads (), before);
    seen_clear (&c.dec);
    assert_non_null (j = auth_pool_encode (fx->pool, "z", 1, 0, AUTH_UID_ANY,
                                           fail_cb, NULL));
    auth_job_cancel (j);
    run_loop (fx->loop);
    assert_int_equal (auth_pool_calls (fx->pool), 3);
}

/* A token restricted to our uid decodes with the restriction reported; one
 * for another uid is refused (EPERM), except to root where munged allows
 * it, and then the pool reports whom it was for. */
static void test_restricted (void **state)
{
    struct fixture *fx = fx_of (state);
    uid_t other = getuid () == 0 ? 4242 : getuid () + 1;
    struct seen s;
    char *token;

    token = encode_wait (fx, "mine", 0, getuid ());
    decode_wait (fx, token, &s);
    assert_int_equal (s.errnum, 0);
    assert_int_equal (s.restricted_uid, getuid ());
    seen_clear (&s);
    free (token);

    token = encode_wait (fx, "theirs", 0, other);
    decode_wait (fx, token, &s);
    if (s.errnum == 0) {
        /* Only root, and only if munged was built to allow it
         * (got_root_auth in munged's dec.c). */
        assert_int_equal (getuid (), 0);
        assert_int_equal (s.restricted_uid, other);
    } else {
        assert_int_equal (s.errnum, EPERM);
        if (!strstr (s.text, "Unauthorized"))
            fail_msg ("error '%s' does not say Unauthorized", s.text);
        assert_null (s.payload);
    }
    seen_clear (&s);
    free (token);
}

static void test_expired (void **state)
{
    struct fixture *fx = fx_of (state);
    char *token = encode_wait (fx, "soon gone", 1, AUTH_UID_ANY);
    struct seen s;

    sleep (2); /* past a 1 s TTL whatever the sub-second phase */
    decode_wait (fx, token, &s);
    assert_int_equal (s.errnum, EPERM);
    if (!strstr (s.text, "Expired"))
        fail_msg ("error '%s' does not say Expired", s.text);
    assert_null (s.payload);
    seen_clear (&s);
    free (token);
}

static void test_bad_socket (void **state)
{
    struct fixture *fx = fx_of (state);
    arbor_error_t err = { "" };
    char path[400];
    struct seen s = { 0 };

    snprintf (path, sizeof (path), "%s/no-such.sock", fx->m.dir);
    auth_pool_destroy (fx->pool);
    assert_non_null (fx->pool = auth_pool_create (fx->loop, path, 1, &err));
    s.self = auth_pool_encode (fx->pool, "x", 1, 0, AUTH_UID_ANY, seen_cb, &s);
    assert_non_null (s.self);
    run_loop (fx->loop);
    assert_int_equal (s.calls, 1);
    assert_int_equal (s.errnum, EIO);
    assert_null (s.token);
    assert_true (strncmp (s.text, "munge: ", 7) == 0);
}

/* Destroy with work queued: no callback, nothing leaked, threads joined,
 * and the loop has nothing left to run. */
static void test_destroy_queued (void **state)
{
    struct fixture *fx = fx_of (state);
    arbor_error_t err = { "" };
    int before;

    auth_pool_destroy (fx->pool);
    before = settled_threads (); /* no pool thread left */
    assert_non_null (fx->pool =
                         auth_pool_create (fx->loop, fx->m.socket, 2, &err));
    for (int i = 0; i < 100; i++)
        assert_non_null (auth_pool_encode (fx->pool, "queued", 6, 0,
                                           AUTH_UID_ANY, fail_cb, NULL));
    usleep (1000);
    auth_pool_destroy (fx->pool);
    fx->pool = NULL;
    expect_threads (before);
    ev_run (fx->loop, EVRUN_NOWAIT);
    /* A pool that never ran a job starts no thread. */
    assert_non_null (fx->pool = auth_pool_create (fx->loop, NULL, 0, &err));
    assert_int_equal (count_threads (), before);
}

/* A callback may destroy the pool (a daemon shutting down): the other
 * results already posted are dropped, and nothing is used after free. */
struct shutdown {
    struct fixture *fx;
    int calls;
};

static void shutdown_cb (struct auth_result *res, void *arg)
{
    struct shutdown *sd = arg;

    (void)res;
    sd->calls++;
    auth_pool_destroy (sd->fx->pool);
    sd->fx->pool = NULL;
}

static void test_destroy_in_callback (void **state)
{
    struct fixture *fx = fx_of (state);
    struct shutdown sd = { .fx = fx };

    for (int i = 0; i < 20; i++)
        assert_non_null (auth_pool_encode (fx->pool, "bye", 3, 0, AUTH_UID_ANY,
                                           shutdown_cb, &sd));
    run_loop (fx->loop);
    assert_int_equal (sd.calls, 1);
    assert_null (fx->pool);
}

static void test_bad_args (void **state)
{
    struct fixture *fx = fx_of (state);
    int n = 0;

    errno = 0;
    assert_null (
        auth_pool_encode (fx->pool, "x", 1, 0, AUTH_UID_ANY, NULL, NULL));
    assert_int_equal (errno, EINVAL);
    errno = 0;
    assert_null (auth_pool_decode (fx->pool, NULL, 3, count_cb, &n));
    assert_int_equal (errno, EINVAL);
    errno = 0;
    assert_null (
        auth_pool_encode (NULL, "x", 1, 0, AUTH_UID_ANY, count_cb, &n));
    assert_int_equal (errno, EINVAL);
    assert_int_equal (n, 0);
}

int main (void)
{
    struct fixture fx = { 0 };
    int rc;

    if (munged_fixture_start (&fx.m) < 0)
        return arbor_skip_all ("munged could not be started");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate_setup_teardown (test_round_trip, setup,
                                                  teardown, &fx),
        cmocka_unit_test_prestate_setup_teardown (test_many, setup, teardown,
                                                  &fx),
        cmocka_unit_test_prestate_setup_teardown (test_in_caller, setup,
                                                  teardown, &fx),
        cmocka_unit_test_prestate_setup_teardown (test_cancel, setup, teardown,
                                                  &fx),
        cmocka_unit_test_prestate_setup_teardown (test_restricted, setup,
                                                  teardown, &fx),
        cmocka_unit_test_prestate_setup_teardown (test_expired, setup, teardown,
                                                  &fx),
        cmocka_unit_test_prestate_setup_teardown (test_bad_socket, setup,
                                                  teardown, &fx),
        cmocka_unit_test_prestate_setup_teardown (test_destroy_queued, setup,
                                                  teardown, &fx),
        cmocka_unit_test_prestate_setup_teardown (test_destroy_in_callback,
                                                  setup, teardown, &fx),
        cmocka_unit_test_prestate_setup_teardown (test_bad_args, setup,
                                                  teardown, &fx),
    };
    rc = cmocka_run_group_tests (tests, NULL, NULL);
    munged_fixture_stop (&fx.m);
    return arbor_test_exit (rc);
}
