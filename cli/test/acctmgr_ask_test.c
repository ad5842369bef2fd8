/* acctmgr_ask_test.c - sacctmgr's commit question (acctmgr/acctmgr_ask.h)
 * answered through a pipe: y or Y first, anything else, end of input
 * and the time limit; the prompt's words and nothing read past the line.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "acctmgr/acctmgr.h"

/* Ask with 'input' waiting in a pipe (closed after it when eof). What
 * the question printed goes to *out when not NULL (caller frees). */
static enum acctmgr_answer ask (const char *input, bool eof, int timeout_ms,
                                char **out, int *rest_fd)
{
    int fds[2];
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    enum acctmgr_answer a;

    assert_non_null (f);
    assert_int_equal (pipe (fds), 0);
    assert_int_equal (write (fds[1], input, strlen (input)),
                      (ssize_t)strlen (input));
    if (eof)
        close (fds[1]);
    a = acctmgr_ask (f, fds[0], timeout_ms);
    fclose (f);
    if (!eof)
        close (fds[1]);
    if (rest_fd)
        *rest_fd = fds[0];
    else
        close (fds[0]);
    if (out)
        *out = buf;
    else
        free (buf);
    return a;
}

static void test_prompt (void **state)
{
    char *out;

    (void)state;
    assert_int_equal (ask ("y\n", false, 1000, &out, NULL), ACCTMGR_YES);
    assert_string_equal (out, "Would you like to commit changes? (You have "
                              "30 seconds to decide)\n(N/y): ");
    free (out);
}

static void test_answers (void **state)
{
    (void)state;
    assert_int_equal (ask ("Y\n", false, 1000, NULL, NULL), ACCTMGR_YES);
    assert_int_equal (ask ("  yes please\n", false, 1000, NULL, NULL),
                      ACCTMGR_YES);
    assert_int_equal (ask ("n\n", false, 1000, NULL, NULL), ACCTMGR_NO);
    assert_int_equal (ask ("no y\n", false, 1000, NULL, NULL), ACCTMGR_NO);
    assert_int_equal (ask ("\n", false, 1000, NULL, NULL), ACCTMGR_NO);
    /* The last line without its newline, at the end of input. */
    assert_int_equal (ask ("y", true, 1000, NULL, NULL), ACCTMGR_YES);
}

static void test_unanswered (void **state)
{
    (void)state;
    assert_int_equal (ask ("", true, 1000, NULL, NULL), ACCTMGR_UNANSWERED);
    assert_int_equal (ask ("", false, 50, NULL, NULL), ACCTMGR_UNANSWERED);
    /* Half a line when the time runs out is no answer. */
    assert_int_equal (ask ("y", false, 50, NULL, NULL), ACCTMGR_UNANSWERED);
}

/* Only the answer's line is taken from the descriptor. */
static void test_reads_one_line (void **state)
{
    char rest[16] = "";
    int fd;

    (void)state;
    assert_int_equal (ask ("n\nmore", true, 1000, NULL, &fd), ACCTMGR_NO);
    assert_int_equal (read (fd, rest, sizeof (rest) - 1), 4);
    assert_string_equal (rest, "more");
    close (fd);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_prompt),
        cmocka_unit_test (test_answers),
        cmocka_unit_test (test_unanswered),
        cmocka_unit_test (test_reads_one_line),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
