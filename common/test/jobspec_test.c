/* jobspec_test.c - job array, dependency and begin-time expressions
 * (arrayspec.c, depspec.c, begintime.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "arrayspec.h"
#include "begintime.h"
#include "depspec.h"

static void test_array_forms (void **state)
{
    struct arrayspec a;
    arbor_error_t err;

    assert_int_equal (arrayspec_parse ("0-99%10,200", 1000, &a, &err), 0);
    assert_int_equal (a.n, 101);
    assert_int_equal (a.ids[0], 0);
    assert_int_equal (a.ids[99], 99);
    assert_int_equal (a.ids[100], 200);
    assert_int_equal (a.throttle, 10);
    arrayspec_clear (&a);
    assert_int_equal (arrayspec_parse ("7,1-9:4,7", 1000, &a, &err), 0);
    assert_int_equal (a.n, 4); /* 1 5 9 and 7, once */
    arrayspec_clear (&a);
    assert_int_equal (arrayspec_parse ("1-9:4,7", 1000, &a, &err), 0);
    assert_int_equal (a.n, 4);
    assert_int_equal (a.ids[0], 1);
    assert_int_equal (a.ids[1], 5);
    assert_int_equal (a.ids[2], 7);
    assert_int_equal (a.ids[3], 9);
    assert_int_equal (a.throttle, 0);
    arrayspec_clear (&a);
    assert_int_equal (arrayspec_parse ("1000", 1000, &a, &err), 0);
    arrayspec_clear (&a);
}

static void test_array_errors (void **state)
{
    static const char *const bad[] = {
        "",    "x",      "1-",     "5-2", "1-9:0", "1,,2",        "1%",
        "1%0", "0-1001", "1-3%2x", "-1",  "1-3:",  "99999999999",
    };
    struct arrayspec a = { .n = 77 };
    arbor_error_t err;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        assert_int_equal (arrayspec_parse (bad[i], 1000, &a, &err), -1);
        assert_int_equal (errno, EINVAL);
        assert_non_null (strstr (err.text, "invalid --array"));
        assert_int_equal (a.n, 77);
    }
    assert_int_equal (arrayspec_parse ("0-1001", 1000, &a, &err), -1);
    assert_non_null (strstr (err.text, "index 1001 is over"));
}

/* A huge MaxArraySize is capped at ARRAYSPEC_MAX_INDEX: no index past it,
 * and no multi-gigabyte allocation per parse. */
static void test_array_cap (void **state)
{
    struct arrayspec a = { .n = 77 };
    arbor_error_t err;

    assert_int_equal (arrayspec_parse ("4000000", UINT32_MAX, &a, &err), 0);
    assert_int_equal (a.n, 1);
    assert_int_equal (a.ids[0], 4000000);
    arrayspec_clear (&a);
    a.n = 77;
    assert_int_equal (arrayspec_parse ("0,4000001", UINT32_MAX, &a, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "index 4000001 is over"));
    assert_non_null (strstr (err.text, "4000000"));
    assert_int_equal (a.n, 77);
}

static void test_dep_forms (void **state)
{
    struct depspec d;
    arbor_error_t err;

    assert_int_equal (depspec_parse ("afterok:5:6_2,afternotok:7", &d, &err),
                      0);
    assert_int_equal (d.n, 3);
    assert_false (d.any);
    assert_int_equal (d.deps[0].type, DEP_AFTEROK);
    assert_int_equal (d.deps[0].job_id, 5);
    assert_int_equal (d.deps[0].task, DEP_ALL_TASKS);
    assert_int_equal (d.deps[1].job_id, 6);
    assert_int_equal (d.deps[1].task, 2);
    assert_int_equal (d.deps[2].type, DEP_AFTERNOTOK);
    depspec_clear (&d);
    assert_int_equal (depspec_parse ("after:1?afterany:2?singleton", &d, &err),
                      0);
    assert_true (d.any);
    assert_int_equal (d.n, 3);
    assert_int_equal (d.deps[2].type, DEP_SINGLETON);
    depspec_clear (&d);
    assert_string_equal (dep_type_name (DEP_AFTERNOTOK), "afternotok");
}

static void test_dep_errors (void **state)
{
    static const char *const bad[] = {
        "",           "afterok",     "afterok:",
        "afterok:x",  "afterok:5,",  "afterok:5?afterany:6,after:7",
        "before:5",   "singleton:5", "afterok:5:",
        "afterok:0",  "afterok:5_",  "afterok:5x",
        ",afterok:5", "aftercorr:5",
    };
    struct depspec d = { .n = 9 };
    arbor_error_t err;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        assert_int_equal (depspec_parse (bad[i], &d, &err), -1);
        assert_int_equal (errno, EINVAL);
        assert_non_null (strstr (err.text, "--dependency"));
        assert_int_equal (d.n, 9);
    }
}

