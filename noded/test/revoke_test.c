/* revoke_test.c - the cache of revoked steps: matching, expiry, bound, and
 * what it cannot vouch for (a restart, an eviction: revoke_unsure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "proto.h"
#include "revoke.h"

static void test_exact_step (void **state)
{
    struct revoke *r = revoke_create (16);

    assert_non_null (r);
    assert_false (revoke_check (r, 5, 0, 0, 1000));
    revoke_add (r, 5, 0, 0, 1300);
    assert_true (revoke_check (r, 5, 0, 0, 1000));
    assert_false (revoke_check (r, 5, 0, 1, 1000));
    assert_false (revoke_check (r, 6, 0, 0, 1000));
    /* a requeued job's next run is not revoked by its first one's end */
    revoke_add (r, 9, 0, STEP_ID_ALL, 1300);
    assert_true (revoke_check (r, 9, 0, STEP_ID_BATCH, 1000));
    assert_false (revoke_check (r, 9, 1, STEP_ID_BATCH, 1000));
    assert_false (revoke_check (r, 9, 1, 0, 1000));
    revoke_destroy (r);
}

static void test_all_steps (void **state)
{
    struct revoke *r = revoke_create (16);

    revoke_add (r, 7, 0, STEP_ID_ALL, 1300);
    assert_true (revoke_check (r, 7, 0, 0, 1000));
    assert_true (revoke_check (r, 7, 0, 42, 1000));
    assert_false (revoke_check (r, 8, 0, 0, 1000));
    revoke_destroy (r);
}

static void test_expiry (void **state)
{
    struct revoke *r = revoke_create (16);

    revoke_add (r, 5, 0, STEP_ID_ALL, 1300);
    assert_true (revoke_check (r, 5, 0, 3, 1299));
    assert_false (revoke_check (r, 5, 0, 3, 1300));
    assert_int_equal (revoke_count (r, 1299), 1);
    assert_int_equal (revoke_count (r, 1300), 0);
    /* re-adding extends, never shortens */
    revoke_add (r, 5, 0, STEP_ID_ALL, 2000);
    revoke_add (r, 5, 0, STEP_ID_ALL, 1500);
    assert_true (revoke_check (r, 5, 0, 3, 1900));
    assert_int_equal (revoke_count (r, 0), 1);
    revoke_destroy (r);
}

static void test_bounded (void **state)
{
    struct revoke *r = revoke_create (4);

    /* full of live entries: the one expiring first is replaced */
    revoke_add (r, 1, 0, STEP_ID_ALL, 500);
    revoke_add (r, 2, 0, STEP_ID_ALL, 100);
    revoke_add (r, 3, 0, STEP_ID_ALL, 600);
    revoke_add (r, 4, 0, STEP_ID_ALL, 700);
    revoke_add (r, 5, 0, STEP_ID_ALL, 800);
    assert_int_equal (revoke_count (r, 0), 4);
    assert_false (revoke_check (r, 2, 0, 0, 50));
    assert_true (revoke_check (r, 1, 0, 0, 50));
    assert_true (revoke_check (r, 5, 0, 0, 50));
    /* expired entries are reused before live ones */
    revoke_add (r, 6, 0, 0, 900); /* at now=550, entry 1 (500) has expired */
    assert_true (revoke_check (r, 3, 0, 0, 550));
    assert_true (revoke_check (r, 6, 0, 0, 550));
    assert_false (revoke_check (r, 1, 0, 0, 0));
    for (uint32_t j = 100; j < 1000; j++)
        revoke_add (r, j, 0, 0, 10000 + j);
    assert_int_equal (revoke_count (r, 0), 4);
    assert_true (revoke_check (r, 999, 0, 0, 0));
    revoke_destroy (r);
}

/* Issue 32 item 8: a cache made at 1000 knows nothing revoked before: a
 * credential issued earlier (or within the clock skew margin, or with no
 * issue time) is unsure; one issued later is decided here. */
static void test_unsure_after_start (void **state)
{
    struct revoke *r = revoke_create_at (16, 1000);

    assert_non_null (r);
    assert_true (revoke_unsure (r, 0, 1300));
    assert_true (revoke_unsure (r, 700, 1000 + 1));
    assert_true (revoke_unsure (r, 999, 1299));
    assert_true (revoke_unsure (r, 1000 + REVOKE_SKEW - 1, 1300));
    assert_false (revoke_unsure (r, 1000 + REVOKE_SKEW, 1300));
    assert_false (revoke_unsure (r, 2000, 2300));
    assert_int_equal (revoke_evicted_until (r), 0);
    revoke_destroy (r);
}

/* A full cache evicts the entry expiring first; every credential expiring
 * by then (plus the margin) may be of that step and becomes unsure, while
 * newer ones, expiring later, are still decided here. Reusing an entry of
 * the same step, or a free slot, evicts nothing. */
static void test_unsure_after_eviction (void **state)
{
    struct revoke *r = revoke_create_at (4, 0);

    assert_non_null (r);
    for (uint32_t job = 1; job <= 4; job++)
        revoke_add (r, job, 0, 0, 1000 + job * 100);
    revoke_add (r, 2, 0, 0, 1250); /* the same step: not an eviction */
    assert_int_equal (revoke_evicted_until (r), 0);
    assert_false (revoke_unsure (r, 900, 1100));

    revoke_add (r, 5, 0, 0, 1500); /* evicts job 1 (expires 1100) */
    assert_int_equal (revoke_evicted_until (r), 1100);
    assert_false (revoke_check (r, 1, 0, 0, 1000)); /* forgotten ... */
    assert_true (revoke_unsure (r, 900, 1100));     /* ... so unsure */
    assert_true (revoke_unsure (r, 900, 1100 + REVOKE_SKEW));
    assert_false (revoke_unsure (r, 900, 1100 + REVOKE_SKEW + 1));
    revoke_add (r, 6, 0, 0, 1600); /* evicts job 2 (1250) */
    assert_int_equal (revoke_evicted_until (r), 1250);
    assert_true (revoke_unsure (r, 900, 1200));
    assert_false (revoke_unsure (r, 900, 1600));
    revoke_destroy (r);
}

/* The default capacity too: the 4,097th live revocation evicts. */
static void test_default_capacity_evicts (void **state)
{
    struct revoke *r = revoke_create_at (REVOKE_DEFAULT_MAX, 0);

    for (uint32_t job = 1; job <= REVOKE_DEFAULT_MAX; job++)
        revoke_add (r, job, 0, 0, 10000 + job);
    assert_int_equal (revoke_evicted_until (r), 0);
    revoke_add (r, REVOKE_DEFAULT_MAX + 1, 0, 0, 20000);
    assert_int_equal (revoke_evicted_until (r), 10001);
    assert_true (revoke_unsure (r, 5000, 10001));
    assert_false (revoke_unsure (r, 5000, 20000));
    revoke_destroy (r);
}

static void test_create_zero (void **state)
{
    assert_null (revoke_create (0));
    revoke_destroy (NULL);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_exact_step),
        cmocka_unit_test (test_all_steps),
        cmocka_unit_test (test_expiry),
        cmocka_unit_test (test_bounded),
        cmocka_unit_test (test_create_zero),
        cmocka_unit_test (test_unsure_after_start),
        cmocka_unit_test (test_unsure_after_eviction),
        cmocka_unit_test (test_default_capacity_evicts),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
