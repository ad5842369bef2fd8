/* mailtype_test.c - --mail-type words to masks and back. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mailtype.h"

static uint32_t parse_ok (const char *s)
{
    arbor_error_t err = { "" };
    uint32_t m = 0xdead;

    if (mailtype_parse (s, &m, &err) < 0)
        fail_msg ("'%s': %s", s, err.text);
    return m;
}

static void test_words (void **state)
{
    assert_int_equal (parse_ok ("NONE"), 0);
    assert_int_equal (parse_ok ("begin"), MAIL_BEGIN);
    assert_int_equal (parse_ok ("BEGIN,END"), MAIL_BEGIN | MAIL_END);
    assert_int_equal (parse_ok ("none,FAIL"), MAIL_FAIL);
    assert_int_equal (parse_ok ("ALL"), MAIL_ALL);
    assert_true (parse_ok ("ALL") & MAIL_INVALID_DEPEND);
    assert_false (parse_ok ("ALL") & MAIL_TIME100);
    assert_int_equal (parse_ok ("TIME_LIMIT"), MAIL_TIME100);
    assert_int_equal (parse_ok ("TIME_LIMIT_90,TIME_LIMIT_80,TIME_LIMIT_50"),
                      MAIL_TIME90 | MAIL_TIME80 | MAIL_TIME50);
    assert_int_equal (parse_ok ("ARRAY_TASKS,REQUEUE"),
                      MAIL_ARRAY_TASKS | MAIL_REQUEUE);
}

static void test_bad (void **state)
{
    const char *bad[] = { "",           "BEGN",          "BEGIN,",  ",END",
                          "BEGIN,,END", "TIME_LIMIT_70", "END FAIL" };

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        arbor_error_t err = { "" };
        uint32_t m = 7;
        errno = 0;
        if (mailtype_parse (bad[i], &m, &err) == 0)
            fail_msg ("'%s' parsed", bad[i]);
        assert_int_equal (errno, EINVAL);
        assert_int_equal (m, 7); /* untouched */
        assert_non_null (strstr (err.text, "valid types"));
    }
    arbor_error_t err = { "" };
    uint32_t m;
    assert_int_equal (mailtype_parse ("BEGIN,FOO", &m, &err), -1);
    assert_non_null (strstr (err.text, "'FOO'"));
}

static void test_str (void **state)
{
    char buf[MAILTYPE_STR_LEN];

    assert_string_equal (mailtype_str (0, buf, sizeof (buf)), "NONE");
    assert_string_equal (
        mailtype_str (MAIL_END | MAIL_BEGIN, buf, sizeof (buf)), "BEGIN,END");
    assert_string_equal (mailtype_str (MAIL_ALL, buf, sizeof (buf)),
                         "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT");
    assert_string_equal (mailtype_str (MAIL_KNOWN, buf, sizeof (buf)),
                         "ARRAY_TASKS,INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,"
                         "STAGE_OUT,TIME_LIMIT_50,TIME_LIMIT_80,"
                         "TIME_LIMIT_90,TIME_LIMIT");
    /* a short buffer is cut, never overrun */
    char small[8];
    mailtype_str (MAIL_ALL, small, sizeof (small));
    assert_true (strlen (small) < sizeof (small));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_words),
        cmocka_unit_test (test_bad),
        cmocka_unit_test (test_str),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
