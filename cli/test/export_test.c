/* export_test.c - the tasks' environment for --export=ALL|NONE|list. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "export.h"

static char *const env[] = {
    "HOME=/home/a",
    "PATH=/bin:/usr/bin",
    "MARKER=42",
    "SLURM_CONF=/x",
    "ARBOR_CONF=/y",
    "EMPTY=",
    NULL,
};

static size_t count (char **v)
{
    size_t n = 0;

    while (v[n])
        n++;
    return n;
}

/* The value of 'key' in v, or NULL. */
static const char *get (char **v, const char *key)
{
    size_t k = strlen (key);

    for (size_t i = 0; v[i]; i++)
        if (!strncmp (v[i], key, k) && v[i][k] == '=')
            return v[i] + k + 1;
    return NULL;
}

static void test_all (void **state)
{
    arbor_error_t err;
    char **v = export_env (NULL, env, &err);

    assert_non_null (v);
    assert_int_equal (count (v), 6);
    assert_string_equal (get (v, "MARKER"), "42");
    export_free (v);
    v = export_env ("all", env, &err);
    assert_non_null (v);
    assert_int_equal (count (v), 6);
    export_free (v);
}

static void test_none (void **state)
{
    arbor_error_t err;
    char **v = export_env ("NONE", env, &err);

    assert_non_null (v);
    assert_int_equal (count (v), 2);
    assert_null (get (v, "MARKER"));
    assert_null (get (v, "PATH"));
    assert_string_equal (get (v, "SLURM_CONF"), "/x");
    assert_string_equal (get (v, "ARBOR_CONF"), "/y");
    export_free (v);
}

static void test_list (void **state)
{
    arbor_error_t err;
    char **v = export_env ("PATH,NEW=1,MISSING,EMPTY", env, &err);

    assert_non_null (v);
    assert_string_equal (get (v, "PATH"), "/bin:/usr/bin");
    assert_string_equal (get (v, "NEW"), "1");
    assert_string_equal (get (v, "EMPTY"), "");
    assert_null (get (v, "MISSING"));
    assert_null (get (v, "MARKER"));
    assert_null (get (v, "HOME"));
    assert_non_null (get (v, "SLURM_CONF"));
    assert_int_equal (count (v), 5);
    export_free (v);

    v = export_env ("ALL,MARKER=7,X=a=b", env, &err);
    assert_non_null (v);
    assert_string_equal (get (v, "MARKER"), "7"); /* overridden */
    assert_string_equal (get (v, "X"), "a=b");
    assert_string_equal (get (v, "HOME"), "/home/a");
    assert_int_equal (count (v), 7);
    export_free (v);

    v = export_env ("NONE,NEW=2", env, &err);
    assert_non_null (v);
    assert_string_equal (get (v, "NEW"), "2");
    assert_null (get (v, "PATH"));
    export_free (v);
}

static void test_bad (void **state)
{
    const char *bad[] = { "", "=x", "A,,B", "ALL,", "A,", ",A" };
    arbor_error_t err;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        errno = 0;
        assert_null (export_env (bad[i], env, &err));
        assert_int_equal (errno, EINVAL);
        assert_non_null (strstr (err.text, "--export"));
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_all),
        cmocka_unit_test (test_none),
        cmocka_unit_test (test_list),
        cmocka_unit_test (test_bad),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
