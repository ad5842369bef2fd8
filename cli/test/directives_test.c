/* directives_test.c - #SBATCH directives of a batch script. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "directives.h"

static const char *const sbatch[] = { "#SBATCH", NULL };
static const char *const both[] = { "#SBATCH", "#ARBOR", NULL };

/* Parse 'script' and compare with the words and lines wanted (argv[0],
 * "sbatch", is checked here). */
static void check (const char *script, const char *const *prefixes,
                   const char *const *words, const unsigned *lines)
{
    struct directives d = { NULL, 0, NULL };
    arbor_error_t err = { "" };
    int n = 0;

    if (directives_parse (script, strlen (script), prefixes, "sbatch", &d, &err)
        < 0)
        fail_msg ("parse failed: %s", err.text);
    while (words[n])
        n++;
    if (d.argc != n + 1)
        fail_msg ("argc %d, want %d", d.argc, n + 1);
    assert_string_equal (d.argv[0], "sbatch");
    assert_int_equal (d.lines[0], 0);
    for (int i = 0; i < n; i++) {
        if (strcmp (d.argv[i + 1], words[i]))
            fail_msg ("argv[%d] is '%s', want '%s'", i + 1, d.argv[i + 1],
                      words[i]);
        if (d.lines[i + 1] != lines[i])
            fail_msg ("'%s' on line %u, want %u", words[i], d.lines[i + 1],
                      lines[i]);
    }
    assert_null (d.argv[d.argc]);
    directives_clear (&d);
    assert_null (d.argv);
    assert_int_equal (d.argc, 0);
}

#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define LINES(...) ((const unsigned[]){ __VA_ARGS__ })

static void test_basic (void **state)
{
    check ("#!/bin/bash\n"
           "#SBATCH -N 2\n"
           "#SBATCH --job-name=\"my job\" -n 4   # two nodes\n"
           "srun hostname\n",
           sbatch, WORDS ("-N", "2", "--job-name=my job", "-n", "4"),
           LINES (2, 2, 3, 3, 3));
}

/* No directives at all, an empty script, a script without a newline. */
static void test_empty (void **state)
{
    check ("", sbatch, (const char *const[]){ NULL }, NULL);
    check ("#!/bin/sh\necho hi\n", sbatch, (const char *const[]){ NULL }, NULL);
    check ("#SBATCH -t 5", sbatch, WORDS ("-t", "5"), LINES (1, 1));
}

/* Blank and comment lines are skipped; the first command ends the
 * header and directives after it are ignored. */
static void test_header_end (void **state)
{
    check ("#!/bin/sh\n"
           "\n"
           "   \t\n"
           "# a comment\n"
           "  # an indented comment\n"
           "#SBATCH -a\n"
           "echo start\n"
           "#SBATCH -b\n",
           sbatch, WORDS ("-a"), LINES (6));
    check ("#SBATCH -a\n  echo indented\n#SBATCH -b\n", sbatch, WORDS ("-a"),
           LINES (1));
    check ("#SBATCH -a\nx=1 # not a comment line\n#SBATCH -b\n", sbatch,
           WORDS ("-a"), LINES (1));
}

/* Only "PREFIX<space or tab>" in column 0 is a directive. */
static void test_prefix_exact (void **state)
{
    check ("#SBATCHX -a\n"
           " #SBATCH -b\n"
           "\t#SBATCH -c\n"
           "#SBATCH\n"
           "#sbatch -d\n"
           "##SBATCH -e\n"
           "#SBATCH\t-f\n"
           "#SBATCH   -g\n",
           sbatch, WORDS ("-f", "-g"), LINES (7, 8));
}

static void test_prefixes (void **state)
{
    check ("#SBATCH -a\n#ARBOR -b\n#PBS -c\n", both, WORDS ("-a", "-b"),
           LINES (1, 2));
    check ("#SBATCH -a\n#ARBOR -b\n", sbatch, WORDS ("-a"), LINES (1));
    check ("#SBATCH -a\n", (const char *const[]){ NULL },
           (const char *const[]){ NULL }, NULL);
}

