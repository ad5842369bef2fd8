/* timestr_test.c - unit tests for Slurm time limit parsing/formatting. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "timestr.h"

static void check (const char *s, uint32_t want)
{
    arbor_error_t err = { "" };
    uint32_t m = 12345;

    if (timestr_parse (s, &m, &err) < 0)
        fail_msg ("'%s': %s", s, err.text);
    if (m != want)
        fail_msg ("'%s': got %u, want %u", s, m, want);
}

static void check_bad (const char *s)
{
    arbor_error_t err = { "" };
    uint32_t m = 777;

    errno = 0;
    if (timestr_parse (s, &m, &err) == 0)
        fail_msg ("'%s' parsed as %u", s, m);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (m, 777); /* untouched on failure */
    assert_true (strlen (err.text) > 0);
}

static void test_minutes (void **state)
{
    check ("0", 0);
    check ("1", 1);
    check ("60", 60);
    check ("90", 90);
}

static void test_min_sec (void **state)
{
    check ("0:30", 1); /* seconds round up */
    check ("1:00", 1);
    check ("1:01", 2);
    check ("0:00", 0);
    check ("2:59", 3);
    check ("0:90", 2);
}

static void test_hms (void **state)
{
    check ("1:00:00", 60);
    check ("1:30:00", 90);
    check ("0:00:01", 1);
    check ("10:00:30", 601);
}

static void test_days (void **state)
{
    check ("1-0", 1440);
    check ("2-3", 2 * 1440 + 180);
    check ("1-2:30", 1440 + 150);
    check ("1-0:0:1", 1441);
    check ("0-0:0:0", 0);
    check ("7-00:00:00", 7 * 1440);
}

static void test_infinite (void **state)
{
    check ("INFINITE", TIME_INFINITE);
    check ("UNLIMITED", TIME_INFINITE);
    check ("unlimited", TIME_INFINITE);
    check ("Infinite", TIME_INFINITE);
    check ("-1", TIME_INFINITE);
}

static void test_bad (void **state)
{
    arbor_error_t err = { "" };

    check_bad ("");
    check_bad ("abc");
    check_bad ("1:");
    check_bad (":1");
    check_bad ("1:2:3:4");
    check_bad ("1-");
    check_bad ("-5");
    check_bad ("1-2-3");
    check_bad ("1-2:3:4:5");
    check_bad ("1.5");
    check_bad (" 1");
    check_bad ("1x");
    check_bad ("9999999999");
    check_bad ("999999999-0"); /* overflows 32-bit minutes */
    assert_int_equal (timestr_parse ("x1", &(uint32_t){ 0 }, &err), -1);
    assert_non_null (strstr (err.text, "'x1' is not a time limit"));
}

static void test_format (void **state)
{
    char buf[32];

    assert_string_equal (timestr_format (0, buf, sizeof (buf)), "00:00:00");
    assert_string_equal (timestr_format (90, buf, sizeof (buf)), "01:30:00");
    assert_string_equal (timestr_format (1440, buf, sizeof (buf)),
                         "1-00:00:00");
    assert_string_equal (timestr_format (1440 * 3 + 61, buf, sizeof (buf)),
                         "3-01:01:00");
    assert_string_equal (timestr_format (TIME_INFINITE, buf, sizeof (buf)),
                         "UNLIMITED");
    /* Truncates rather than overflowing a short buffer. */
    assert_string_equal (timestr_format (90, buf, 3), "01");
}

/* What timestr_format writes, timestr_parse reads back. */
static void test_round_trip (void **state)
{
    static const uint32_t v[] = { 0,    1,    59,     60,           61,
                                  1439, 1440, 100000, TIME_INFINITE };
    char buf[32];

    for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++)
        check (timestr_format (v[i], buf, sizeof (buf)), v[i]);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_minutes),  cmocka_unit_test (test_min_sec),
        cmocka_unit_test (test_hms),      cmocka_unit_test (test_days),
        cmocka_unit_test (test_infinite), cmocka_unit_test (test_bad),
        cmocka_unit_test (test_format),   cmocka_unit_test (test_round_trip),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
