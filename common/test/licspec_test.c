/* licspec_test.c - license lists (licspec.c): -L and Licenses=. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf.h"
#include "licspec.h"

/* Parse s for 'use' and check its canonical text. */
static void parses_as (const char *s, enum licspec_use use, const char *want)
{
    struct licspec l;
    arbor_error_t err;
    char *text;

    if (licspec_parse (s, use, &l, &err) < 0)
        fail_msg ("'%s': %s", s, err.text);
    assert_non_null (text = licspec_text (&l));
    assert_string_equal (text, want);
    free (text);
    licspec_clear (&l);
}

static void test_forms (void **state)
{
    parses_as ("fluent:30,ansys", LICSPEC_CONF, "fluent:30,ansys:1");
    parses_as ("foo:4,bar", LICSPEC_JOB, "foo:4,bar:1");
    parses_as ("foo:4|bar", LICSPEC_JOB, "foo:4|bar:1");
    parses_as ("a:1,b:2,a:3", LICSPEC_JOB, "a:4,b:2"); /* repeats add up */
    parses_as ("a|a:2", LICSPEC_JOB, "a:1|a:2");       /* two choices */
    parses_as ("idle:0", LICSPEC_CONF, "idle:0");      /* none to hand out */
    parses_as ("Nastran@db:12", LICSPEC_JOB, "Nastran@db:12");
    parses_as ("", LICSPEC_JOB, "");
    parses_as (NULL, LICSPEC_CONF, "");
}

static void test_choices (void **state)
{
    struct licspec l;
    arbor_error_t err;
    size_t first, count;

    assert_int_equal (licspec_parse ("a:1,b:2", LICSPEC_JOB, &l, &err), 0);
    assert_int_equal (licspec_choices (&l), 1);
    licspec_choice (&l, 0, &first, &count);
    assert_int_equal (first, 0);
    assert_int_equal (count, 2);
    licspec_clear (&l);
    assert_int_equal (licspec_parse ("a:1|b:2|c", LICSPEC_JOB, &l, &err), 0);
    assert_true (l.any);
    assert_int_equal (licspec_choices (&l), 3);
    licspec_choice (&l, 2, &first, &count);
    assert_int_equal (first, 2);
    assert_int_equal (count, 1);
    assert_string_equal (l.items[2].name, "c");
    licspec_clear (&l);
    assert_int_equal (licspec_parse ("", LICSPEC_JOB, &l, &err), 0);
    assert_int_equal (licspec_choices (&l), 0);
}

static void test_errors (void **state)
{
    static const struct {
        const char *s;
        enum licspec_use use;
        const char *why;
    } bad[] = {
        { "a,b|c", LICSPEC_JOB, "cannot be mixed" },
        { "a|b", LICSPEC_CONF, "is for job requests" },
        { "a:0", LICSPEC_JOB, "count must be a number from 1" },
        { "a:x", LICSPEC_CONF, "count must be" },
        { "a:", LICSPEC_JOB, "count must be" },
        { "a:-1", LICSPEC_JOB, "count must be" },
        { "a:1:2", LICSPEC_JOB, "count must be" },
        { "a:100000001", LICSPEC_CONF, "count must be" },
        { "a,,b", LICSPEC_JOB, "license name is" },
        { ",a", LICSPEC_JOB, "license name is" },
        { "a,", LICSPEC_JOB, "license name is" },
        { ":3", LICSPEC_JOB, "license name is" },
        { "a b", LICSPEC_JOB, "license name is" },
        { "a=b", LICSPEC_CONF, "license name is" },
        { "a:1,a:2", LICSPEC_CONF, "listed twice" },
        { "a:60000000,a:60000000", LICSPEC_JOB, "more than" },
    };
    struct licspec l = { .n = 77 };
    arbor_error_t err;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        if (licspec_parse (bad[i].s, bad[i].use, &l, &err) == 0)
            fail_msg ("'%s' was accepted", bad[i].s);
        assert_int_equal (errno, EINVAL);
        if (!strstr (err.text, bad[i].why))
            fail_msg ("'%s': '%s' lacks '%s'", bad[i].s, err.text, bad[i].why);
        assert_int_equal (l.n, 77); /* untouched */
    }
}

static void test_bounds (void **state)
{
    char name[LICSPEC_NAME_MAX + 2], list[LICSPEC_MAX * 4 + 8] = "";
    struct licspec l;
    arbor_error_t err;

    memset (name, 'n', sizeof (name) - 1);
    name[sizeof (name) - 1] = '\0';
    assert_int_equal (licspec_parse (name, LICSPEC_JOB, &l, &err), -1);
    name[LICSPEC_NAME_MAX] = '\0';
    assert_int_equal (licspec_parse (name, LICSPEC_JOB, &l, &err), 0);
    licspec_clear (&l);
    for (int i = 0; i <= LICSPEC_MAX; i++)
        snprintf (list + strlen (list), sizeof (list) - strlen (list), "%sl%d",
                  i ? "," : "", i);
    assert_int_equal (licspec_parse (list, LICSPEC_JOB, &l, &err), -1);
    assert_non_null (strstr (err.text, "more than 64 licenses"));
}

static void test_copy (void **state)
{
    struct licspec a, b;
    arbor_error_t err;
    char *text;

    assert_int_equal (licspec_parse ("x:2|y:3", LICSPEC_JOB, &a, &err), 0);
    assert_int_equal (licspec_copy (&b, &a), 0);
    licspec_clear (&a);
    assert_non_null (text = licspec_text (&b));
    assert_string_equal (text, "x:2|y:3");
    free (text);
    licspec_clear (&b);
    licspec_clear (NULL);
}

/* arbor.conf's Licenses=: kept as written, a bad one names its line. */
static void test_conf (void **state)
{
    arbor_error_t err;
    struct conf *c;

    assert_non_null (
        c = conf_parse ("Licenses=fluent:30,ansys\n", "t.conf", &err));
    assert_string_equal (c->licenses, "fluent:30,ansys");
    conf_destroy (c);
    assert_null (conf_parse ("ClusterName=x\nLicenses=a|b\n", "t.conf", &err));
    assert_non_null (strstr (err.text, "t.conf:2: Licenses: 'a|b'"));
    assert_null (conf_parse ("Licenses=a:x\n", "t.conf", &err));
    assert_non_null (strstr (err.text, "'a:x': the count must be"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_forms),  cmocka_unit_test (test_choices),
        cmocka_unit_test (test_errors), cmocka_unit_test (test_bounds),
        cmocka_unit_test (test_copy),   cmocka_unit_test (test_conf),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