static void test_begin (void **state)
{
    time_t now = 1700000000, t;
    struct tm tm;
    arbor_error_t err;

    assert_int_equal (begin_parse ("now", now, &t, &err), 0);
    assert_int_equal (t, now);
    assert_int_equal (begin_parse ("now+60", now, &t, &err), 0);
    assert_int_equal (t, now + 60);
    assert_int_equal (begin_parse ("now+2hours", now, &t, &err), 0);
    assert_int_equal (t, now + 7200);
    assert_int_equal (begin_parse ("NOW+1d", now, &t, &err), 0);
    assert_int_equal (t, now + 86400);
    assert_int_equal (begin_parse ("2030-01-02T03:04:05", now, &t, &err), 0);
    localtime_r (&t, &tm);
    assert_int_equal (tm.tm_year, 130);
    assert_int_equal (tm.tm_mday, 2);
    assert_int_equal (tm.tm_sec, 5);
    assert_int_equal (begin_parse ("2030-01-02", now, &t, &err), 0);
    localtime_r (&t, &tm);
    assert_int_equal (tm.tm_hour, 0);
    assert_int_equal (begin_parse ("16:00", now, &t, &err), 0);
    assert_true (t > now && t <= now + 86400);
    localtime_r (&t, &tm);
    assert_int_equal (tm.tm_hour, 16);
    assert_int_equal (begin_parse ("teatime", now, &t, &err), 0);
    localtime_r (&t, &tm);
    assert_int_equal (tm.tm_hour, 16);
    assert_int_equal (begin_parse ("tomorrow", now, &t, &err), 0);
    assert_true (t > now);
    assert_int_equal (begin_parse ("2028-02-29", now, &t, &err), 0);
    localtime_r (&t, &tm);
    assert_int_equal (tm.tm_mon, 1);
    assert_int_equal (tm.tm_mday, 29);
    static const char *const bad[] = {
        "",      "now+",       "now+5 parsecs", "25:00",
        "12:60", "2030-13-01", "2030-1-1",      "later",
        "now-5", "10:00:99",   "2030-01-02T10"
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        assert_int_equal (begin_parse (bad[i], now, &t, &err), -1);
        assert_non_null (strstr (err.text, "invalid --begin"));
    }
}

/* Far begin times: refused, never read as "now" (2^64-1 as a time_t is
 * -1, which had started a job at once). */
static void test_begin_horizon (void **state)
{
    time_t now = 1700000000, t = 0;
    arbor_error_t err;

    (void)state;
    assert_int_equal (begin_check (0, now, &err), 0); /* none */
    assert_int_equal (begin_check ((uint64_t)now, now, &err), 0);
    assert_int_equal (begin_check ((uint64_t)now + BEGIN_MAX_AHEAD, now, &err),
                      0);
    assert_int_equal (begin_check (12345, now, &err), 0); /* the past */
    assert_int_equal (
        begin_check ((uint64_t)now + BEGIN_MAX_AHEAD + 1, now, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "more than 100 years ahead"));
    assert_int_equal (begin_check (UINT64_MAX, now, &err), -1);
    assert_non_null (strstr (err.text, "18446744073709551615"));
    assert_int_equal (begin_check ((uint64_t)INT64_MAX + 1, now, &err), -1);
    /* the parser: 100 years ahead at most, dates and offsets alike */
    assert_int_equal (begin_parse ("9999-01-01", now, &t, &err), -1);
    assert_non_null (strstr (err.text, "more than 100 years ahead"));
    assert_int_equal (begin_parse ("now+5000000weeks", now, &t, &err), -1);
    assert_non_null (strstr (err.text, "invalid --begin"));
    assert_int_equal (t, 0); /* untouched */
    assert_int_equal (begin_parse ("now+5000weeks", now, &t, &err), 0);
    assert_int_equal (t, now + 5000LL * 604800);
}

/* Every unit name Slurm takes, singular, plural and short, any case. */
static void test_begin_units (void **state)
{
    static const struct {
        const char *s;
        long long secs;
    } ok[] = {
        { "now+1hour", 3600 },   { "now+3second", 3 },
        { "now+3seconds", 3 },   { "now+3sec", 3 },
        { "now+3s", 3 },         { "now+2minute", 120 },
        { "now+2minutes", 120 }, { "now+2min", 120 },
        { "now+2m", 120 },       { "now+1hours", 3600 },
        { "now+1h", 3600 },      { "now+1day", 86400 },
        { "now+2days", 172800 }, { "now+1d", 86400 },
        { "now+1week", 604800 }, { "now+2weeks", 1209600 },
        { "now+1w", 604800 },    { "now+1HOUR", 3600 },
        { "NOW+5Minute", 300 },  { "now+1Sec", 1 },
    };
    time_t now = 1700000000, t;
    arbor_error_t err;

    for (size_t i = 0; i < sizeof (ok) / sizeof (ok[0]); i++) {
        assert_int_equal (begin_parse (ok[i].s, now, &t, &err), 0);
        assert_int_equal (t, now + ok[i].secs);
    }
}

/* mktime would roll these into the next month; they must fail. */
static void test_begin_bad_dates (void **state)
{
    static const char *const bad[] = {
        "2030-02-31", "2030-02-29",          "2030-04-31",
        "2030-06-31", "2030-02-30T10:00:00", "2030-11-31T00:00",
        "now+1hourz", "now+1 hour",          "now+1hr",
    };
    time_t now = 1700000000, t = 12345;
    arbor_error_t err;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        assert_int_equal (begin_parse (bad[i], now, &t, &err), -1);
        assert_int_equal (errno, EINVAL);
        assert_non_null (strstr (err.text, "invalid --begin"));
        assert_int_equal (t, 12345); /* untouched on failure */
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_array_forms),
        cmocka_unit_test (test_array_errors),
        cmocka_unit_test (test_array_cap),
        cmocka_unit_test (test_dep_forms),
        cmocka_unit_test (test_dep_errors),
        cmocka_unit_test (test_begin),
        cmocka_unit_test (test_begin_horizon),
        cmocka_unit_test (test_begin_units),
        cmocka_unit_test (test_begin_bad_dates),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
