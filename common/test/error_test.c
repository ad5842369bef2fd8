/* error_test.c - unit tests for error.c: errprintf() returns -1, fills
 * the text and keeps errno; errappend() joins sentences with "; " and
 * cuts to fit; errno_text() starts strerror lower case, leaves acronyms
 * alone and fits any buffer. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"

static void test_errprintf (void **state)
{
    arbor_error_t err;

    errno = EINTR;
    assert_int_equal (errprintf (&err, "bad key '%s'", "X"), -1);
    assert_string_equal (err.text, "bad key 'X'");
    assert_int_equal (errno, EINTR);
    assert_int_equal (errprintf (NULL, "ignored"), -1);
}

static void test_errappend (void **state)
{
    arbor_error_t err = { "" };
    char big[400];

    (void)state;
    errno = EPERM;
    errappend (&err, "job %u: %s", 5u, "denied");
    errappend (&err, "job %u: %s", 6u, "gone");
    assert_string_equal (err.text, "job 5: denied; job 6: gone");
    assert_int_equal (errno, EPERM);
    memset (big, 'x', sizeof (big) - 1);
    big[sizeof (big) - 1] = '\0';
    errappend (&err, "%s", big); /* cut to fit, still terminated */
    assert_int_equal (strlen (err.text), sizeof (err.text) - 1);
    errappend (&err, "more"); /* full: nothing added */
    assert_int_equal (strlen (err.text), sizeof (err.text) - 1);
    errappend (NULL, "ignored");
}

static void test_errno_text (void **state)
{
    char buf[64], small[4];

    assert_string_equal (errno_text (ECONNREFUSED, buf, sizeof (buf)),
                         "connection refused");
    assert_ptr_equal (errno_text (ENOENT, small, sizeof (small)), small);
    assert_int_equal (strlen (small), 3);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_errprintf),
        cmocka_unit_test (test_errno_text),
        cmocka_unit_test (test_errappend),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
