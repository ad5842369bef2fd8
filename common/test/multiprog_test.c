/* multiprog_test.c - srun --multi-prog configuration files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "multiprog.h"

static struct multiprog *parse (const char *text, uint32_t ntasks)
{
    arbor_error_t err = { "" };
    struct multiprog *mp = multiprog_parse (text, strlen (text), ntasks, &err);

    if (!mp)
        fail_msg ("parse failed: %s", err.text);
    return mp;
}

/* Task 'rank' runs the words of 'want' (NULL-terminated). */
static void check_argv (const struct multiprog *mp, uint32_t rank,
                        const char *const *want)
{
    char **argv = multiprog_argv (mp, rank);
    size_t i;

    assert_non_null (argv);
    for (i = 0; want[i]; i++) {
        if (!argv[i])
            fail_msg ("task %u: %zu words, want more", rank, i);
        if (strcmp (argv[i], want[i]))
            fail_msg ("task %u: word %zu is '%s', want '%s'", rank, i, argv[i],
                      want[i]);
    }
    if (argv[i])
        fail_msg ("task %u: extra word '%s'", rank, argv[i]);
    multiprog_argv_free (argv);
}

#define ARGV(mp, rank, ...) \
    check_argv (mp, rank, (const char *[]){ __VA_ARGS__ })

/* text does not parse for ntasks; err contains 'why'. */
static void check_bad (const char *text, uint32_t ntasks, const char *why)
{
    arbor_error_t err = { "" };

    errno = 0;
    if (multiprog_parse (text, strlen (text), ntasks, &err))
        fail_msg ("'%s' parsed", text);
    assert_int_equal (errno, EINVAL);
    if (!strstr (err.text, why))
        fail_msg ("'%s': error '%s', want '%s'", text, err.text, why);
}

/* The man page's example, srun -n8 -l --multi-prog. */
static void test_man_example (void **state)
{
    struct multiprog *mp = parse ("###################\n"
                                  "# srun multiple program configuration\n"
                                  "###################\n"
                                  "4-6       hostname\n"
                                  "1,7       echo  task:%t\n"
                                  "0,2-3     echo  offset:%o\n",
                                  8);

    ARGV (mp, 0, "echo", "offset:0", NULL);
    ARGV (mp, 1, "echo", "task:1", NULL);
    ARGV (mp, 2, "echo", "offset:1", NULL);
    ARGV (mp, 3, "echo", "offset:2", NULL);
    ARGV (mp, 4, "hostname", NULL);
    ARGV (mp, 6, "hostname", NULL);
    ARGV (mp, 7, "echo", "task:7", NULL);
    multiprog_destroy (mp);
}

/* Offsets count in the order tasks are listed, not by rank. */
static void test_offsets (void **state)
{
    struct multiprog *mp = parse ("5,0-1,3 p %o-%t\n2,4 q %o\n", 6);

    ARGV (mp, 5, "p", "0-5", NULL);
    ARGV (mp, 0, "p", "1-0", NULL);
    ARGV (mp, 1, "p", "2-1", NULL);
    ARGV (mp, 3, "p", "3-3", NULL);
    ARGV (mp, 2, "q", "0", NULL);
    ARGV (mp, 4, "q", "1", NULL);
    multiprog_destroy (mp);
}

/* "*" takes the tasks no line above has; its offset is the rank. */
static void test_star (void **state)
{
    struct multiprog *mp = parse ("1-2 a %o\n* b %t %o\n", 5);

    ARGV (mp, 0, "b", "0", "0", NULL);
    ARGV (mp, 1, "a", "0", NULL);
    ARGV (mp, 2, "a", "1", NULL);
    ARGV (mp, 3, "b", "3", "3", NULL);
    ARGV (mp, 4, "b", "4", "4", NULL);
    multiprog_destroy (mp);
    mp = parse ("* only\n", 3);
    ARGV (mp, 2, "only", NULL);
    multiprog_destroy (mp);
    /* A task listed after "*" is on two lines. */
    check_bad ("* a\n1 b\n", 3, "task 1 is on lines 1 and 2");
}

