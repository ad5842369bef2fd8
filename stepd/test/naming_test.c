/* naming_test.c - step names and the termination banner. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "naming.h"
#include "proto.h"

static void test_step_name (void **state)
{
    char buf[32];

    assert_string_equal (step_name (buf, sizeof (buf), 5, 0), "5.0");
    assert_string_equal (step_name (buf, sizeof (buf), 7, 12), "7.12");
    assert_string_equal (step_name (buf, sizeof (buf), 5, STEP_ID_BATCH),
                         "5.batch");
    assert_string_equal (step_name (buf, sizeof (buf), 5, STEP_ID_EXTERN),
                         "5.extern");
}

static void test_banner (void **state)
{
    struct tm tm = { .tm_year = 126,
                     .tm_mon = 10,
                     .tm_mday = 22,
                     .tm_hour = 3,
                     .tm_isdst = -1 };
    time_t when = mktime (&tm); /* local time, as the banner prints */
    char buf[256], tiny[16];
    int n = term_banner (buf, sizeof (buf), stepd_who (false), 5, 0, "node1",
                         "CANCELLED", when);

    assert_int_equal (n, (int)strlen (buf));
    assert_string_equal (buf, "arbor-stepd: error: *** STEP 5.0 ON node1 "
                              "CANCELLED AT 2026-11-22T03:00:00 ***\n");
    term_banner (buf, sizeof (buf), stepd_who (true), 9, 2, "n3", "TIMEOUT",
                 when);
    assert_string_equal (buf, "slurmstepd: error: *** STEP 9.2 ON n3 "
                              "CANCELLED AT 2026-11-22T03:00:00 DUE TO TIME "
                              "LIMIT ***\n");
    term_banner (buf, sizeof (buf), stepd_who (true), 9, STEP_ID_BATCH, "n3",
                 "TIMEOUT", when);
    assert_string_equal (buf, "slurmstepd: error: *** JOB 9 ON n3 "
                              "CANCELLED AT 2026-11-22T03:00:00 DUE TO TIME "
                              "LIMIT ***\n");
    term_banner (buf, sizeof (buf), stepd_who (true), 9, STEP_ID_BATCH, "n3",
                 "REQUEUED", when);
    assert_non_null (strstr (buf,
                             "*** JOB 9 ON n3 CANCELLED AT "
                             "2026-11-22T03:00:00 DUE TO JOB REQUEUE ***"));
    term_banner (buf, sizeof (buf), stepd_who (true), 9, 2, "n3", "NODE_FAIL",
                 when);
    assert_non_null (strstr (buf, " CANCELLED AT 2026-11-22T03:00:00 DUE TO "
                                  "NODE FAILURE ***"));
    term_banner (buf, sizeof (buf), stepd_who (true), 9, 2, "n3", "", when);
    assert_non_null (strstr (buf, " CANCELLED AT "));
    term_banner (buf, sizeof (buf), stepd_who (true), 9, 2, "n3", NULL, when);
    assert_non_null (strstr (buf, " CANCELLED AT "));
    assert_int_equal (term_banner (tiny, sizeof (tiny), stepd_who (true), 9, 2,
                                   "n3", NULL, when),
                      15);
    assert_int_equal (term_banner (buf, sizeof (buf), stepd_who (true), 9, 2,
                                   NULL, NULL, when),
                      -1);
    assert_int_equal (errno, EINVAL);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_step_name),
        cmocka_unit_test (test_banner),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
