/* fmt_test.c - squeue/sinfo formats (fmt.c): -o letters with sizes and
 * justification, literal text and "%%", -O names with sizes, headers,
 * cutting, and the errors naming an unknown field. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fmt.h"

enum { F_ID, F_NAME, F_STATE };

static const struct fmt_def defs[] = {
    { F_ID, 'i', "JobID", "JOBID" },
    { F_NAME, 'j', "Name", "NAME" },
    { F_STATE, 't', "StateCompact", "ST" },
};

struct row {
    const char *id, *name, *st;
};

static const char *value (int id, const void *p, char *buf, size_t len)
{
    const struct row *r = p;

    (void)buf;
    (void)len;
    return id == F_ID ? r->id : id == F_NAME ? r->name : r->st;
}

/* Header then one row, as text; caller frees. */
static char *render (const struct fmt *f, const struct row *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream (&buf, &len);

    assert_non_null (out);
    fmt_print_header (out, f);
    fmt_print_row (out, f, value, r);
    fclose (out);
    return buf;
}

static void expect (const char *spec, bool lng, const char *want)
{
    struct row r = { "12345", "a_rather_long_name", "PD" };
    struct fmt f;
    arbor_error_t err;
    char *got;

    if (lng)
        assert_int_equal (fmt_parse_long (spec, defs, 3, &f, &err), 0);
    else
        assert_int_equal (fmt_parse (spec, defs, 3, &f, &err), 0);
    got = render (&f, &r);
    assert_string_equal (got, want);
    free (got);
    fmt_free (&f);
}

static void test_percent (void **state)
{
    expect ("%.8i %6j|%t", false,
            "   JOBID NAME  |ST\n"
            "   12345 a_rath|PD\n");
    expect ("%i", false, "JOBID\n12345\n"); /* no size: as needed */
    expect ("id=%i 100%%", false, "id=JOBID 100%\nid=12345 100%\n");
    expect ("%3i", false, "JOB\n123\n"); /* cut to the size */
}

static void test_long (void **state)
{
    expect ("jobid,STATECOMPACT:.4", true,
            "JOBID                 ST\n"
            "12345                 PD\n");
    expect ("name:6,jobid:.7", true,
            "NAME    JOBID\n"
            "a_rath  12345\n");
}

static void test_errors (void **state)
{
    struct fmt f;
    arbor_error_t err;

    assert_int_equal (fmt_parse ("%i %z", defs, 3, &f, &err), -1);
    assert_non_null (strstr (err.text, "'%z'"));
    assert_int_equal (fmt_parse ("%.9", defs, 3, &f, &err), -1);
    assert_int_equal (fmt_parse ("%99999i", defs, 3, &f, &err), -1);
    assert_int_equal (fmt_parse_long ("jobid,bogus:5", defs, 3, &f, &err), -1);
    assert_non_null (strstr (err.text, "'bogus'"));
    assert_int_equal (fmt_parse_long ("jobid:x", defs, 3, &f, &err), -1);
    assert_int_equal (fmt_parse_long ("", defs, 3, &f, &err), -1);
    assert_true (fmt_parse ("%i%j", defs, 3, &f, &err) == 0
                 && fmt_has (&f, F_NAME) && !fmt_has (&f, F_STATE));
    fmt_free (&f);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_percent),
        cmocka_unit_test (test_long),
        cmocka_unit_test (test_errors),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
