/* gresconf_test.c - gres.conf in Slurm's format (gresconf.c): lines read,
 * files expanded, counts defaulted, and what is refused, by line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gresconf.h"

static void test_lines (void **state)
{
    const char *text =
        "# GPUs\n"
        "AutoDetect=nvml\n"
        "NodeName=node[1-4] Name=gpu Type=a100 File=/dev/nvidia[0-3] "
        "Cores=0-15\n"
        "\n"
        "Name=nic Count=2   # count only\n"
        "name=mps count=100k\n";
    struct gresconf g;
    arbor_error_t err = { "" };

    (void)state;
    assert_int_equal (gresconf_parse (text, &g, &err), 0);
    assert_int_equal (g.n, 4);
    assert_string_equal (g.v[0].autodetect, "nvml");
    assert_null (g.v[0].name);
    assert_int_equal (g.v[1].lineno, 3);
    assert_string_equal (g.v[1].nodes, "node[1-4]");
    assert_string_equal (g.v[1].name, "gpu");
    assert_string_equal (g.v[1].type, "a100");
    assert_int_equal (g.v[1].nfiles, 4);
    assert_string_equal (g.v[1].files[3], "/dev/nvidia3");
    assert_int_equal (g.v[1].count, 4); /* the files' */
    assert_string_equal (g.v[1].cores, "0-15");
    assert_int_equal (g.v[2].count, 2);
    assert_null (g.v[2].files);
    assert_int_equal (g.v[3].count, 102400); /* keys in any case */
    gresconf_clear (&g);
    assert_int_equal (g.n, 0);
}

static const char *refused (const char *text)
{
    static arbor_error_t err;
    struct gresconf g;

    assert_int_equal (gresconf_parse (text, &g, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (g.n, 0);
    return err.text;
}

static void test_refused (void **state)
{
    (void)state;
    assert_string_equal (refused ("Name=gpu\nNmae=nic\n"),
                         "gres.conf line 2: unknown key 'Nmae'");
    assert_string_equal (refused ("Name=gpu File=/dev/nvidia[0-1] Count=3"),
                         "gres.conf line 1: Count= is not the number of "
                         "File= files");
    assert_string_equal (refused ("Type=a100 Count=1"),
                         "gres.conf line 1: Name= missing");
    assert_string_equal (refused ("Name=g/pu"),
                         "gres.conf line 1: Name= is not a name: 'g/pu'");
    assert_string_equal (refused ("Name=gpu Count=0"),
                         "gres.conf line 1: Count= is not a count: '0'");
    assert_string_equal (refused ("Name=gpu Name=nic"),
                         "gres.conf line 1: key given twice: 'Name'");
    assert_string_equal (refused ("Name=gpu Type"),
                         "gres.conf line 1: KEY=VALUE expected: 'Type'");
    assert_non_null (strstr (refused ("AutoDetect=cuda"), "is not one of"));
    assert_non_null (
        strstr (refused ("NodeName=n1"), "Name= or AutoDetect= expected"));
    assert_non_null (
        strstr (refused ("Name=gpu File=/dev/nv[0-99999]"), "File="));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_lines),
        cmocka_unit_test (test_refused),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
