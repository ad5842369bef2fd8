/* words_test.c - shell-like word splitting and line iteration. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "words.h"

/* Split s with 'flags' and compare with the NULL-terminated 'want'. */
static void check_flags (const char *s, int flags, const char *const *want)
{
    struct words w = { NULL, 0, 0 };
    arbor_error_t err = { "" };
    size_t n = 0;

    if (words_split (&w, s, strlen (s), flags, &err) < 0)
        fail_msg ("'%s': %s", s, err.text);
    while (want[n])
        n++;
    if (w.n != n)
        fail_msg ("'%s': %zu words, want %zu", s, w.n, n);
    for (size_t i = 0; i < n; i++)
        if (strcmp (w.v[i], want[i]))
            fail_msg ("'%s': word %zu is '%s', want '%s'", s, i, w.v[i],
                      want[i]);
    if (n > 0)
        assert_null (w.v[n]);
    else
        assert_null (w.v);
    words_clear (&w);
}

#define CHECK(s, ...) check_flags (s, 0, (const char *[]){ __VA_ARGS__ })

static void check_bad (const char *s, const char *why)
{
    struct words w = { NULL, 0, 0 };
    arbor_error_t err = { "" };

    errno = 0;
    if (words_split (&w, s, strlen (s), 0, &err) == 0)
        fail_msg ("'%s' split", s);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, why));
    assert_int_equal (w.n, 0);
    assert_null (w.v);
}

static void test_blanks (void **state)
{
    CHECK ("", NULL);
    CHECK ("   \t ", NULL);
    CHECK ("a", "a", NULL);
    CHECK ("  -N   2\t--x=y  ", "-N", "2", "--x=y", NULL);
    CHECK ("a\rb\vc\fd", "a", "b", "c", "d", NULL);
}

static void test_single (void **state)
{
    CHECK ("'a b'", "a b", NULL);
    CHECK ("'a \"b\" \\c $d #e'", "a \"b\" \\c $d #e", NULL);
    CHECK ("x'y z'w", "xy zw", NULL);
    CHECK ("'' a", "", "a", NULL);
}

static void test_double (void **state)
{
    CHECK ("--job-name=\"my job\"", "--job-name=my job", NULL);
    CHECK ("\"a\\\"b\"", "a\"b", NULL);
    CHECK ("\"a\\\\b\"", "a\\b", NULL);
    CHECK ("\"a\\nb\"", "a\\nb", NULL); /* other backslashes stay */
    CHECK ("\"it's\"", "it's", NULL);
    CHECK ("\"\"", "", NULL);
    CHECK ("\"a\"'b'c", "abc", NULL);
}

static void test_backslash (void **state)
{
    CHECK ("a\\ b", "a b", NULL);
    CHECK ("\\'x", "'x", NULL);
    CHECK ("\\\"x", "\"x", NULL);
    CHECK ("\\#x", "#x", NULL);
    CHECK ("\\\\", "\\", NULL);
    CHECK ("a\\", "a\\", NULL); /* a trailing backslash is kept */
}

static void test_comment (void **state)
{
    CHECK ("# all comment", NULL);
    CHECK ("-N 2   # two nodes", "-N", "2", NULL);
    CHECK ("-N 2 #'unterminated", "-N", "2", NULL);
    CHECK ("a#b c", "a#b", "c", NULL);
    CHECK ("'#a' \"#b\"", "#a", "#b", NULL);
}

static void test_percent (void **state)
{
    const char *plain[] = { "%t", "%o", "%t", "%", NULL };
    const char *quoted[] = { "%t", "%%o", "%%t", "%%", NULL };

    check_flags ("%t '%o' \\%t \"%\"", 0,
                 (const char *[]){ "%t", "%o", "%t", "%", NULL });
    check_flags ("%t %o %t %", WORDS_QUOTE_PERCENT, plain);
    check_flags ("%t '%o' \\%t \"%\"", WORDS_QUOTE_PERCENT, quoted);
}

static void test_bad (void **state)
{
    check_bad ("'abc", "unterminated single quote");
    check_bad ("a \"b", "unterminated double quote");
    check_bad ("\"a\\\"", "unterminated double quote");
    check_bad ("x 'y", "unterminated");
}

/* A failed split leaves earlier words as they were. */
static void test_no_side_effects (void **state)
{
    struct words w = { NULL, 0, 0 };
    arbor_error_t err;
    const char nul[] = { 'a', ' ', '\0', 'b' };

    assert_int_equal (words_split (&w, "a b", 3, 0, &err), 0);
    assert_int_equal (words_split (&w, "c 'd", 4, 0, &err), -1);
    assert_int_equal (w.n, 2);
    assert_string_equal (w.v[1], "b");
    assert_null (w.v[2]);
    errno = 0;
    assert_int_equal (words_split (&w, nul, sizeof (nul), 0, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "NUL"));
    assert_int_equal (w.n, 2);
    assert_int_equal (words_split (&w, "c", 1, 0, &err), 0);
    assert_int_equal (words_append (&w, "d e"), 0);
    assert_int_equal (w.n, 4);
    assert_string_equal (w.v[2], "c");
    assert_string_equal (w.v[3], "d e");
    words_clear (&w);
    assert_null (w.v);
    assert_int_equal (w.n, 0);
    words_clear (&w);
    words_clear (NULL);
}

/* Many words make the vector grow. */
static void test_many (void **state)
{
    struct words w = { NULL, 0, 0 };
    char line[3000];
    size_t len = 0;

    for (int i = 0; i < 1000; i++)
        len +=
            (size_t)snprintf (line + len, sizeof (line) - len, "%d ", i % 100);
    assert_int_equal (words_split (&w, line, len, 0, NULL), 0);
    assert_int_equal (w.n, 1000);
    assert_string_equal (w.v[999], "99");
    assert_null (w.v[1000]);
    words_clear (&w);
}

static void test_lines (void **state)
{
    const char text[] = "one\r\n\ntwo\nthree\r";
    const char *want[] = { "one", "", "two", "three" };
    const char *line;
    size_t pos = 0, len, n = 0;

    while (words_next_line (text, strlen (text), &pos, &line, &len)) {
        assert_true (n < 4);
        assert_int_equal (len, strlen (want[n]));
        assert_memory_equal (line, want[n], len);
        n++;
    }
    assert_int_equal (n, 4);
    pos = 0;
    assert_true (words_next_line ("a\n", 2, &pos, &line, &len));
    assert_false (words_next_line ("a\n", 2, &pos, &line, &len));
    pos = 0;
    assert_false (words_next_line ("", 0, &pos, &line, &len));
    pos = 0;
    assert_true (words_next_line ("\n", 1, &pos, &line, &len));
    assert_int_equal (len, 0);
    assert_false (words_next_line ("\n", 1, &pos, &line, &len));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_blanks),
        cmocka_unit_test (test_single),
        cmocka_unit_test (test_double),
        cmocka_unit_test (test_backslash),
        cmocka_unit_test (test_comment),
        cmocka_unit_test (test_percent),
        cmocka_unit_test (test_bad),
        cmocka_unit_test (test_no_side_effects),
        cmocka_unit_test (test_many),
        cmocka_unit_test (test_lines),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