static void test_quoting (void **state)
{
    struct multiprog *mp = parse ("  # indented comment\n"
                                  "\n"
                                  "0 /bin/sh -c \"echo 'rank %t'\"  # note\n"
                                  "1 echo '%t is literal' \\%o 100%% %x %\n"
                                  "'2' \"my prog\" a\\ b ''\n",
                                  3);

    ARGV (mp, 0, "/bin/sh", "-c", "echo 'rank %t'", NULL);
    ARGV (mp, 1, "echo", "%t is literal", "%o", "100%", "%x", "%", NULL);
    ARGV (mp, 2, "my prog", "a b", "", NULL);
    multiprog_destroy (mp);
    /* Expansion in the program name, CRLF lines, glued %t%o. */
    mp = parse ("0-1 ./prog.%t x%t%o\r\n", 2);
    ARGV (mp, 1, "./prog.1", "x11", NULL);
    multiprog_destroy (mp);
}

static void test_big_ranks (void **state)
{
    struct multiprog *mp = parse ("0-99999 p %t %o\n100000 q %t\n", 100001);

    ARGV (mp, 99999, "p", "99999", "99999", NULL);
    ARGV (mp, 100000, "q", "100000", NULL);
    multiprog_destroy (mp);
}

static void test_errors (void **state)
{
    check_bad ("0-3 a\n8 b\n", 4,
               "line 2: task 8 is out of range (the step has 4 tasks)");
    check_bad ("0-9 a\n", 4, "line 1: task 9 is out of range");
    check_bad ("99999999999 a\n", 4, "task 99999999999 is out of range");
    check_bad ("0-1 a\n\n2,1 b\n", 4, "task 1 is on lines 1 and 3");
    check_bad ("0-1,1 a\n", 2, "line 1: task 1 is listed twice");
    check_bad ("0-2 a\n", 4, "task 3 has no line in the configuration");
    check_bad ("# nothing\n", 1, "task 0 has no line");
    check_bad ("", 1, "task 0 has no line");
    check_bad ("0\n", 1, "line 1: no program for tasks '0'");
    check_bad ("0 # a comment, no program\n", 1, "no program");
    check_bad ("3-1 a\n", 4, "line 1: malformed task list '3-1'");
    const char *malformed[] = { "x",     "1-", "-1",  "1,", ",1",  "1,,2",
                                "1-2-3", "**", "1.5", "+1", "1-x", "0,*" };
    for (size_t i = 0; i < sizeof (malformed) / sizeof (malformed[0]); i++) {
        char text[64];
        snprintf (text, sizeof (text), "%s prog\n", malformed[i]);
        check_bad (text, 4, "line 1: malformed task list");
    }
    check_bad ("0 a 'b\n", 1, "line 1: unterminated single quote");
    check_bad ("0 a\n1 \"b\n", 2, "line 2: unterminated double quote");
}

static void test_args (void **state)
{
    arbor_error_t err;
    struct multiprog *mp = parse ("0 a\n", 1);
    char text[] = "0 a\n\0 b";

    errno = 0;
    assert_null (multiprog_argv (mp, 1));
    assert_int_equal (errno, EINVAL);
    assert_null (multiprog_argv (NULL, 0));
    multiprog_destroy (mp);
    errno = 0;
    assert_null (multiprog_parse ("0 a\n", 4, 0, &err));
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "no tasks"));
    errno = 0;
    assert_null (multiprog_parse (text, sizeof (text) - 1, 1, &err));
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "line 2: NUL"));
    assert_null (multiprog_parse (NULL, 3, 1, NULL));
    /* Destructors accept NULL and keep errno. */
    errno = EIO;
    multiprog_destroy (NULL);
    multiprog_argv_free (NULL);
    assert_int_equal (errno, EIO);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_man_example), cmocka_unit_test (test_offsets),
        cmocka_unit_test (test_star),        cmocka_unit_test (test_quoting),
        cmocka_unit_test (test_big_ranks),   cmocka_unit_test (test_errors),
        cmocka_unit_test (test_args),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