static void test_quoting (void **state)
{
    check ("#SBATCH --comment='a \"b\" #c' -J x\\ y\n"
           "#SBATCH --wrap=\"echo \\\"hi\\\" \\\\ \" \"\"\n"
           "#SBATCH -o out#1 #-e err\n",
           sbatch,
           WORDS ("--comment=a \"b\" #c", "-J", "x y", "--wrap=echo \"hi\" \\ ",
                  "", "-o", "out#1"),
           LINES (1, 1, 1, 2, 2, 3, 3));
}

static void test_crlf (void **state)
{
    check ("#!/bin/bash\r\n#SBATCH -N 2\r\n#SBATCH -J 'a b'\r\n\r\necho\r\n",
           sbatch, WORDS ("-N", "2", "-J", "a b"), LINES (2, 2, 3, 3));
}

/* Enough words that the vectors grow several times. */
static void test_many (void **state)
{
    char script[20000];
    size_t len = 0;
    struct directives d = { NULL, 0, NULL };
    arbor_error_t err;

    for (int i = 0; i < 500; i++)
        len += (size_t)snprintf (script + len, sizeof (script) - len,
                                 "#SBATCH --a=%d --b\n", i);
    assert_int_equal (
        directives_parse (script, len, sbatch, "sbatch", &d, &err), 0);
    assert_int_equal (d.argc, 1001);
    assert_string_equal (d.argv[999], "--a=499");
    assert_int_equal (d.lines[999], 500);
    assert_int_equal (d.lines[1000], 500);
    assert_int_equal (d.lines[1], 1);
    directives_clear (&d);
}

/* A failure names the line and leaves *d alone. */
static void check_bad (const char *script, size_t len, const char *why)
{
    struct directives d = { (char **)0x1, 42, (unsigned *)0x2 };
    arbor_error_t err = { "" };

    errno = 0;
    assert_int_equal (directives_parse (script, len, both, "sbatch", &d, &err),
                      -1);
    assert_int_equal (errno, EINVAL);
    if (!strstr (err.text, why))
        fail_msg ("error '%s', want '%s'", err.text, why);
    assert_ptr_equal (d.argv, (char **)0x1);
    assert_int_equal (d.argc, 42);
    assert_ptr_equal (d.lines, (unsigned *)0x2);
}

static void test_errors (void **state)
{
    const char nul[] = "#!/bin/sh\n#SBATCH -N 1\necho a\0b\n";
    const char *s;

    s = "#!/bin/sh\n#SBATCH -N 1\n\n#SBATCH -J 'x\n";
    check_bad (s, strlen (s),
               "line 4: unterminated single quote in #SBATCH directive");
    s = "#ARBOR --comment=\"x\n";
    check_bad (s, strlen (s),
               "line 1: unterminated double quote in #ARBOR directive");
    /* As Slurm, a NUL anywhere is refused, even after the header. */
    check_bad (nul, sizeof (nul) - 1,
               "line 3: the batch script contains a NUL character");
    check_bad ("\0", 1, "line 1:");
    /* After the first command an unterminated quote does not matter. */
    s = "#SBATCH -a\necho\n#SBATCH -J 'x\n";
    check (s, both, WORDS ("-a"), LINES (1));
}

static void test_args (void **state)
{
    struct directives d = { NULL, 0, NULL };
    arbor_error_t err;

    errno = 0;
    assert_int_equal (directives_parse ("", 0, NULL, "x", &d, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (directives_parse ("", 0, sbatch, NULL, &d, &err), -1);
    assert_int_equal (directives_parse (NULL, 3, sbatch, "x", &d, &err), -1);
    assert_int_equal (directives_parse (NULL, 0, sbatch, "x", &d, &err), 0);
    assert_int_equal (d.argc, 1);
    directives_clear (&d);
    /* clear accepts NULL and a zeroed struct, and keeps errno. */
    errno = EIO;
    directives_clear (NULL);
    directives_clear (&d);
    assert_int_equal (errno, EIO);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_basic),
        cmocka_unit_test (test_empty),
        cmocka_unit_test (test_header_end),
        cmocka_unit_test (test_prefix_exact),
        cmocka_unit_test (test_prefixes),
        cmocka_unit_test (test_quoting),
        cmocka_unit_test (test_crlf),
        cmocka_unit_test (test_many),
        cmocka_unit_test (test_errors),
        cmocka_unit_test (test_args),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
